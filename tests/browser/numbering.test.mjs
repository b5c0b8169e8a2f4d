// Section numbers: 1..N in page order with no patched-in "9b", the same number in the heading, the contents and
// every cross-reference of the prose, all derived from the section ids (a section added at run time renumbers
// everything after it), and each contents label equal to its heading.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openChapter } from './harness.mjs';

let b;
before(async () => { b = await openChapter(); });
after(async () => { await b?.close(); });
const T = { timeout: 120000 };

const read = (page) => page.evaluate(() => {
  const sections = [...document.querySelectorAll('main > section[id]')];
  const heading = (s) => {
    const h = s.querySelector(':scope > h2');
    const num = h.querySelector('.secnum')?.textContent ?? '';
    return { id: s.id, num, title: h.textContent.replace(num, '').trim() };
  };
  return {
    headings: sections.map(heading),
    contents: [...document.querySelectorAll('nav.contents a[data-section]')].map((a) => ({ id: a.dataset.section,
      num: a.querySelector('.num').textContent, title: a.querySelector('.label').textContent.trim() })),
    refs: [...document.querySelectorAll('a.ref')].map((a) => ({ to: a.getAttribute('href').slice(1), text: a.textContent })),
    prose: document.body.innerText,
    plain: [...document.querySelectorAll('main, footer')].map((el) => {
      const c = el.cloneNode(true);
      c.querySelectorAll('a.ref').forEach((a) => a.remove());
      return c.textContent;
    }).join(' '),
  };
});

test('sections are numbered 1..N in order; contents and every cross-reference follow the headings', T, async () => {
  const { page } = b;
  const r = await read(page);
  assert.ok(r.headings.length >= 15);
  assert.deepEqual(r.headings.map((h) => h.num), r.headings.map((_, i) => String(i + 1)), 'headings numbered 1..N');
  assert.deepEqual(r.contents, r.headings, 'contents entries: the same number and the same words as the headings');
  assert.doesNotMatch(r.prose, /\b\d+b\b/, 'no patched-in number such as 9b');
  const num = new Map(r.headings.map((h) => [h.id, h.num]));
  assert.ok(r.refs.length >= 20, `cross-references are links (${r.refs.length})`);
  for (const ref of r.refs) {
    assert.ok(num.has(ref.to), `reference to a section on the page: ${ref.to}`);
    assert.match(ref.text, new RegExp(`^((S|s)ection )?${num.get(ref.to)}$`), `reference to ${ref.to}: "${ref.text}"`);
  }
  assert.doesNotMatch(r.plain, /\b[Ss]ections? \d|§\s?\d/, 'no section number typed into the prose');
  assert.deepEqual(b.record.consoleErrors, []);
});

test('a section added to the page renumbers the headings, the contents and the references after it', T, async () => {
  const { page } = b;
  const before = await read(page);
  assert.ok(before.refs.length >= 20, 'the prose refers to sections through links');
  const after = await page.evaluate(async () => {
    const s = document.createElement('section');
    s.id = 'added';
    s.innerHTML = '<h2><span class="secnum"></span> An added section</h2>';
    document.getElementById('heads').after(s);
    const { numberSections } = await import('./js/chapter/numbering.js');
    numberSections(document);
    return [...document.querySelectorAll('a.ref')].map((a) => a.textContent);
  });
  const r = await read(page);
  const i = r.headings.findIndex((h) => h.id === 'added');
  assert.equal(r.headings[i].num, String(before.headings.findIndex((h) => h.id === 'heads') + 2));
  assert.equal(r.headings[i + 1].num, String(i + 2), 'the next section moved up by one');
  assert.deepEqual(r.contents, r.headings);
  const shift = (text, to) => {
    const was = before.headings.findIndex((h) => h.id === to);
    return was > i - 1 ? text.replace(/\d+$/, (n) => String(Number(n) + 1)) : text;
  };
  assert.deepEqual(after, before.refs.map((ref) => shift(ref.text, ref.to)));
  await page.reload();
});
