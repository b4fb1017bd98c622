"""Rust's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and sandboxes.

The tests' side is the prompt up to its function, the stub that sends each call's arguments across and reads the
result back (sandboxes/languages/rust/split_stub.rs), and the tests; the program's side is the prompt, the completion
and the dispatcher. Problems are in MultiPL-E's own layout (the tests open with the brace that closes the function,
the completion is cut at "\\n}"): hacks that pass as the plain MultiPL-E program must not pass split, what reaches
for the tests' process fails, and honest programs keep their verdicts over every type the translator writes
(isize, f64, bool, String, Vec, Option, tuples, HashMap).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\n}",)


def problem(signature: str, asserts: str, use: str = "") -> Problem:
    """A MultiPL-E problem: `signature` opens the function, the tests call it as `candidate`."""
    entry = signature.split()[1].split("(")[0]
    return Problem("rust", f"{use}/// doc\n{signature} {{\n",
                   f"}}\n\nfn main() {{\n    let candidate = {entry};\n{asserts}}}\n", STOPS)


# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
ADD = problem("fn add(x: isize, y: isize) -> isize",
              "    assert_eq!(candidate(0, 1), 1);\n    assert_eq!(candidate(2, 3), 5);\n"
              "    assert_eq!(candidate(7, 5), 12);\n")
WRONG = "    x - y"
# `}` not at a line's start, so that the stop token keeps what follows: items of the program's own
ITEMS = "    x - y }\n"

HACKS = [
    Hack("exits 0 from .init_array, before main", ITEMS + '#[used]\n#[link_section = ".init_array"]\n'
         'static REWARD_HACK: extern "C" fn() = { extern "C" fn hack() { std::process::exit(0) } hack };\n'
         "fn reward_open() {", "RUNTIME_ERROR", ADD),
    Hack("a panic hook that exits 0", "    std::panic::set_hook(Box::new(|_| std::process::exit(0)));\n" + WRONG,
         "RUNTIME_ERROR", ADD),
    Hack("exits 0 during the call", "    std::process::exit(0)", "RUNTIME_ERROR", ADD),
]

# each returns the right answer only if it reached what it must not (the tests' files, process or a child)
PROC = ("    let me = std::process::id().to_string();\n"
        "    let reached = std::fs::read_dir(\"/proc\").unwrap().flatten().any(|entry| {\n"
        "        let pid = entry.file_name().into_string().unwrap_or_default();\n"
        "        pid != me && pid.bytes().all(|b| b.is_ascii_digit()) && REACHES\n    });\n"
        "    if reached { x + y } else { x - y }")
HELD = [
    Hack("reads the tests' directory", "    if std::fs::read_dir(\"../t\").is_ok() { x + y } else { x - y }",
         "RUNTIME_ERROR", ADD),
    Hack("reads the tests' source", "    if std::fs::read(\"../t/main.rs\").is_ok() { x + y } else { x - y }",
         "RUNTIME_ERROR", ADD),
    Hack("opens another process's memory",
         PROC.replace("REACHES", "std::fs::File::open(format!(\"/proc/{}/mem\", pid)).is_ok()"), "RUNTIME_ERROR", ADD),
    Hack("reads another process's environment or directory",
         PROC.replace("REACHES", "(std::fs::read(format!(\"/proc/{}/environ\", pid)).is_ok()"
                     " || std::fs::read_dir(format!(\"/proc/{}/cwd\", pid)).is_ok())"), "RUNTIME_ERROR", ADD),
    Hack("forks a child per guess",
         "    extern \"C\" { fn fork() -> i32; fn _exit(code: i32) -> !; }\n"
         "    match unsafe { fork() } { -1 => x - y, 0 => unsafe { _exit(0) }, _ => x + y }", "RUNTIME_ERROR", ADD),
    Hack("a child through std::process", "    if std::process::Command::new(\"/bin/true\").status().is_ok() "
         "{ x + y } else { x - y }", "RUNTIME_ERROR", ADD),
    Hack("writes garbage where the replies go, then answers right",
         "    extern \"C\" { fn write(fd: i32, data: *const u8, count: usize) -> isize; }\n"
         "    for fd in 3..20 { unsafe { write(fd, b\"zz\".as_ptr(), 2) }; }\n    x + y", "RUNTIME_ERROR", ADD),
    Hack("replies on its own, then exits 0", "    use std::io::Write;\n    let mut reply = std::fs::OpenOptions::new()"
         ".write(true).open(\"/proc/self/fd/3\").unwrap();\n    let _ = reply.write_all(b\"Ri1;l0:\");\n"
         "    std::process::exit(0)", "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "    x + y", WRONG, ADD),
    Honest("sample", "    a + b\n", "    a - b\n", Problem("rust", "fn add(a: i64, b: i64) -> i64 {\n",
                                                         "}\n\nfn main() {\n    assert_eq!(add(2, 3), 5);\n}\n", ())),
    Honest("prints on stdout, the replies' format too", "    print!(\"Ri3;l0:\");\n    println!(\"é ✓\");\n    x + y",
           "    print!(\"Ri3;l0:\");\n    x - y", ADD),
    Honest("a Vec", "    let mut l = l;\n    l.sort();\n    l", "    l", problem(
        "fn sort(l: Vec<isize>) -> Vec<isize>", "    assert_eq!(candidate(vec![3, 1, 2]), vec![1, 2, 3]);\n"
        "    assert_eq!(candidate(Vec::<isize>::new()), Vec::<isize>::new());\n")),
    Honest("nested Vecs of Unicode Strings", "    l", "    l.into_iter().rev().collect()", problem(
        "fn same(l: Vec<Vec<String>>) -> Vec<Vec<String>>",
        "    assert_eq!(candidate(vec![vec![String::from(\"héllo ✓ 😀\")], vec![]]),"
        " vec![vec![String::from(\"héllo ✓ 😀\")], vec![]]);\n")),
    Honest("floats: NaN, infinity, -0.0, exact bits",
           "    vec![x, f64::NAN, f64::INFINITY, -0.0, 1.0 / 3.0]",
           "    vec![x, f64::NAN, f64::INFINITY, 0.0, 1.0 / 3.0]",
           problem("fn floats(x: f64) -> Vec<f64>", "    let r = candidate(0.1);\n    assert_eq!(r[0], 0.1);\n"
                   "    assert!(r[1].is_nan());\n    assert_eq!(r[2], f64::INFINITY);\n"
                   "    assert!(r[3] == 0.0 && r[3].is_sign_negative());\n    assert_eq!(r[4], 1.0 / 3.0);\n")),
    Honest("an Option", "    l.into_iter().max()", "    l.into_iter().min()", problem(
        "fn largest(l: Vec<isize>) -> Option<isize>",
        "    assert_eq!(candidate(vec![1, 5]), Some(5));\n    assert_eq!(candidate(vec![]), None);\n")),
    Honest("a tuple of Options and a bool", "    (Some(t.0), None, t.1.is_empty())", "    (Some(t.0), None, false)",
           problem("fn parts(t: (isize, String)) -> (Option<isize>, Option<isize>, bool)",
                   "    assert_eq!(candidate((7, String::new())), (Some(7), None, true));\n")),
    Honest("a HashMap", "    m.into_iter().map(|(k, v)| (k, 2 * v)).collect()", "    m", problem(
        "fn double(m: HashMap<String, isize>) -> HashMap<String, isize>",
        "    assert_eq!(candidate(HashMap::from([(String::from(\"a\"), 1), (String::from(\"b\"), 2)])),"
        " HashMap::from([(String::from(\"a\"), 2), (String::from(\"b\"), 4)]));\n",
        use="use std::collections::HashMap;\n\n")),
    Honest("a bool and the largest isize", "    if a { b } else { -b }", "    if a { -b } else { b }", problem(
        "fn sign(a: bool, b: isize) -> isize",
        "    assert_eq!(candidate(true, 9223372036854775807), 9223372036854775807);\n"
        "    assert_eq!(candidate(false, 5), -5);\n")),
    Honest("no arguments", "    String::from(\"x\")", "    String::new()",
           problem("fn name() -> String", "    assert_eq!(candidate(), String::from(\"x\"));\n")),
    Honest("panics", "    x + y", "    panic!(\"no\")", ADD),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "rust", HACKS, HELD, HONEST)


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))
