"""A split's tests' side is built once per problem on the docker backend too (sandboxes/split/builds.py): the first
workspace of a problem builds it in its container, the runner packs it at once and the host keeps it; a later
workspace of the problem, in another container, gets that build laid out and compiles only its program. A tests' side
that does not compile is not kept; a program can alter nothing of what is kept; a group's verdicts are those of a
build per candidate; a run whose container dies goes again in a fresh one with the kept build laid out again."""

from __future__ import annotations

import asyncio
import dataclasses

import docker
import pytest

from reward_server.graders.code import CodeJob
from reward_server.verdicts import Verdict
from sandboxes.backend import SplitTestsDoNotCompile
from sandboxes.backends.docker.backend import LABEL, LABEL_LANGUAGE, DockerBackend
from sandboxes.backends.docker.runtime import WORKDIR
from sandboxes.languages import Language, LanguageTable
from sandboxes.languages.samples import load_samples
from sandboxes.results import RunStatus
from sandboxes.sandbox_deaths import SANDBOX_FAILED
from tests.docker.conftest import grade, grader_for
from tests.sandbox_killers import cmdline, descendants

# a compile that leaves what it was built from and a word of its own (a fresh one each time it runs)
NONCE = ("sh", "-c", 'test "$(cat "$0")" != broken && cp "$0" built-from && cat /proc/sys/kernel/random/uuid > nonce',
         "{source}")
# the dispatcher's own unit: compiled where the program's side is, leaving an object of its own word
UNIT_NONCE = ("sh", "-c", 'cp "$0" unit-from && cat /proc/sys/kernel/random/uuid > unit.o', "{source}")
# the program's compile says what it was given to link
LINKING = ("sh", "-c", 'cp "$0" built-from && echo "$@" > linked && cat /proc/sys/kernel/random/uuid > nonce',
           "{source}")
SEEN = {"tests": "t/built-from t/nonce", "owner": "t/nonce", "unit": "p/unit.o", "unit-from": "p/unit-from",
        "program": "p/built-from p/nonce", "linked": "p/linked"}


def nonce_language(table: LanguageTable) -> Language:
    """C++ whose compiles of each side, and of the unit, leave a word of their own."""
    lang = table.resolve("cpp")
    assert lang.split is not None and lang.split.unit is not None
    unit = dataclasses.replace(lang.split.unit, compile=UNIT_NONCE, objects=("unit.*",), link=("unit.o",))
    return dataclasses.replace(lang, compile=LINKING, split=dataclasses.replace(lang.split, unit=unit))


def seen_in(client: docker.DockerClient, container_id: str) -> dict[str, str]:
    """What the workspace's container holds (read by the engine, beside the runner): each of SEEN's files, and the
    owner, mode and modification time of the tests' build's word."""
    container = client.containers.get(container_id)
    seen = {}
    for what, paths in SEEN.items():
        command = f"stat -c '%u %a %Y' {paths}" if what == "owner" else f"cat {paths}"
        done = container.exec_run(["sh", "-c", command], workdir=WORKDIR, user="65534:65534")
        seen[what] = done.output.decode() if done.exit_code == 0 else ""
    return seen


async def compiled(backend: DockerBackend, client: docker.DockerClient, lang: Language, program: str,
                   tests: str) -> dict[str, str]:
    assert lang.split is not None and lang.split.unit is not None
    async with backend.workspace(lang, program, 0, files={lang.split.unit.source_file: f"unit of {tests}"},
                                 tests=tests) as workspace:
        result = await workspace.compile(None)
        assert result is not None and result.status is RunStatus.OK, result
        assert workspace.box is not None
        return await asyncio.to_thread(seen_in, client, workspace.box.container_id)


@pytest.mark.asyncio
async def test_a_problem_s_tests_are_built_once_and_laid_out_in_each_later_container(
        start_backend, table, docker_client) -> None:
    backend = await start_backend(warm=0)       # a container of its own for each workspace, removed after it
    lang = nonce_language(table)
    first = await compiled(backend, docker_client, lang, "program one", "tests of problem A")
    second = await compiled(backend, docker_client, lang, "program two", "tests of problem A")
    other = await compiled(backend, docker_client, lang, "program one", "tests of problem B")
    assert first["tests"].startswith("tests of problem A") and len(first["tests"]) > len("tests of problem A") + 30
    # the second's tests' side and unit are the first's build, not compiled again: the same words, the same times
    assert second["tests"] == first["tests"] and second["owner"] == first["owner"]
    assert second["unit"] == first["unit"] and first["unit-from"] == "unit of tests of problem A"
    assert second["unit-from"] == ""
    assert first["owner"].split()[:2] == ["65534", "644"]       # the sandbox user's, as its build left it
    # each program compiled on its own, linked with the unit's object
    assert first["program"].startswith("program one") and second["program"].startswith("program two")
    assert first["linked"].split() == second["linked"].split() == ["unit.o"]
    # another problem builds its own
    assert other["tests"].startswith("tests of problem B") and other["unit"] != first["unit"]
    assert other["unit-from"] == "unit of tests of problem B"
    assert len(backend.tests_builds) == 2


