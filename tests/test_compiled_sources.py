"""A compiled program runs without the source its compile consumed, through a real server (tests/compiled_sources.py;
the docker backend's differential test grades the same jobs)."""

from __future__ import annotations

import pytest

from reward_server.client import RewardClient
from reward_server.pb import reward_pb2
from tests.candidates import stdio, verdict_name
from tests.compiled_sources import SOURCE_SEEKERS
from tests.toolchains import require_ready


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    with RewardClient(server_address) as client:
        ready = {entry.key: entry for entry in client.languages().languages}
        for key in SOURCE_SEEKERS:
            require_ready(key, ready[key].ready, ready[key].reason)
        candidates = [stdio(key, key, program, [("", "0")]) for key, program in SOURCE_SEEKERS.items()]
        return {result.id: result for result in client.score(candidates, timeout_s=900)}


@pytest.mark.parametrize("key", sorted(SOURCE_SEEKERS))
def test_the_run_does_not_see_the_compiled_source(key: str, results) -> None:
    assert verdict_name(results[key]) == "PASS", results[key]
