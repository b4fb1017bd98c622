"""The judges' environments, on the default (process) backend through a real server: a right program passes where
the benchmark's own judge passes it.

MultiPL-E's judge image installs the test libraries its tests load (luaunit, Test::Deep, rackunit, ...) and puts
javatuples on Java's class path (every Java prompt imports it). Each MultiPL-E language the table has gets a real
problem as MultiPL-E poses it (prompt, tests, stop tokens): the right completion must pass, the wrong one fail at run
time, as MultiPL-E's judge has them. tests/docker/test_verdicts.py poses the same rows to every image.
"""

from __future__ import annotations

import pytest

from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.judge_cases import MultiplECase, multipl_e_cases
from tests.language_table import load_table
from tests.sandboxes.test_languages import MULTIPL_E
from tests.toolchains import require_ready

CASES = {case.id: case for case in multipl_e_cases()}


def candidates(case: MultiplECase) -> list[reward_pb2.Candidate]:
    return [function_style(f"{case.id}/{kind}", case.language, case.prompt, completion, case.tests,
                           stop_tokens=case.stop_tokens)
            for kind, completion in (("right", case.right), ("wrong", case.wrong))]


@pytest.fixture(scope="module")
def client(server_address: str):
    with RewardClient(server_address) as client:
        yield client


@pytest.fixture(scope="module")
def languages(client: RewardClient) -> dict[str, reward_pb2.Language]:
    return {language.key: language for language in client.languages().languages}


@pytest.fixture(scope="module")
def results(client: RewardClient, languages: dict[str, reward_pb2.Language]) -> dict[str, reward_pb2.ScoreResult]:
    """Every ready language's cases in one batch, by candidate id."""
    ready = [case for case in CASES.values() if languages[load_table().resolve(case.language).key].ready]
    posed = [candidate for case in ready for candidate in candidates(case)]
    return {result.id: result for result in client.score(posed, timeout_s=900)}


def test_every_multipl_e_language_has_a_case() -> None:
    table = load_table()
    covered = {table.resolve(case.language).key for case in CASES.values()}
    assert covered >= {table.resolve(key).key for key in MULTIPL_E}


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_multipl_e_right_passes_and_wrong_fails(case_id: str, languages: dict[str, reward_pb2.Language],
                                                results: dict[str, reward_pb2.ScoreResult]) -> None:
    case = CASES[case_id]
    language = languages[load_table().resolve(case.language).key]
    require_ready(language.key, language.ready, language.reason)
    right, wrong = results[f"{case_id}/right"], results[f"{case_id}/wrong"]
    assert verdict_name(right) == "PASS", right
    assert right.reward == 1.0
    assert verdict_name(wrong) == "RUNTIME_ERROR", wrong
    assert wrong.reward == 0.0