@pytest.mark.asyncio
async def test_tests_that_do_not_compile_are_not_kept(start_backend, table) -> None:
    backend = await start_backend(warm=1, warm_languages=["cpp"])
    lang = dataclasses.replace(table.resolve("cpp"), compile=NONCE)
    for _ in range(2):      # not kept: the next workspace of the problem builds again, and fails the same way
        with pytest.raises(SplitTestsDoNotCompile, match="the tests' side or the dispatcher's unit does not compile"):
            async with backend.workspace(lang, "program", 0, tests="broken") as workspace:
                await workspace.compile(None)
    assert len(backend.tests_builds) == 0
    async with backend.workspace(lang, "program", 0, tests="tests") as workspace:
        compiled = await workspace.compile(None)
        assert compiled is not None and compiled.status is RunStatus.OK, compiled
    assert len(backend.tests_builds) == 1


def group(key: str, compile_error: str) -> dict[str, tuple[CodeJob, Verdict]]:
    """A GRPO group of the language's sample problem: right completions, wrong ones, one that does not compile."""
    fn = load_samples()[key].function
    completions = {"right": fn.completion, "right-again": "  " + fn.completion, "wrong": fn.wrong,
                   "wrong-again": "  " + fn.wrong, "compile-error": compile_error}
    verdicts = {"right": Verdict.PASS, "wrong": Verdict.RUNTIME_ERROR, "compile-error": Verdict.COMPILE_ERROR}
    return {f"{key}/{name}": (CodeJob(key, completion, prompt=fn.prompt, tests=fn.tests),
                              verdicts[name.removesuffix("-again")]) for name, completion in completions.items()}


@pytest.mark.asyncio
async def test_a_group_s_verdicts_with_its_tests_built_once(start_backend, table) -> None:
    backend = await start_backend(warm=2, warm_languages=["cpp", "java"])
    grader = grader_for(backend, table, slots=4)
    jobs = {**group("cpp", "    return a +;\n}\n"), **group("java", "        return a +;\n")}
    cpp = load_samples()["cpp"].function      # tests that do not compile: no program's fault, and never kept
    jobs |= {f"cpp/unbuilt-{n}": (CodeJob("cpp", cpp.completion, prompt=cpp.prompt, tests="int main() { nope(); }\n"),
                                  Verdict.INFRA_UNSUPPORTED_TEST) for n in range(2)}
    graded = await asyncio.gather(*(grade(grader, job) for job, _ in jobs.values()))
    verdicts = {name: g.verdict for name, g in zip(jobs, graded, strict=True)}
    assert verdicts == {name: verdict for name, (_, verdict) in jobs.items()}, \
        {name: g.detail[-300:] for name, g in zip(jobs, graded, strict=True)}
    assert len(backend.tests_builds) == 2         # one build per problem: C++'s and Java's


# C++'s sample whose program, once it runs, writes over the unit's object in its own directory (and says so by its
# sum): a build kept after the program ran would hand the next program that garbage to link
POISONER = ("    extern int poisoned;\n    return a + b + poisoned;\n}\n#include <cstdio>\n"
            'int poisoned = [] { std::FILE* f = std::fopen("/sandbox/p/dispatcher.o", "w");\n'
            '    return f != nullptr && std::fputs("garbage", f) >= 0 && std::fclose(f) == 0 ? 0 : 1; }();\n')


@pytest.mark.asyncio
async def test_a_program_alters_nothing_of_what_is_kept(start_backend, table) -> None:
    backend = await start_backend(warm=1, warm_languages=["cpp"])   # one container, reused by the next program
    grader = grader_for(backend, table)
    fn = load_samples()["cpp"].function
    poisoner = await grade(grader, CodeJob("cpp", POISONER, prompt=fn.prompt, tests=fn.tests))
    assert poisoner.verdict is Verdict.PASS, poisoner.detail      # it did overwrite the object it linked
    honest = await grade(grader, CodeJob("cpp", fn.completion, prompt=fn.prompt, tests=fn.tests))
    assert honest.verdict is Verdict.PASS, honest.detail
    assert len(backend.tests_builds) == 1


# C++'s sample whose program takes its time: its container is `docker kill`ed while it runs
SLOW_PROMPT = "#include <cassert>\n#include <unistd.h>\nlong add(long a, long b) {\n"
SLOW = "    usleep(1500000);\n    return a + b;\n}\n"


@pytest.mark.asyncio
async def test_a_run_whose_container_dies_goes_again_with_the_kept_build_laid_out(
        start_backend, table, docker_client) -> None:
    backend = await start_backend(warm=1, warm_languages=["cpp"])
    grader = grader_for(backend, table)
    fn = load_samples()["cpp"].function

    async def kill_the_run_s_container() -> None:
        """`docker kill` the container once the program and its tests (./main, in each side) run."""
        while True:
            containers = await asyncio.to_thread(docker_client.containers.list, ignore_removed=True,
                                                 filters={"label": [LABEL, f"{LABEL_LANGUAGE}=cpp"]})
            for container in containers:
                runner = container.attrs["State"]["Pid"]
                if any(cmdline(pid)[:1] == ["./main"] for pid in descendants(runner)):
                    await asyncio.to_thread(docker_client.api.kill, container.id)
                    return
            await asyncio.sleep(0.05)

    killing = asyncio.create_task(kill_the_run_s_container())
    slow = await grade(grader, CodeJob("cpp", SLOW, prompt=SLOW_PROMPT, tests=fn.tests))
    await asyncio.wait_for(killing, 1)
    assert slow.verdict is Verdict.PASS, slow.detail
    assert backend.deaths.by_cause[SANDBOX_FAILED] == 1 and backend.deaths.retried == 1
    assert len(backend.tests_builds) == 1
