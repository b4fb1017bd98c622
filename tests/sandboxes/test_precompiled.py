"""Precompiled headers: a compile whose source starts with a table prefix loads the header built for it (GCC says so
with -H), and its verdicts and diagnostics are those of the compile without it. No timings are asserted."""

from __future__ import annotations

import dataclasses

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import Language, LanguageTable
from sandboxes.results import Limits, RunResult, RunStatus
from sandboxes.toolchain_artifacts import MOUNT
from tests.sandboxes.conftest import ready

LIMITS = Limits(timeout_s=10, memory_mb=512)
LCB = "#include <bits/stdc++.h>\nusing namespace std;\nint main() { int a, b; cin >> a >> b; cout << a + b << endl; }\n"
MULTIPL_E = ("#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long x, long y) {\n    return x + y;\n}\n"
             "int main() {\n    assert(add(2, 3) == 5);\n    assert(add(2, 3) == 6);\n}\n")
# an error inside the standard headers' templates: the diagnostics walk the include chain back to main.cpp
TEMPLATE_ERROR = "#include <bits/stdc++.h>\nstruct X { int a; };\nint main() { std::set<X> s; s.insert(X{1}); }\n"
TWICE = "#include<bits/stdc++.h>\n#include <bits/stdc++.h>\nint main() { std::vector<int> v{3}; return v[0] - 3; }\n"


@pytest.fixture(scope="module")
def cpp(table: LanguageTable, backend: ProcessBackend) -> Language:
    return ready(table, backend, "cpp")


async def compile_and_run(backend: ProcessBackend, language: Language, source: str,
                          stdin: bytes = b"") -> tuple[RunResult, RunResult | None]:
    async with backend.workspace(language, source, 0) as workspace:
        compiled = await workspace.compile(None)
        if compiled.status is not RunStatus.OK:
            return compiled, None
        return compiled, await workspace.run(stdin, LIMITS, None)


def showing_includes(cpp: Language) -> Language:
    """The same compile, asking GCC which headers it read (`! NAME.gch` for a precompiled one)."""
    return dataclasses.replace(cpp, compile=(*cpp.compile[:-1], "-H", cpp.compile[-1]))


@pytest.mark.parametrize(("source", "header"), [(LCB, "0/bits/stdc++.h.gch"), (MULTIPL_E, "2/assert.h.gch")])
@pytest.mark.asyncio
async def test_a_program_starting_with_a_prefix_loads_its_precompiled_header(backend, cpp, source, header) -> None:
    compiled, _ = await compile_and_run(backend, showing_includes(cpp), source)
    assert compiled.status is RunStatus.OK, compiled
    assert f"! {MOUNT}/{header}\n".encode() in compiled.stderr, compiled.stderr[:2000]


@pytest.mark.asyncio
async def test_a_program_starting_otherwise_compiles_without_one(backend, cpp) -> None:
    compiled, _ = await compile_and_run(backend, showing_includes(cpp), "// a comment first\n" + LCB)
    assert compiled.status is RunStatus.OK, compiled
    assert b".gch" not in compiled.stderr


@pytest.mark.parametrize("source", [LCB, MULTIPL_E, TEMPLATE_ERROR, TWICE])
@pytest.mark.asyncio
async def test_verdicts_and_diagnostics_are_those_of_the_compile_without_it(backend, cpp, source) -> None:
    plain = dataclasses.replace(cpp, precompiled_headers=None)
    with_header = await compile_and_run(backend, cpp, source, b"2 3\n")
    without = await compile_and_run(backend, plain, source, b"2 3\n")
    for got, expected in zip(with_header, without, strict=True):
        assert (got is None) == (expected is None)
        if got is not None:
            assert (got.status, got.exit_code, got.stdout, got.stderr) == (
                expected.status, expected.exit_code, expected.stdout, expected.stderr)
    assert with_header[0].status is (RunStatus.EXIT_NONZERO if source is TEMPLATE_ERROR else RunStatus.OK)
