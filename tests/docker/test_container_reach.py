"""The docker runner, and what it runs around a program, are out of the program's reach (issue 28): the cases of
tests/sandbox_reach_cases.py whose languages this session's lock images, on one slot, so that each honest program runs
in a container an attack ran in just before."""

from __future__ import annotations

import pytest

from reward_server.service import code_job
from tests import sandbox_reach_cases
from tests.docker.conftest import BUILT, grade, grader_for


@pytest.mark.asyncio
async def test_every_attack_keeps_the_program_s_own_verdict(start_backend, table) -> None:
    backend = await start_backend(slots=1, warm=1, warm_languages=["python"])
    grader = grader_for(backend, table, slots=1)
    report = {}
    for case in sandbox_reach_cases.cases(BUILT):
        graded = await grade(grader, code_job(case.candidate.code))
        report[case.name] = {"verdict": graded.verdict.name, "detail": graded.detail}
    assert sandbox_reach_cases.problems(report, BUILT) == []
    assert backend.deaths.retried == 0      # no attack took a container down, not even once
