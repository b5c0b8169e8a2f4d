// The browser benchmark's "watch a head learn" row: in the chapter (headless chromium), the training widget's
// default run (induction task) from the press of Train until the best head's induction score passes 0.5 (from
// below 0.1 at step 0) with the repeat's held-out loss at least 2 nats below its value at step 0; also where the
// plateau ended (the last snapshot with every induction score below 0.1). Each run is a fresh page and worker,
// given up to 90 s; the median is over the runs. Imported by browser.bench.mjs; alone: node tests/bench/learn.mjs [--runs N]
// Not a test: it reports, never asserts.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchBench } from './bench-browser.mjs';

const LIMIT_MS = 90000;
const done = (r) => r.start < 0.1 && r.ind > 0.5 && r.loss0 - r.loss >= 2;

async function oneRun(context, url) {
  const p = await context.newPage();
  try {
    await p.goto(`${url}#watch-learn`);
    const w = p.locator('lookback-training');
    await w.scrollIntoViewIfNeeded();
    await p.waitForFunction(() => document.querySelector('lookback-training')?.dataset.state === 'ready', null, { timeout: 60000 });
    const t0 = Date.now();
    await w.locator('button[name=play]').click();
    let r = null;
    while (Date.now() - t0 < LIMIT_MS) {
      r = await w.evaluate((el) => {
        const s = el.snapshots;
        const bestInd = (x) => Math.max(...x.induction);
        let plateau = s[0];
        for (const x of s) if (bestInd(x) < 0.1) plateau = x;
        const last = s.at(-1);
        return { step: last.step, start: bestInd(s[0]), ind: bestInd(last), loss0: s[0].task, loss: last.task,
          plateauLoss: plateau.task, plateauStep: plateau.step, trainSeconds: last.seconds };
      });
      r.seconds = (Date.now() - t0) / 1000;
      if (done(r)) break;
      await p.waitForTimeout(250);
    }
    return r;
  } finally {
    await p.close();
  }
}

/** Runs the default training `runs` times; returns the runs, the median seconds (Infinity for a run that missed) and report lines. */
export async function measureLearning(context, url, runs = 3) {
  const learn = [];
  const load0 = os.loadavg().map((x) => x.toFixed(2));
  for (let i = 0; i < runs; i++) learn.push(await oneRun(context, url));
  const load1 = os.loadavg().map((x) => x.toFixed(2));
  const secs = learn.map((r) => (done(r) ? r.seconds : Infinity)).sort((a, b) => a - b);
  const median = secs[Math.floor((secs.length - 1) / 2 + 0.5)];
  const lines = [`${'watch a head learn: train pressed to induction > 0.5, loss -2 (s)'.padEnd(58)} ${String(runs).padStart(4)} `
    + `${median.toFixed(1).padStart(7)}${''.padStart(16)}  < 60 ${median < 60 ? 'met' : 'MISSED'} (median)`];
  for (const r of learn) {
    lines.push(`${''.padEnd(60)}${r.seconds.toFixed(1)} s, step ${r.step}: best induction ${r.start.toFixed(2)} -> ${r.ind.toFixed(2)}; `
      + `repeat ${r.loss0.toFixed(2)} -> ${r.loss.toFixed(2)} nats (plateau ${r.plateauLoss.toFixed(2)} at step ${r.plateauStep})${done(r) ? '' : ' MISSED'}`);
  }
  lines.push(`${''.padEnd(60)}load average at start ${load0.join(' ')}, at end ${load1.join(' ')} (${os.cpus().length} cores)`);
  return { learn, median, lines };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;
  const { context, url, close } = await launchBench();
  const { lines } = await measureLearning(context, url, runs);
  console.log(lines.join('\n'));
  await close();
}
