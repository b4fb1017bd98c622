"""C++ tests in a process of their own (docs/guards.md, "Two processes"): the value types MultiPL-E's C++ prompts
declare cross intact both ways, and what only the split is open to (the tests' process within reach, the pipe
between them) never passes. Through a real server and real sandboxes; MultiPL-E's layout (tests/test_cpp_isolation.py).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.test_cpp_isolation import ADD, ANSWER, HEADERS, STOPS


def cpp(signature: str, asserts: str, entry: str) -> Problem:
    """A prompt declaring `signature` (after MultiPL-E's headers), its tests `asserts` (indented lines)."""
    return Problem("cpp", HEADERS + signature + " {\n",
                   f"}}\nint main() {{\n    auto candidate = {entry};\n{asserts}}}\n", STOPS)


# every other process's binary and readable memory (the tests' is one): what the answer-reading hack looks for
OTHERS = ("    std::string seen;\n    for (const auto& entry : std::filesystem::directory_iterator(\"/proc\")) {\n"
          "        std::string pid = entry.path().filename();\n"
          "        if (pid.find_first_not_of(\"0123456789\") != std::string::npos || pid == std::to_string(getpid())) "
          "continue;\n"
          "        std::ifstream exe(\"/proc/\" + pid + \"/exe\"), maps(\"/proc/\" + pid + \"/maps\");\n"
          "        std::ifstream mem(\"/proc/\" + pid + \"/mem\");\n"
          "        seen += std::string(std::istreambuf_iterator<char>(exe), {});\n"
          "        unsigned long start, end;\n        char perms[5], line[512];\n"
          "        while (maps.getline(line, sizeof line)) {\n"
          "            if (std::sscanf(line, \"%lx-%lx %4s\", &start, &end, perms) != 3 || perms[0] != 'r') continue;\n"
          "            std::string chunk(end - start, '\\0');\n"
          "            mem.clear();\n            mem.seekg(start);\n"
          "            if (mem.read(chunk.data(), chunk.size())) seen += chunk;\n        }\n    }\n")
# a reply in the wire format for every call: x + 1, whatever it is asked
OWN_DISPATCHER = ("    return x - y; }\n#include <unistd.h>\nint main() {\n    char byte;\n"
                  "    while (read(0, &byte, 1) == 1) if (byte == 'C') write(3, \"Ri1;l2:i0;i0;\", 13); }\n"
                  "#define main reward_hack_main_\nstatic void reward_hack_() {")

# what the prompt has before its entry is no longer includes alone: the dispatcher is compiled with each program, not
# in a unit of its own (SplitUnit), as it is where the entry is static
WITH_HELPER = cpp("long twice_(long v) { return 2 * v; }\nlong add(long x, long y)",
                  "    assert(candidate((2), (3)) == (5));\n    assert(candidate((7), (5)) == (12));\n", "add")
STATIC = cpp("static long add(long x, long y)",
             "    assert(candidate((2), (3)) == (5));\n    assert(candidate((7), (5)) == (12));\n", "add")

HACKS = [
    Hack("exits 0 during a call", "    std::exit(0);", "RUNTIME_ERROR", ADD),
    # the dispatcher's unit defines main: a program's own main cannot link with it
    Hack("a dispatcher of its own that answers 1", OWN_DISPATCHER, "COMPILE_ERROR", ADD),
    # with the dispatcher in the program's source, its main renamed away: the tests' side sees a reply it never asked
    Hack("a dispatcher of its own, no unit", OWN_DISPATCHER, "RUNTIME_ERROR", WITH_HELPER),
    Hack("a dispatcher of its own, a static entry", OWN_DISPATCHER, "RUNTIME_ERROR", STATIC),
]
# fail plainly too: split, they still fail
HELD = [
    # the program's compile is confined as its runs are: the tests' source cannot be read, not even to include it
    Hack("includes the tests' source", '#include "../t/main.cpp"\n    return x - y;', "COMPILE_ERROR", ADD),
    Hack("reads the tests' source", ANSWER + '    std::ifstream source("../t/main.cpp");\n'
         "    return answer(std::string(std::istreambuf_iterator<char>(source), {}));", "RUNTIME_ERROR", ADD),
    Hack("reads the other processes' binaries and memory", ANSWER + OTHERS + "    return answer(seen);",
         "RUNTIME_ERROR", ADD),
    Hack("forks a child per guess", "    for (long guess = 0; guess < 20; ++guess) {\n"
         "        pid_t child = fork();\n        if (child == 0) return guess;\n"
         "        if (child > 0) sleep(1);\n    }\n    return -1;", "RUNTIME_ERROR", ADD),
    Hack("garbage on the replies", '    write(3, "R?garbage", 9);\n    return x + y;', "RUNTIME_ERROR", ADD),
    Hack("a well-formed reply ahead of its own", '    write(3, "Ri1;l2:i0;i0;", 13);\n    return x + y;',
         "RUNTIME_ERROR", ADD),
    Hack("kills every process it can", "    kill(-1, SIGKILL);\n    return x - y;", "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("floats: NaN, infinities, -0.0, a float's own rounding", "    return x * 2;", "    return x;",
           cpp("float twice(float x)", "    assert(std::isnan(candidate(NAN)));\n"
               "    assert(candidate(INFINITY) == INFINITY);\n    assert(std::signbit(candidate(-0.0f)));\n"
               "    assert(candidate((1.1f)) == (2.2f));\n    assert(candidate(3.4e38f) == INFINITY);\n", "twice")),
    Honest("unicode and NUL in strings", '    return s + "\u00e9\u4e2d\U0001F600";', "    return s;",
           cpp("std::string more(std::string s)",
               '    assert(candidate(("h\u00e9\\nx")) == ("h\u00e9\\nx\u00e9\u4e2d\U0001F600"));\n'
               '    assert(candidate(std::string("a\\0b", 3)) == std::string("a\\0b\u00e9\u4e2d\U0001F600", 12));\n',
               "more")),
    Honest("a map", "    std::map<std::string,long> m;\n    for (char c : test) if (c != ' ') m[std::string(1, c)]++;\n"
           "    return m;", "    return {};",
           cpp("std::map<std::string,long> histogram(std::string test)",
               '    assert(candidate(("a b b a")) == (std::map<std::string,long>({{"a", 2}, {"b", 2}})));\n'
               "    assert(candidate((\"\")) == (std::map<std::string,long>()));\n", "histogram")),
    Honest("a tuple of optionals",
           "    std::optional<long> a, b;\n    for (long x : lst) {\n        if (x < 0 && (!a || x > *a)) a = x;\n"
           "        if (x > 0 && (!b || x < *b)) b = x;\n    }\n    return std::make_tuple(a, b);",
           "    return std::make_tuple(std::nullopt, std::nullopt);",
           cpp("std::tuple<std::optional<long>, std::optional<long>> largest_smallest_integers(std::vector<long> lst)",
               "    assert(candidate((std::vector<long>({2, 4, 1, 3, 5, 7}))) == "
               "std::make_tuple(std::optional<long>(std::nullopt), std::optional<long>(1)));\n",
               "largest_smallest_integers")),
    Honest("nested vectors and a vector of tuples",
           "    std::vector<std::tuple<long, long>> out;\n    for (long i = 0; i < (long)lst.size(); ++i)\n"
           "        for (long j = lst[i].size() - 1; j >= 0; --j) if (lst[i][j] == x) out.push_back({i, j});\n"
           "    return out;", "    return {};",
           cpp("std::vector<std::tuple<long, long>> get_row(std::vector<std::vector<long>> lst, long x)",
               "    assert(candidate((std::vector<std::vector<long>>({(std::vector<long>)std::vector<long>({1, 2}), "
               "(std::vector<long>)std::vector<long>({2, 1})})), (1)) == (std::vector<std::tuple<long, long>>("
               "{(std::tuple<long, long>)std::make_tuple(0, 0), (std::tuple<long, long>)std::make_tuple(1, 1)})));\n",
               "get_row")),
    Honest("a list it changes, by reference", "    l.push_back(7);\n    return l.size();", "    return l.size() + 1;",
           cpp("long grow(std::vector<long>& l)", "    std::vector<long> v = {1};\n    assert(candidate(v) == 2);\n"
               "    assert(v == (std::vector<long>({1, 7})));\n", "grow")),
    Honest("the exception it throws", "    return l.at(i);", "    return 0;",
           cpp("long at(std::vector<long> l, long i)", "    bool threw = false;\n"
               "    try { candidate({1}, 5); } catch (const std::out_of_range&) { threw = true; }\n"
               "    assert(threw);\n    assert(candidate({1, 2}, 1) == 2);\n", "at")),
    Honest("what it prints", '    std::cout << "adding" << std::endl;\n    printf("x\\n");\n    return x + y;',
           "    return x - y;", ADD),
    Honest("a helper of the prompt's before the entry (no unit)", "    return twice_(x) / 2 + y;", "    return x;",
           WITH_HELPER),
    Honest("a static entry (no unit)", "    return x + y;", "    return x;", STATIC),
    Honest("no arguments, a set in a pair, vector<bool>",
           "    return {2, {1, 3}};", "    return {2, {}};",
           cpp("std::pair<long, std::set<long>> pair_of()",
               "    assert(candidate() == std::make_pair(2L, std::set<long>({1, 3})));\n", "pair_of")),
]
# MultiPL-E's translation of a Union: a C++ union of the prompt's, which holds no record of its member
UNION = function_style("union", "cpp", HEADERS + "union Union_std_vector_std_string__long{\n"
                       "    std::vector<std::string> f0;\n    long f1;    Union_std_vector_std_string__long("
                       "std::vector<std::string> _f0) : f0(_f0) {}\n    Union_std_vector_std_string__long(long _f1) : "
                       "f1(_f1) {}\n    ~Union_std_vector_std_string__long() {}\n    bool operator==(long f) {\n"
                       "        return f1 == f ;\n    }\n};\nUnion_std_vector_std_string__long split_words(std::string "
                       "txt) {\n", "    return (long)txt.size();",
                       "}\nint main() {\n    auto candidate = split_words;\n"
                       "    assert(candidate((\"abc\")) == 3);\n}\n",
                       stop_tokens=STOPS)


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "cpp", HACKS, HELD, HONEST, [UNION])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


def test_a_value_no_standard_type_holds_is_not_the_programs_fault(results) -> None:
    assert verdict_name(results["union"]) == "INFRA_UNSUPPORTED_TEST", results["union"]
