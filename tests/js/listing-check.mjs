// Shared by the listing tests (tests/js/listings.test.mjs, tests/browser/listings.test.mjs): runs a listing of
// web/listings with Debian's python3 and numpy (installed by .scripts/setup.sh), and compares what Python printed
// with what the page computed: the same text around the numbers, and every number within half a unit of the last
// digit Python printed of the page's unrounded value. Not a test file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NUMBER } from '../../web/js/chapter/numpy-print.js';

// Debian's interpreter, where python3-numpy is installed (a python3 earlier on PATH may lack numpy)
export const PYTHON = '/usr/bin/python3';
export const LISTINGS = fileURLToPath(new URL('../../web/listings/', import.meta.url));
export const SHIM = fileURLToPath(new URL('../python/torch_shim', import.meta.url));
export const CHECK_MODULE = fileURLToPath(new URL('../python/check_attention_module.py', import.meta.url));

export const listingFiles = () => readdirSync(LISTINGS).filter((f) => f.endsWith('.py')).sort();
export const listingSource = (file) => readFileSync(`${LISTINGS}${file}`, 'utf8');
// the listings that import torch run on the numpy stand-in of tests/python/torch_shim
export const needsTorch = (file) => /^import torch$/m.test(listingSource(file));

// Runs a Python file (a listing by default) and returns its stdout; fails with its stderr.
export function python(file, { args = [], torch = false, cwd = LISTINGS } = {}) {
  const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...(torch ? { PYTHONPATH: SHIM } : {}) };
  const r = spawnSync(PYTHON, [file, ...args], { cwd, env, encoding: 'utf8', timeout: 120000 });
  if (r.error) throw new Error(`${PYTHON} ${file}: ${r.error.message} (npm test installs python3-numpy: .scripts/setup.sh)`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function runListingInPython(file) {
  const r = python(file, { torch: needsTorch(file) });
  assert.equal(r.code, 0, `${file} exits with 0 under ${PYTHON}:\n${r.stderr}`);
  return r.stdout;
}

const skeleton = (text) => text.replace(NUMBER, '#').replace(/[ \t]+/g, ' ').trim();

// Python's printed text against the page's { text, values }.
export function samePrinted(file, printed, page) {
  assert.equal(skeleton(page.text), skeleton(printed), `${file}: the page prints the same lines as Python around the numbers`);
  const numbers = printed.match(NUMBER) ?? [];
  assert.ok(numbers.length > 0, `${file}: Python printed numbers`);
  assert.equal(page.values.length, numbers.length, `${file}: as many numbers on the page as Python printed`);
  assert.equal((page.text.match(NUMBER) ?? []).length, numbers.length, `${file}: the page's text shows each of them`);
  numbers.forEach((s, i) => {
    const digits = (s.split('.')[1] ?? '').length;
    const off = Math.abs(Number(s) - page.values[i]);
    assert.ok(off <= 0.5 * 10 ** -digits + 1e-6,
      `${file}: number ${i + 1} Python printed ${s}; the page computed ${page.values[i]} (off by ${off})`);
  });
}
