// Checks the shipped TypeScript declarations against the real API: a usage file type-checks, and the members
// declared on `Lookback`, `Model`, `WindowModel` and `Weight` (and the module's exports) are exactly those the
// real objects have (their own keys and, for class instances, the public methods and getters of their classes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as apiModule from 'lookback';
import { TRAIN_TASKS } from '../../web/js/train-tasks.js';

const dts = fileURLToPath(new URL('../../web/js/api/index.d.ts', import.meta.url));
const usage = fileURLToPath(new URL('./types-usage.ts', import.meta.url));

function program() {
  return ts.createProgram([usage, dts], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: false, skipLibCheck: false, types: [],
  });
}

test('the usage file type-checks against index.d.ts', () => {
  const p = program();
  const diags = ts.getPreEmitDiagnostics(p).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(diags, []);
});

test('declared members and exports equal the real ones', async () => {
  const p = program();
  const checker = p.getTypeChecker();
  const file = p.getSourceFile(dts);
  const moduleSymbol = checker.getSymbolAtLocation(file);
  const exported = checker.getExportsOfModule(moduleSymbol);
  const values = exported.filter((s) => s.flags & ts.SymbolFlags.Value).map((s) => s.name).sort();
  assert.deepEqual(values, Object.keys(apiModule).sort(), 'module value exports');
  for (const [iface, object] of await realObjects()) {
    const sym = exported.find((s) => s.name === iface);
    assert.ok(sym, `${iface} is declared`);
    const declared = checker.getDeclaredTypeOfSymbol(sym).getProperties().map((s) => s.name).sort();
    assert.deepEqual(declared, membersOf(object), `${iface} members`);
  }
});

test('the declared unions are the one lists: TrainTask the task table, WeightStorage the core\'s storages', async () => {
  const p = program();
  const checker = p.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(p.getSourceFile(dts)));
  const members = (name) => checker.getDeclaredTypeOfSymbol(exported.find((s) => s.name === name)).types.map((t) => t.value).sort();
  assert.deepEqual(members('TrainTask'), Object.keys(TRAIN_TASKS).sort());
  const lb = await apiModule.loadLookback();
  assert.deepEqual(members('WeightStorage'), [...lb.modelFormats().weights].sort());
});

// Interface name -> a real object of that interface. Extended when the API grows.
async function realObjects() {
  const lb = await apiModule.loadLookback();
  return [['Lookback', lb], ['Model', await lb.loadModel('sprout')], ['WindowModel', await lb.loadModel('window')],
    ['Weight', lb.weight([1, 2, 3, 4], { K: 2, N: 2 })]];
}

// What a caller sees on an object: its own enumerable keys, and the methods and getters of its classes (not
// the constructor, nor names starting with "_", which are internal).
function membersOf(object) {
  const names = new Set(Object.keys(object));
  for (let p = Object.getPrototypeOf(object); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) if (name !== 'constructor' && !name.startsWith('_')) names.add(name);
  }
  return [...names].sort();
}
