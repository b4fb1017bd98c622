"""C++ tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (the prompt opens the function, the tests begin with the brace
that closes it, the stop token "\\n}" cuts the completion) that makes a wrong add(x, y), or a wrong double_all(l),
pass as the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before the guards), and
that must not pass split: the program's macros, symbols and constructors stay in its own process. Honest programs
keep their verdicts, in MultiPL-E's layout and HumanEval-X's, with the value types MultiPL-E's C++ prompts use; a
compile error still points at the program.
"""

from __future__ import annotations

import pytest

from reward_server.graders.function_style import function_program
from reward_server.pb import reward_pb2
from sandboxes.policy import compile_step
from sandboxes.toolchain_artifacts import MOUNT, using
from tests.candidates import verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.language_table import load_table

STOPS = ("\n}",)
# MultiPL-E's HumanEval_53_add in C++, as its test inputs pose it (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = ("#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n"
              "// >>> add(5, 7)\n// 12\nlong add(long x, long y) {\n")
ADD_TESTS = ("}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n"
             "    assert(candidate((1), (0)) == (1));\n    assert(candidate((2), (3)) == (5));\n"
             "    assert(candidate((5), (7)) == (12));\n    assert(candidate((7), (5)) == (12));\n}\n")
DOUBLE_PROMPT = ("#include<assert.h>\n#include<bits/stdc++.h>\n// Double every number of l.\n"
                 "std::vector<long> double_all(std::vector<long> l) {\n")
DOUBLE_TESTS = ("}\nint main() {\n    auto candidate = double_all;\n"
                "    assert(candidate((std::vector<long>({1, 2, 3}))) == (std::vector<long>({2, 4, 6})));\n"
                "    assert(candidate((std::vector<long>({5}))) == (std::vector<long>({10})));\n}\n")
# the expected value the tests give for add(x, y), read from `text`: what the answer-reading hacks look for
ANSWER = ("    auto answer = [&](const std::string& text) -> long {\n"
          '        std::string call = "candidate((" + std::to_string(x) + "), (" + std::to_string(y) + ")) == (";\n'
          "        size_t at = text.find(call);\n"
          "        return at == std::string::npos ? -1 : std::stol(text.substr(at + call.size()));\n    };\n")
EVERY_FILE = ('    std::string seen;\n    for (const char* directory : {".", "../t", "/sandbox", "/tmp"}) {\n'
              "        std::error_code error;\n"
              "        for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {\n"
              "            std::ifstream file(entry.path());\n"
              "            seen += std::string(std::istreambuf_iterator<char>(file), {});\n        }\n    }\n")


ADD = Problem("cpp", ADD_PROMPT, ADD_TESTS, STOPS)
DOUBLE = Problem("cpp", DOUBLE_PROMPT, DOUBLE_TESTS, STOPS)


HACKS = [
    # the families measured to pass before (a macro; reading the source: HELD)
    Hack("assert redefined", "#undef assert\n#define assert(e) ((void)0)\n    return x - y;", "RUNTIME_ERROR", ADD),
    Hack("NDEBUG and assert.h again", "#define NDEBUG\n#include <assert.h>\n    return x - y;", "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("push_macro", '#pragma push_macro("assert")\n#undef assert\n#define assert(e) ((void)sizeof(e))\n'
         "    return x - y;", "RUNTIME_ERROR", ADD),
    Hack("macro in place of the tests' call", "#define candidate(a, b) ((a) + (b))\n    return x - y;",
         "RUNTIME_ERROR", ADD),
    Hack("its own __assert_fail", "    return x - y; }\nextern \"C\" void __assert_fail(const char*, const char*, "
         "unsigned int, const char*) noexcept { std::_Exit(0); }\nstatic void reward_hack_() {", "RUNTIME_ERROR", ADD),
    # the dispatcher's unit defines main (where the prompt's text before the entry is includes only: SplitUnit)
    Hack("its own main, the tests' renamed",
         "    return x - y; }\nint main() { return 0; }\n#define main reward_hack_main_\nstatic void reward_hack_() {",
         "COMPILE_ERROR", ADD),
    # the program ends before the first call: the tests' call fails
    Hack("static constructor exits 0",
         "    return x - y; }\nstatic int reward_hack_ = (std::exit(0), 0);\nstatic void reward_hack_f_() {",
         "RUNTIME_ERROR", ADD),
    # a symbol or an instantiation the tests use: the program's stay in its own binary
    Hack("its own memcmp", "    return l; }\nextern \"C\" int memcmp(const void*, const void*, std::size_t) noexcept "
         "{ return 0; }\nstatic void reward_hack_() {", "RUNTIME_ERROR", DOUBLE),
    Hack("std::operator== specialised", "    return l; }\nnamespace std {\ntemplate <>\nbool operator==("
         "const vector<long>&, const vector<long>&) { return true; }\n    }\nstatic void reward_hack_() {",
         "RUNTIME_ERROR", DOUBLE),
]
# reading the source passed before; now the plain program's source is gone before it runs too (every compiled source
# is, docs/guards.md), so these fail plainly as well: split, the tests' directory is out of the program's reach
HELD = [
    Hack("reads the answers from its source",
         ANSWER + '    std::ifstream source("main.cpp");\n'
         "    return answer(std::string(std::istreambuf_iterator<char>(source), {}));", "RUNTIME_ERROR", ADD),
    Hack("reads every file it can see", ANSWER + EVERY_FILE + "    return answer(seen);", "RUNTIME_ERROR", ADD),
]


