// Writes web/docs/img/chapter.png, the README's picture of the chapter: the section "Where the model looks" in
// headless chromium on the chapter's own server, its explorer computed live by the core on the bundled Sprout.
// Run after a build (`node .scripts/docs-picture.mjs`); not part of the build. Not a test.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { open } from '../tests/browser/harness.mjs';
import { ready } from '../tests/browser/widget-helpers.mjs';

const out = fileURLToPath(new URL('../web/docs/img/chapter.png', import.meta.url));
mkdirSync(new URL('../web/docs/img/', import.meta.url), { recursive: true });

const h = await open();
try {
  await h.page.setViewportSize({ width: 1100, height: 900 });
  await h.page.goto(`${h.url}index.html#where-it-looks`);
  await ready(h.page, 'lookback-explorer');
  await h.page.evaluate(() => document.fonts.ready);
  const section = h.page.locator('#where-it-looks');
  const title = await section.locator('h2').boundingBox();
  const widget = await h.page.locator('lookback-explorer').boundingBox();
  const clip = { x: Math.max(0, Math.min(title.x, widget.x) - 16), y: Math.max(0, title.y - 16) };
  clip.width = Math.min(1100 - clip.x, Math.max(title.x + title.width, widget.x + widget.width) + 16 - clip.x);
  clip.height = widget.y + widget.height + 16 - clip.y;
  await h.page.screenshot({ path: out, clip, fullPage: true });
  const bad = [...h.record.external, ...h.record.consoleErrors, ...h.record.pageErrors];
  if (bad.length) throw new Error(`the page was not clean: ${bad.join('; ')}`);
  console.log(`docs-picture: wrote ${out}`);
} finally {
  await h.close();
}
