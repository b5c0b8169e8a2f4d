// The contents bar: marks the section in view (aria-current), remembers in localStorage which sections the
// reader has finished and where they were, and offers to continue there after a reload. Not a widget: it only
// reads the chapter's own markup (nav.contents links to section ids).

const KEY = 'lookback.progress';

function load() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || 'null');
    return { read: Array.isArray(v?.read) ? v.read : [], last: typeof v?.last === 'string' ? v.last : null };
  } catch {
    return { read: [], last: null };
  }
}

function save(state) {
  try {
    localStorage.setItem(KEY, JSON.stringify(state));
  } catch { /* private mode: progress is not remembered */ }
}

export function trackContents(doc = document) {
  const nav = doc.querySelector('nav.contents');
  if (!nav) return;
  const links = [...nav.querySelectorAll('a[data-section]')];
  const sections = links.map((a) => doc.getElementById(a.dataset.section)).filter(Boolean);
  const state = load();
  const read = new Set(state.read.filter((id) => sections.some((s) => s.id === id)));
  let current = null;
  const list = nav.querySelector('ol');

  const showRead = () => {
    for (const a of links) {
      const done = read.has(a.dataset.section);
      a.classList.toggle('read', done);
      a.querySelector('.read-note').textContent = done ? ' (read)' : '';
    }
    const text = nav.querySelector('.progress-text');
    if (text) text.textContent = `${read.size} of ${sections.length} read`;
    const bar = nav.querySelector('.progress span');
    if (bar) bar.style.width = `${(100 * read.size) / sections.length}%`;
  };

  const update = () => {
    const line = innerHeight * 0.3;
    let now = sections[0];
    for (const s of sections) if (s.getBoundingClientRect().top <= line) now = s;
    let changed = false;
    // a section counts as read once it has been the current one and its end has been on screen; at the very end
    // of the page, every section whose end is on screen counts
    const atEnd = scrollY + innerHeight >= doc.documentElement.scrollHeight - 4;
    for (const s of atEnd ? sections : [now]) {
      if (s.classList.contains('pending')) continue;   // an unfinished section is never marked read
      const r = s.getBoundingClientRect();
      if (!read.has(s.id) && r.bottom <= innerHeight && r.bottom > 0 && (s === now || r.top < innerHeight)) {
        read.add(s.id);
        changed = true;
      }
    }
    if (now !== current) {
      current = now;
      for (const a of links) {
        if (a.dataset.section === now.id) {
          a.setAttribute('aria-current', 'location');
          // keep the current chip visible in the horizontal bar, without scrolling the page
          const li = a.parentElement;
          if (list.scrollWidth > list.clientWidth) {
            const left = li.offsetLeft - list.clientWidth / 2 + li.offsetWidth / 2;
            list.scrollTo({ left, behavior: 'auto' });
          }
        } else a.removeAttribute('aria-current');
      }
      doc.documentElement.dataset.section = now.id;
      changed = true;
    }
    if (changed) {
      save({ read: [...read], last: current.id });
      showRead();
    }
  };

  let frame = 0;
  addEventListener('scroll', () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; update(); });
  }, { passive: true });
  addEventListener('resize', () => update());

  // Offer to continue where the reader left off (only when the page was opened at the top).
  const resume = doc.querySelector('.resume');
  const last = sections.find((s) => s.id === state.last);
  if (resume && last && last !== sections[0] && !location.hash) {
    const a = resume.querySelector('a');
    a.href = `#${last.id}`;
    const h = last.querySelector('h2');
    const num = h?.querySelector('.secnum')?.textContent ?? '';
    const title = h ? h.textContent.replace(num, '').trim() : last.id;
    a.textContent = `Continue where you left off: ${num ? `section ${num}, ` : ''}${title}`;
    resume.hidden = false;
  }
  nav.querySelector('.reset-progress')?.addEventListener('click', () => {
    read.clear();
    save({ read: [], last: current?.id ?? null });
    showRead();
  });
  showRead();
  update();
}
