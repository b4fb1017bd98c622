// The run's source when its tests are guarded (docs/guards.md): the JavaScript guard's loader, compiled by the
// language's own compile with the program's and the tests' files that the references name: two scripts, the tests
// type-checked against the program's globals, each compiled to a file of its own that the loader reads and removes
// before the program runs. The loader is JavaScript: tsc does not check it (@ts-nocheck), and it is a module (the
// export at the end), so that none of its names is a global that the program's could collide with.
// @ts-nocheck
/// <reference path="{program}" />
/// <reference path="{tests}" />
{loader}
export {};
