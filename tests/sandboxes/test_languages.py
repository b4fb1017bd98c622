"""The language table resolves every benchmark key, and every ready language compiles and runs for real."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sandboxes.backends.process.backend import ProcessBackend
from sandboxes.languages import LanguageTable, UnknownLanguage, language_from_entry
from sandboxes.languages.samples import load_samples
from sandboxes.results import Limits, RunStatus
from tests.language_table import load_table
from tests.toolchains import require_ready

MULTIPL_E = ["py", "cpp", "java", "js", "ts", "rs", "go", "lua", "r", "jl", "ml", "rkt", "sh", "cs", "d", "pl", "php",
             "rb", "scala", "swift", "hs", "elixir", "clj", "adb"]
MULTI_LCB = ["python", "c++", "java", "c#", "go", "javascript", "typescript", "rust", "ruby", "php", "kotlin", "scala"]
AGNOSTICS = ["lua", "julia", "r", "ocaml", "fortran"]
TABLE_KEYS = [language.key for language in load_table()]
GREETERS = {key: samples.greeter.program for key, samples in load_samples().items()}


def test_every_benchmark_key_resolves(table: LanguageTable) -> None:
    keys = {name: table.resolve(name).key for name in MULTIPL_E + MULTI_LCB + AGNOSTICS}
    assert set(keys.values()) <= set(TABLE_KEYS)
    assert keys["py"] == keys["python"] == "python"
    assert keys["c++"] == keys["cpp"] == "cpp"
    assert keys["c#"] == keys["cs"] == "csharp"
    assert keys["ml"] == keys["ocaml"] == "ocaml"
    assert keys["jl"] == keys["julia"] == "julia"
    assert keys["sh"] == "bash" and keys["pl"] == "perl" and keys["rkt"] == "racket" and keys["hs"] == "haskell"
    assert keys["elixir"] == table.resolve("ex").key == "elixir" and keys["clj"] == "clojure" and keys["adb"] == "ada"


def test_every_table_language_has_a_greeter() -> None:
    assert set(GREETERS) == set(TABLE_KEYS)


def test_resolution_is_case_insensitive_and_unknown_names_raise(table: LanguageTable) -> None:
    assert table.resolve("  Python ").key == "python"
    assert table.resolve("C#").key == "csharp"
    with pytest.raises(UnknownLanguage):
        table.resolve("cobol")
    with pytest.raises(KeyError):
        table.resolve("")


def test_java_file_is_named_after_the_public_class_and_runs_the_main_class(table: LanguageTable) -> None:
    java = table.resolve("java")
    two_classes = GREETERS["java"]
    assert java.source_name(two_classes) == "Main.java"
    assert java.entry_name(two_classes) == "Main"
    multipl_e = ("// public class Fake {\nclass Problem {\n  static class Node {}\n"
                 '  public static void main(String[] a) {\n    String s = "public class X {";\n  }\n}\n')
    assert java.source_name(multipl_e) == "Problem.java"
    assert java.entry_name(multipl_e) == "Problem"
    assert java.render(java.run, multipl_e, 256)[-1] == "Problem"
    assert "-XX:MaxRAM=256m" in java.render(java.run, multipl_e, 256)


def test_scala_entry_is_the_object_with_main(table: LanguageTable) -> None:
    scala = table.resolve("scala")
    assert scala.source_name(GREETERS["scala"]) == "Solution.scala"
    assert scala.entry_name("object Foo extends App { println(1) }") == "Foo"
    python = table.resolve("python")
    assert python.source_name("class Main: pass") == "main.py"


def test_duplicate_names_are_refused() -> None:
    a, b = (language_from_entry(key, {"source_file": key, "run": [key], "version": [key], "packages": [],
                                      "aliases": [alias]}) for key, alias in (("a", "x"), ("b", "X")))
    with pytest.raises(ValueError, match="used by a and b"):
        LanguageTable([a, b])


@pytest.mark.parametrize("key", TABLE_KEYS)
@pytest.mark.asyncio
async def test_language_compiles_runs_and_fails(limits_backend: ProcessBackend, table: LanguageTable,
                                                key: str) -> None:
    """On the default backend, and without cgroups: every runtime starts under RLIMIT_DATA at its memory limit."""
    backend = limits_backend
    language = table.resolve(key)
    info = backend.describe(language)
    if not info.ready:
        assert info.reason and not info.sandbox_id
    require_ready(key, info.ready, info.reason)
    assert info.version and info.sandbox_id.startswith(f"process:{key}:")
    assert backend.describe(language) is info  # cached
    limits = Limits(timeout_s=language.timeout_s, memory_mb=language.memory_mb)
    async with backend.workspace(language, GREETERS[key], 0) as workspace:
        compiled = await workspace.compile(None)
        if language.compiled:
            assert compiled is not None and compiled.status is RunStatus.OK, compiled
        else:
            assert compiled is None
        ok = await workspace.run(b"world\n", limits, None)
        assert (ok.status, ok.stdout.strip()) == (RunStatus.OK, b"hello world"), ok
        failed = await workspace.run(b"boom\n", limits, None)
        assert failed.status is RunStatus.EXIT_NONZERO, failed
        assert b"hello" not in failed.stdout


@pytest.mark.asyncio
async def test_multipl_e_go_test_files_run_their_tests(backend: ProcessBackend, table: LanguageTable) -> None:
    go = table.resolve("go")
    require_ready("go", backend.describe(go).ready, backend.describe(go).reason)
    template = """package add_test

import (
    "testing"
    "fmt"
)

func add(a int, b int) int { return a + b }

func TestAdd(t *testing.T) {
    if fmt.Sprintf("%v", add(1, 2)) != fmt.Sprintf("%v", EXPECTED) {
        t.Errorf("wrong")
    }
}
"""
    limits = Limits(timeout_s=go.timeout_s, memory_mb=go.memory_mb)
    for expected, status in (("3", RunStatus.OK), ("4", RunStatus.EXIT_NONZERO)):
        async with backend.workspace(go, template.replace("EXPECTED", expected), 1) as workspace:
            compiled = await workspace.compile(None)
            assert compiled is not None and compiled.status is RunStatus.OK, compiled
            result = await workspace.run(b"", limits, None)
            assert result.status is status, result


def test_languages_command_says_why_a_toolchain_debian_lacks_is_not_ready(server_address: str) -> None:
    """The process backend never has julia (setup.sh installs Debian packages only): the row says why."""
    done = subprocess.run([sys.executable, "-m", "reward_server", "languages", "--server", server_address],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[2:]}
    assert " no " in rows["julia"], rows["julia"]
    assert "not in Debian 12: only its image has it, the official julia-1.10.5-linux-x86_64.tar.gz" in rows["julia"]
    assert "`reward-server images build julia` fetches from julialang-s3.julialang.org" in rows["julia"]
    assert " yes " in rows["haskell"] and rows["haskell"].split()[-1].startswith("process:haskell:")
