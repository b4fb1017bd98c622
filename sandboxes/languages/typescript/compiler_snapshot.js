// The TypeScript compiler, warm, as a V8 startup snapshot (sandboxes/toolchain_artifacts.py builds and uses it):
//   node --snapshot-blob BLOB --build-snapshot tsc.js TSC ARG... SOURCE
// run in a directory holding SOURCE loads the compiler of the command TSC (lib/tsc.js beside what it links to) and
// compiles SOURCE once with the command's own flags, which parses and binds the declaration files every compile
// reads (the default library, the --types): about three quarters of a small program's compile. Then
//   node --snapshot-blob BLOB -- ARG... SOURCE
// compiles as `TSC ARG... SOURCE` does, the same code on the same inputs: a declaration file's tree is reused only
// for the same file name, text and parse options, and only under the snapshot's own flags, so the output, the
// diagnostics and the exit status stay tsc's.
'use strict';
const fs = require('fs');
const path = require('path');
const v8 = require('v8');

const CLI_START = '// This file actually uses arguments passed on commandline and executes it';
const [command, ...warmArgs] = process.argv.slice(2);
const compiler = path.join(path.dirname(fs.realpathSync(command)), '..', 'lib', 'tsc.js');
const text = fs.readFileSync(compiler, 'utf8');
const cliStart = text.lastIndexOf(CLI_START);
if (cliStart < 0) throw new Error(`${compiler}: no command-line section`);
// A snapshot holds one script: the compiler's is evaluated here, as node would load it, less its command line.
const ts = new Function('require', '__filename', '__dirname', `${text.slice(0, cliStart)}\nreturn ts;`)(
  require, compiler, path.dirname(compiler));

const trees = new Map();
const parse = ts.createSourceFile;
let reuse = true;
ts.createSourceFile = function (fileName, sourceText, languageVersion, setParentNodes, scriptKind) {
  if (!reuse || !fileName.endsWith('.d.ts')) return parse.apply(this, arguments);
  const key = JSON.stringify([fileName, languageVersion, setParentNodes, scriptKind]);
  const known = trees.get(key);
  if (known !== undefined && known.text === sourceText) return known;
  const tree = parse.apply(this, arguments);
  trees.set(key, tree);
  return tree;
};

function compile(args) {
  // what tsc.js's command-line section does
  ts.Debug.loggingHost = { log: (_level, s) => ts.sys.write(`${s || ''}${ts.sys.newLine}`) };
  if (ts.sys.setBlocking) ts.sys.setBlocking();
  ts.executeCommandLine(ts.sys, ts.noop, args);
}

const exit = ts.sys.exit;
let warmStatus = 0;
ts.sys.exit = (status) => { warmStatus = status; };
compile(warmArgs);
ts.sys.exit = exit;
if (warmStatus) throw new Error(`the warm-up compile exited ${warmStatus}`);

v8.startupSnapshot.setDeserializeMainFunction(() => {
  // tsc's system remembers its working directory: the build's, in the snapshot
  ts.sys.getCurrentDirectory = ts.memoize(() => process.cwd());
  const args = process.argv.slice(1);
  if (JSON.stringify(args.slice(0, -1)) !== JSON.stringify(warmArgs.slice(0, -1))) {
    reuse = false;    // other flags may parse the same file otherwise
    trees.clear();
  }
  compile(args);
});
