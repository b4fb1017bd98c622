'use strict';
// The trusted loader that runs a function-style JavaScript program and then its tests (docs/guards.md).
//
// This file is the run's source file, so a program that reads its own source (process.argv[1], require.main) finds
// neither the tests nor the end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker,
// prompt length, completion length", then prompt, completion and tests), read to the end before the program runs.
// TypeScript's runs compile it, as a string (sandboxes/languages/typescript/guard.ts), with the program and the tests,
// each to a file of its own that stdin names: they are read and removed before the program runs.
// Before the program runs, too: the tests are compiled, and everything they and this file use afterwards is taken
// from Node's own modules: the assert module as a frozen copy, every module the tests require, the write that
// proves they ended. The program then runs as a script of its own (its top-level functions are globals, as the tests
// name them), under a filename that does not exist; the tests run as a strict function of their own, whose `require`
// is a parameter the program cannot rebind and whose frames the program cannot reach (a strict caller is not handed
// out by `fn.caller`, nor by a stack trace's call sites). The marker goes to stderr only when the tests return.
// Standard library only: this runs under the sandbox's node.

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');

const apply = Reflect.apply;
const defineProperty = Object.defineProperty;
const freeze = Object.freeze;
const ownKeys = Reflect.ownKeys;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const writeSync = fs.writeSync;
const FILENAME = path.join(__dirname, 'program.js');   // what stack traces call the program and its tests: no file
const TESTS_REQUIRE = /\brequire\(\s*(['"])([^'"]+)\1\s*\)/g;

/** (marker, program, tests, the tests' first line) from what graders/guarded.prepare wrote: a line "marker, prompt
 * length, completion length" (in UTF-8 bytes), then prompt, completion and tests; or, where a compile made the program
 * and the tests JavaScript (TypeScript's), the line "marker, program file, tests file", files beside this one that are
 * read and removed here, before the program runs. */
function readRequest(data) {
  const newline = data.indexOf(10);
  const [marker, first, second] = data.subarray(0, newline).toString('utf8').split(' ');
  if (!/^[0-9]+$/.test(first)) {
    const [program, tests] = [first, second].map(taken);
    return [marker, program, tests, program.split('\n').length];
  }
  const body = data.subarray(newline + 1);
  const programLength = Number(first) + Number(second);
  const program = body.subarray(0, programLength).toString('utf8');
  return [marker, program, body.subarray(programLength).toString('utf8'), program.split('\n').length];
}

/** The text of the file `name` beside this one, which is gone once read. */
function taken(name) {
  const file = path.join(__dirname, name);
  const text = fs.readFileSync(file, 'utf8');
  fs.unlinkSync(file);
  return text;
}

/** A copy of a module's exports as they are now: a callable module (assert) becomes a function of its own that calls
 * it, and every property holding properties of its own (assert.strict) a copy too; all frozen, so that what the
 * program does to the module's object or its functions' properties changes nothing the tests call. */
function pristine(value, copies = new Map()) {
  if ((typeof value !== 'function' && typeof value !== 'object') || value === null) return value;
  if (copies.has(value)) return copies.get(value);
  const keys = ownKeys(value).filter((key) => getOwnPropertyDescriptor(value, key).enumerable);
  if (typeof value === 'function' && keys.length === 0) return value;
  const copy = typeof value === 'function'
    ? function () { return apply(value, this, arguments); }
    : {};
  copies.set(value, copy);
  for (const key of keys) {
    defineProperty(copy, key, { value: pristine(value[key], copies), enumerable: true });
  }
  return freeze(copy);
}

/** The tests' `require`: the modules they name, loaded and copied before the program ran. */
function testsRequire(tests) {
  const load = createRequire(__filename);
  const modules = new Map();
  for (const [, , id] of tests.matchAll(TESTS_REQUIRE)) {
    try {
      modules.set(id, pristine(load(id)));
    } catch {
      // a module that does not load is the tests' own error, when they require it
    }
  }
  const get = Map.prototype.get.bind(modules);
  const has = Map.prototype.has.bind(modules);
  return function require(id) {
    if (!has(id)) throw new Error(`Cannot find module '${id}' (the tests may require what they name)`);
    return get(id);
  };
}

/** Globals the program finds as a CommonJS module's: its own `require`, `module`, `exports`, `__filename`,
 * `__dirname` (writable: rebinding them is the program's business only). */
function programGlobals() {
  const require = createRequire(FILENAME);
  const module = { exports: {}, filename: FILENAME, id: '.', loaded: false, require };
  const names = { require, module, exports: module.exports, __filename: FILENAME, __dirname: path.dirname(FILENAME) };
  for (const name of Object.keys(names)) {
    defineProperty(globalThis, name, { value: names[name], writable: true, configurable: true });
  }
}

function main() {
  const [marker, program, tests, testsLine] = readRequest(fs.readFileSync(0));
  const proof = Buffer.from(`${marker}\n`);
  const script = new vm.Script(program, { filename: FILENAME });
  const runTests = vm.compileFunction(`'use strict';${tests}`, ['require', 'module', 'exports'],
                                     { filename: FILENAME, lineOffset: testsLine });
  const require = testsRequire(tests);
  programGlobals();
  script.runInThisContext();
  runTests(require, freeze({ exports: {} }), {});
  writeSync(2, proof);
}

main();
