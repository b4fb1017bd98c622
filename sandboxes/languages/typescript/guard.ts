// The run's source when its tests are guarded (docs/guards.md): the JavaScript guard's loader, run as a function of
// its own, and the program's and the tests' files for the language's own compile (the references: two scripts, the
// tests type-checked against the program's globals, each compiled to a file of its own that the loader reads and
// removes before the program runs). The loader reaches tsc as a string, which it neither checks nor prints again
// (as code it cost a compile about a fifth more); the file is a module (the export at the end), so that none of its
// names is a global that the program's could collide with.
// @ts-nocheck
/// <reference path="{program}" />
/// <reference path="{tests}" />
require('node:vm').compileFunction({loader}, ['require', '__filename', '__dirname'], { filename: __filename })(
  require, __filename, __dirname);
export {};
