'use strict';
// The trusted wrapper a JavaScript checker runs under (the language table's `checker`): reward_server/graders/checkers.py
// fills it in and runs it as the checker's program, the checker's own source beside it in CHECKER_FILE.
//
// Node ends a source that does not parse, and an error nobody catches (a rejected promise too), with exit status 1:
// testlib's "wrong answer". Here the checker's source is compiled first (only that, given PARSE_ONLY alone, once before
// the checks), then loaded as the main module with the checker's arguments; if it does not compile, or an error
// escapes it, the error goes to stderr and the run ends with FAILED, which testlib's protocol never reads as the
// program's fault. Only the checker's own exits (process.exit, process.exitCode) end it with 1 or 2. Standard library
// only: this runs under the sandbox's node.

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const CHECKER_FILE = path.resolve('{checker_file}');
const PARSE_ONLY = '{parse_only}';
const FAILED = Number('{failed}');

function fail(error) {
  fs.writeSync(2, `${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(FAILED);
}

function main() {
  const source = fs.readFileSync(CHECKER_FILE, 'utf8');
  try {
    new vm.Script(Module.wrap(source), { filename: CHECKER_FILE });
  } catch (error) {
    fail(error);
  }
  const args = process.argv.slice(2);
  if (args.length === 1 && args[0] === PARSE_ONLY) return;
  process.argv = [process.argv[0], CHECKER_FILE, ...args];
  process.on('uncaughtException', fail);
  Module.runMain(CHECKER_FILE);
}

main();
