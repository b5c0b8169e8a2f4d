// `npm run screenshots`: photographs the chapter as a reader sees it, section by section, on a desktop
// (1280 × 900) and a phone (390 × 844, touch), each light and dark, into tests/browser/artifacts/screenshots/ (ignored by git), with
// sizes.json listing each page's height and each section's. Every section is brought on screen and its widgets
// given time to compute before the picture. Not a test: it checks nothing; look at the pictures.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { ARTIFACTS, open } from '../tests/browser/harness.mjs';

const OUT = `${ARTIFACTS}screenshots/`;
const VIEWS = [
  { name: 'desktop', options: { viewport: { width: 1280, height: 900 } } },
  { name: 'desktop-dark', options: { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' } },
  { name: 'phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 } },
  { name: 'phone-dark', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2,
    colorScheme: 'dark' } },
];

// `node .scripts/screenshots.mjs phone desktop-dark` takes only the views named
const chosen = process.argv.slice(2);
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const sizes = {};
for (const view of VIEWS.filter((v) => !chosen.length || chosen.includes(v.name))) {
  const b = await open(view.options);
  try {
    const { page } = b;
    page.setDefaultTimeout(120000);   // a loaded machine: loading and settling may take long; nothing here is timed
    await page.goto(b.url, { waitUntil: 'domcontentloaded' });
    await page.locator('#first-computation[data-status="done"]').waitFor({ timeout: 120000 });
    // the sticky contents bar would cover the top of each section's picture; the header's picture shows it
    const hideBar = () => page.addStyleTag({ content: 'nav.contents { visibility: hidden !important; }' });
    const parts = await page.evaluate(() => ['.chapter-header', ...[...document.querySelectorAll('main > section')].map((s) => `#${s.id}`),
      '.chapter-footer']);
    const heights = {};
    for (const [i, sel] of parts.entries()) {
      const part = page.locator(sel);
      await part.scrollIntoViewIfNeeded();
      // each widget computes once it is on screen: walk through the section so every one of them is seen
      const widgets = part.locator('[id^="w-"]:visible, lookback-training:visible, lookback-quiz:visible');
      for (let k = 0; k < await widgets.count(); k++) {
        const w = widgets.nth(k);
        await w.scrollIntoViewIfNeeded();
        await page.waitForFunction((el) => el.dataset.state === 'ready' || el.hasAttribute('data-error'), await w.elementHandle(),
          { timeout: 60000 }).catch(() => console.warn(`${view.name}: ${sel} widget ${k + 1} did not finish computing`));
      }
      await page.waitForTimeout(300);
      heights[sel] = Math.round((await part.boundingBox()).height);
      if (i === 1) await hideBar();
      const file = `${OUT}${view.name}-${String(i).padStart(2, '0')}-${sel.replace(/^[#.]/, '')}.png`;
      await part.screenshot({ path: file });
    }
    const page2 = await page.evaluate(() => ({ height: document.documentElement.scrollHeight,
      scrollWidth: document.documentElement.scrollWidth, width: innerWidth }));
    sizes[view.name] = { ...page2, parts: heights };
    console.log(`${view.name}: page ${page2.height} px tall, ${page2.scrollWidth} px wide in a ${page2.width} px window`);
    if (b.record.consoleErrors.length || b.record.pageErrors.length) console.warn(`${view.name}: errors`, b.record);
  } finally {
    await b.close();
  }
}
writeFileSync(`${OUT}sizes.json`, `${JSON.stringify(sizes, null, 2)}\n`);
console.log(`screenshots in ${OUT}`);
