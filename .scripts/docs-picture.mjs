// Writes web/docs/img/chapter.png, the README's picture of the chapter: the section "Where the model looks" in
// headless chromium on the chapter's own server, its explorer computed live by the core on the bundled Sprout and
// turned to the model card's best pronoun-to-name head, looking from "he".
// Run after a build (`node .scripts/docs-picture.mjs`); not part of the build. Not a test.
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { open } from '../tests/browser/harness.mjs';
import { ready } from '../tests/browser/widget-helpers.mjs';

const out = fileURLToPath(new URL('../web/docs/img/chapter.png', import.meta.url));
mkdirSync(new URL('../web/docs/img/', import.meta.url), { recursive: true });

const card = JSON.parse(readFileSync(new URL('../shared/models/sprout/card.json', import.meta.url), 'utf8'));
const [layer, head] = card.heads.pronoun_to_name.best[0].head.split('.').map(Number);   // counted from 0 in the card

const h = await open();
try {
  await h.page.setViewportSize({ width: 1100, height: 900 });
  await h.page.goto(`${h.url}index.html#where-it-looks`);
  await ready(h.page, 'lookback-explorer');
  await h.page.evaluate(([l, hd]) => {
    const x = document.querySelector('lookback-explorer');
    x.setAttribute('layer', String(l + 1));
    x.setAttribute('head', String(hd + 1));
    x.setAttribute('query-text', 'he');
  }, [layer, head]);
  await h.page.waitForFunction(([l, hd]) => document.querySelector('lookback-explorer').shadowRoot.textContent.includes(`head ${l + 1}.${hd + 1}:`), [layer, head]);
  await h.page.waitForTimeout(300);
  await h.page.evaluate(() => document.fonts.ready);
  // the section's title down to the end of its explorer, in page coordinates
  const clip = await h.page.evaluate(() => {
    const t = document.querySelector('#where-it-looks h2').getBoundingClientRect();
    const w = document.querySelector('lookback-explorer').getBoundingClientRect();
    const x = Math.max(0, Math.min(t.left, w.left) - 16), y = t.top + window.scrollY - 16;
    return { x, y, width: Math.max(t.right, w.right) + 16 - x, height: w.bottom + window.scrollY + 16 - y };
  });
  await h.page.screenshot({ path: out, clip, fullPage: true });
  const bad = [...h.record.external, ...h.record.consoleErrors, ...h.record.pageErrors];
  if (bad.length) throw new Error(`the page was not clean: ${bad.join('; ')}`);
  console.log(`docs-picture: wrote ${out}`);
} finally {
  await h.close();
}
