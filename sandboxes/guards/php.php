<?php
// The trusted loader that runs a function-style PHP program and then its tests (docs/guards.md).
//
// This file is the run's source file, so a program that reads its own source ($argv[0], __FILE__,
// get_included_files(), its directory) finds neither the tests nor the end-of-tests marker: both arrive on stdin
// (graders/guarded.prepare: a line "marker, prompt length, completion length", then prompt, completion and tests),
// read to the end before the program runs. Everything this file holds lives in the locals of a generator that no
// name reaches: the loop below holds it, and PHP hands out no other frame's locals (debug_backtrace and exception
// traces show arguments only, and this file's functions take none: no signal handler or destructor of the
// program's finds a frame whose arguments hold anything). The program runs at the top level, as in MultiPL-E's one
// file (its variables are globals); the tests then run in a closure's scope of their own, which takes their source
// as a captured local, emptied before their first statement; their line numbers are those of the assembled program
// (prompt + completion + "\n" + tests), and only in the process that started them, as the marker is written only
// there when they return (through a handle opened before the program ran). PHP itself runs without pcntl_fork (the
// language's run command): a child forked while the tests run could try answers against them for its parent.
// Standard library only: this runs under the sandbox's php.

foreach ((static function (): Generator {
    $request = stream_get_contents(STDIN);
    $newline = strpos($request, "\n");
    [$marker, $promptLength, $completionLength] = explode(' ', substr($request, 0, $newline));
    $programLength = (int) $promptLength + (int) $completionLength;
    $program = substr($request, $newline + 1, $programLength);
    $rest = substr($request, $newline + 1 + $programLength);
    if (preg_match('/\A\s*\}/', $rest, $brace)) {   // tests that open with the brace closing the prompt's function
        $program .= "\n" . $brace[0];
        $tests = str_repeat("\n", substr_count($program, "\n")) . substr($rest, strlen($brace[0]));
    } else {
        $tests = str_repeat("\n", substr_count($program, "\n") + 1) . $rest;
    }
    $proof = "$marker\n";
    $err = fopen('php://stderr', 'w');
    $pid = getmypid();
    yield '?>' . $program;
    if (getmypid() !== $pid) {
        return;     // a child the program forked: the tests run in the loader's own process alone
    }
    (static function () use ($tests): void {
        eval([$tests, $tests = null][0]);
    })();
    if (getmypid() === $pid) {
        fwrite($err, $proof);
    }
})() as $reward_guard_program) {
    eval($reward_guard_program);
}