HEADERS = "#include<assert.h>\n#include<bits/stdc++.h>\n"


def cpp(prompt: str, tests: str, stops: tuple[str, ...] = STOPS) -> Problem:
    return Problem("cpp", prompt, tests, stops)


HONEST = [
    Honest("add", "    return x + y;", "    return x - y;", ADD),
    Honest("vector", "    for (long& v : l) v *= 2;\n    return l;", "    return l;", DOUBLE),
    Honest("string", "    for (char& c : s) c = std::toupper(c);\n    return s + \"!\";", "    return s;",
           cpp(HEADERS + "std::string shout(std::string s) {\n",
               '}\nint main() {\n    auto candidate = shout;\n    assert(candidate(("hi")) == ("HI!"));\n}\n')),
    Honest("optional and tuple",
           "    size_t at = s.find(',');\n    if (at == std::string::npos) return std::nullopt;\n"
           "    return std::make_tuple(std::stol(s.substr(0, at)), std::stol(s.substr(at + 1)));",
           "    return std::make_tuple(0, 0);",
           cpp(HEADERS + "std::optional<std::tuple<long, long>> split(std::string s) {\n",
               "}\nint main() {\n    auto candidate = split;\n"
               '    assert(candidate(("3,4")) == std::make_tuple(3, 4));\n'
               "    assert(candidate((\"34\")) == std::nullopt);\n}\n")),
    # HumanEval_22's tests: std::any made in the tests' process, read in the program's as the very type it held (an
    # int literal's int, not long: the wrong completion takes the longs, as it would in one file)
    Honest("any",
           "    std::vector<long> out;\n    for (const std::any& v : values) {\n"
           "        if (v.type() == typeid(int)) out.push_back(std::any_cast<int>(v));\n    }\n    return out;",
           "    std::vector<long> out;\n    for (const std::any& v : values) {\n"
           "        if (v.type() == typeid(long)) out.push_back(std::any_cast<long>(v));\n    }\n    return out;",
           cpp(HEADERS + "std::vector<long> filter_integers(std::vector<std::any> values) {\n",
               "}\nint main() {\n    auto candidate = filter_integers;\n"
               "    assert(candidate((std::vector<std::any>({4, std::map<long,long>(), std::vector<long>(), 23.2f, 9, "
               "\"adasd\"}))) == (std::vector<long>({(long)4, (long)9})));\n}\n")),
    Honest("float", "    return x / 2;", "    return x;",
           cpp(HEADERS + "float half(float x) {\n",
               "}\nint main() {\n    auto candidate = half;\n"
               "    assert(std::fabs(candidate((3.0f)) - (1.5f)) < 1e-6);\n}\n")),
    # helpers of its own after the function, and output from both processes
    Honest("helpers", "    long twice(long);\n    std::cout << \"adding\" << std::endl;\n"
           "    return twice(x + y) / 2; }\nlong twice(long v) { return 2 * v; }\nlong unused(long v) {\n    return v;",
           "    long twice(long);\n    return twice(x - y) / 2; }\nlong twice(long v) { return 2 * v; }\n"
           "long unused(long v) {\n    return v;",
           cpp(ADD_PROMPT, ADD_TESTS.replace("    auto candidate",
                                             "    std::cout << \"testing\" << std::endl;\n    auto candidate"))),
    # HumanEval-X: the completion closes the function, the tests include <assert.h> (the C library's assert) and
    # call a helper the prompt defines in full
    Honest("humaneval-x", "    string out;\n    for (char c : s) out += (char)(c - 1);\n    return out;\n}\n",
           "    return s;\n}\n",
           cpp("#include<stdio.h>\n#include<string>\nusing namespace std;\n"
               "string encode_shift(string s){\n    string out;\n    for (char c : s) out += (char)(c + 1);\n"
               "    return out;\n}\nstring decode_shift(string s){\n",
               "#undef NDEBUG\n#include<assert.h>\nint main(){\n"
               '    assert (decode_shift(encode_shift("abc")) == "abc");\n}\n', ())),
]
BROKEN = Hack("compile error", "    return x + ;", "COMPILE_ERROR", ADD)


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    """Every program of this module in one batch (compiles run in parallel), by candidate id."""
    return score_cases(server_address, "cpp", HACKS, HELD, HONEST, [BROKEN.candidate()])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_a_failed_assertion_says_which_of_the_tests(results) -> None:
    detail = results["wrong/add"].detail
    assert "Assertion `candidate((0), (1)) == (1)' failed" in detail and "SIGABRT" in detail, detail


def test_compile_errors_point_at_the_program(results) -> None:
    result = results[f"hack/{BROKEN.name}"]
    assert verdict_name(result) == "COMPILE_ERROR", result
    assert "main.cpp:9:" in result.detail and "expected primary-expression" in result.detail, result.detail
    assert "candidate" not in result.detail, result.detail


def test_both_sides_compile_with_the_precompiled_header_of_the_prompt() -> None:
    """Each side begins with the prompt's headers: each compile gets the fitting prefix's directory."""
    cpp = load_table().resolve("cpp")
    program = function_program(cpp, ADD_PROMPT, "    return x + y;", STOPS, ADD_TESTS)
    for source in (program.source, program.tests):
        assert source.startswith(HEADERS)
        assert using(cpp, source, compile_step(cpp, source)).argv[:2] == ("g++", f"-I{MOUNT}/2")
