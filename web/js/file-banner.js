// A classic (non-module) script, so that it runs even when the page is opened from disk: then browsers load no
// module script and start no worker, and every widget would wait forever. It puts one banner at the top that
// says so and gives the one-line command that serves the folder. Over http(s) it does nothing.
// Not a widget and not part of the chapter's modules.
(function fileBanner() {
  if (location.protocol !== 'file:') return;
  function show() {
    if (document.getElementById('lookback-file-banner')) return;
    var dir = decodeURIComponent(location.pathname.replace(/[^/]*$/, ''));
    var page = location.pathname.split('/').pop() || 'index.html';
    var command = 'cd "' + dir + '" && python3 -m http.server 8080';
    var banner = document.createElement('div');
    banner.id = 'lookback-file-banner';
    banner.setAttribute('role', 'alert');
    banner.style.cssText = 'margin:0;padding:.8rem 1rem;background:#fff3c4;color:#1d1d1f;border-bottom:2px solid #b07d00;'
      + 'font:15px/1.5 system-ui,sans-serif;position:relative;z-index:10';
    var title = document.createElement('strong');
    title.textContent = 'This page was opened from a file, so its live widgets cannot run. ';
    var why = document.createElement('span');
    why.textContent = 'Browsers load no modules and start no workers from file:// pages. Serve the folder and open '
      + 'http://localhost:8080/' + page + ' instead:';
    var code = document.createElement('code');
    code.textContent = command;
    code.style.cssText = 'display:block;margin-top:.4rem;padding:.3rem .5rem;background:#fffaf0;border-radius:4px;'
      + 'font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere';
    banner.append(title, why, code);
    document.body.prepend(banner);
  }
  if (document.body) show();
  else document.addEventListener('DOMContentLoaded', show);
}());
