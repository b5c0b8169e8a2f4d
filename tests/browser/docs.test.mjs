// The documentation pages of the static site (web/docs/*.html, built from the markdown by .scripts/docs-site.mjs):
// each opens on the chapter's own server with no console error and no request outside, carries the navigation to
// every other page, and every link and image on it resolves, #anchors included.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildDocsSite } from '../../.scripts/docs-site.mjs';
import { open } from './harness.mjs';

let h, built;
before(async () => {
  built = buildDocsSite().map((p) => p.replace(/^web\//, ''));
  h = await open();
});
after(() => h?.close());

test('every documentation page renders, navigates to the others, and its links and images resolve', { timeout: 120_000 }, async () => {
  assert.ok(built.includes('docs/index.html') && built.includes('docs/api.html'), `built: ${built}`);
  const ids = new Map();
  const links = [];
  for (const page of built) {
    const res = await h.page.goto(`${h.url}${page}`);
    assert.equal(res.status(), 200, page);
    const found = await h.page.evaluate(() => ({
      ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
      nav: [...document.querySelectorAll('.docs-nav a')].map((a) => a.href),
      current: document.querySelector('.docs-nav a[aria-current="page"]')?.href,
      links: [...document.querySelectorAll('main a[href], main img[src]')].map((a) => a.href || a.src),
      h1: document.querySelector('main h1')?.textContent,
    }));
    assert.ok(found.h1, `${page} has a title`);
    assert.equal(found.current, `${h.url}${page}`, `${page} marks itself in the navigation`);
    for (const other of built) assert.ok(found.nav.includes(`${h.url}${other}`), `${page} links ${other}`);
    ids.set(`${h.url}${page}`, new Set(found.ids));
    links.push(...found.links.map((l) => [page, l]));
  }
  const bad = [];
  for (const [page, link] of links) {
    const [url, hash] = link.split('#');
    if (!url.startsWith(h.url)) { bad.push(`${page}: ${link} (outside the site)`); continue; }
    const r = await h.page.request.get(url);
    if (r.status() !== 200) bad.push(`${page}: ${link} (${r.status()})`);
    else if (hash && !ids.get(url)?.has(decodeURIComponent(hash))) bad.push(`${page}: ${link} (no #${hash} there)`);
  }
  assert.deepEqual(bad, []);
  assert.deepEqual(h.record.external, []);
  assert.deepEqual([...h.record.consoleErrors, ...h.record.pageErrors], []);
});
