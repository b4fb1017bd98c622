"""gRPC-native balancing: three real replicas behind one `ipv4:` target, round_robin, failover without loss."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from grpc._cython import cygrpc

from reward_server.client import RewardClient
from reward_server.loadtest.scrape import scrape, total
from reward_server.pb import reward_pb2
from reward_server.targets import parse_targets, width
from tests.candidates import equation, python_script, verdict_name
from tests.conftest import score_killing, wait_for, wait_grading


def ipv4_target(servers) -> str:
    return "ipv4:" + ",".join(server.address for server in servers)


def wait_all_connected(client: RewardClient, replicas) -> None:
    """Until every replica has answered a call: round_robin picks only replicas it has seen SERVING, and the
    client is ready as soon as one is."""
    give_up = time.monotonic() + 30
    while not all(total(scrape(r.metrics_url), "reward_requests_total") for r in replicas):
        assert time.monotonic() < give_up, "round_robin never reached every replica"
        client.score([equation("warm", "VERDICT: TRUE", True)])


def picked_connections(address: str) -> int:
    """This process's connections to `address` that round_robin may pick (READY subchannels), from channelz: grpcio's
    own account of its channels, the one grpcio-channelz serves."""
    count, start = 0, 0
    while True:
        page = json.loads(cygrpc.channelz_get_top_channels(start))
        for channel in page.get("channel", []):
            for ref in channel.get("subchannelRef", []):
                data = json.loads(cygrpc.channelz_get_subchannel(int(ref["subchannelId"])))["subchannel"]["data"]
                count += data["target"] == f"ipv4:{address}" and data["state"]["state"] == "READY"
            start = int(channel["ref"]["channelId"]) + 1
        if page.get("end", False) or not page.get("channel"):
            return count


def score_calls(replicas) -> list[float]:
    return [total(scrape(r.metrics_url), "reward_requests_total", method="Score") for r in replicas]


def test_one_target_spreads_batches_over_every_replica(start_replicas) -> None:
    replicas = start_replicas(3, workers=2)
    with RewardClient(ipv4_target(replicas)) as client:
        wait_all_connected(client, replicas)
        before = score_calls(replicas)
        for batch in range(6):
            results = client.score([python_script(f"b{batch}/{i}", f"print('ok')  # {batch}/{i}", "ok")
                                    for i in range(6)])
            assert [verdict_name(r) for r in results] == ["PASS"] * 6
    calls = [after - earlier for after, earlier in zip(score_calls(replicas), before, strict=True)]
    candidates = [total(scrape(r.metrics_url), "reward_candidates_total", language="python") for r in replicas]
    assert calls == [6, 6, 6] and candidates == [12, 12, 12], (calls, candidates)  # each batch: a call per replica


def test_a_replica_killed_mid_batch_loses_and_duplicates_nothing(start_replicas) -> None:
    replicas = start_replicas(3, workers=1)
    slow = [python_script(f"s{i}", f"import time\ntime.sleep(0.4)\nprint('ok')  # {i}\n", "ok") for i in range(12)]
    with RewardClient(ipv4_target(replicas)) as client:
        wait_all_connected(client, replicas)
        before = [total(scrape(r.metrics_url), "reward_candidates_total") for r in replicas]
        results = score_killing(client, slow, victim=replicas[1])
    assert [r.id for r in results] == [c.id for c in slow]
    assert [r.index for r in results] == list(range(len(slow)))
    assert all(verdict_name(r) == "PASS" for r in results), [r.detail for r in results]
    survivors = [total(scrape(replicas[i].metrics_url), "reward_candidates_total") - before[i] for i in (0, 2)]
    assert sum(survivors) == len(slow), survivors  # their own shares, and the victim's graded again


def test_a_stream_cut_by_a_dying_replica_resumes_elsewhere_without_repeats(
        start_replicas, caplog: pytest.LogCaptureFixture) -> None:
    replicas = start_replicas(2, workers=1)
    slow = [python_script(f"t{i}", f"import time\ntime.sleep(0.3)\nprint('ok')  # {i}\n", "ok") for i in range(8)]
    results: list[reward_pb2.ScoreResult] = []
    with RewardClient(ipv4_target(replicas)) as client, caplog.at_level("WARNING", logger="reward_server.client"):
        wait_all_connected(client, replicas)
        for result in client.score_stream(slow, timeout_s=120):
            results.append(result)
            if len(results) == 2:  # the stream's replica is mid-batch: kill it
                [streaming] = [r for r in replicas if total(scrape(r.metrics_url), "reward_requests_in_flight")]
                streaming.process.kill()
    assert "failed" in caplog.text  # the stream was cut, and the rest was sent again
    assert sorted(r.index for r in results) == list(range(len(slow)))  # each candidate exactly once
    assert all(verdict_name(r) == "PASS" for r in results), [r.detail for r in results]


def test_targets_keep_schemes_whole_and_split_plain_lists() -> None:
    assert parse_targets("dns:///reward.ns.svc:50051") == ["dns:///reward.ns.svc:50051"]
    assert parse_targets("ipv4:127.0.0.1:5001,127.0.0.1:5002") == ["ipv4:127.0.0.1:5001,127.0.0.1:5002"]
    assert parse_targets("a:1, b:2") == ["a:1", "b:2"]
    assert parse_targets(["ipv4:127.0.0.1:1", "c:3"]) == ["ipv4:127.0.0.1:1", "c:3"]
    with pytest.raises(ValueError, match="no reward server address"):
        parse_targets(" , ")


def test_width_counts_literal_and_resolved_replicas() -> None:
    async def widths() -> list[int]:
        return [await width(t) for t in ("ipv4:127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", "ipv6:[::1]:1",
                                         "127.0.0.1:1", "dns:///127.0.0.1:1", "unix:/tmp/x.sock",
                                         "no-such-host.invalid:1")]

    assert asyncio.run(widths()) == [3, 1, 1, 1, 1, 1]


def test_a_draining_replica_gets_no_new_calls(start_replicas, caplog: pytest.LogCaptureFixture) -> None:
    replicas = start_replicas(2, workers=1)
    draining = replicas[1]
    with RewardClient(ipv4_target(replicas)) as client:
        wait_all_connected(client, replicas)
        with RewardClient(draining.address) as direct:   # keeps the replica draining for a few seconds
            sleeper = python_script("slow", "import time\ntime.sleep(4)\n")
            slow = threading.Thread(target=direct.score, args=([sleeper],))
            slow.start()
            wait_grading(draining)
            assert picked_connections(draining.address) > 0
            draining.process.terminate()
            wait_for(lambda: not picked_connections(draining.address), "the drain's GOAWAY reaching the client")
            [calls] = score_calls(replicas[:1])
            with caplog.at_level("WARNING", logger="reward_server.client"):
                for batch in range(4):
                    results = client.score([python_script(f"d{batch}/{i}", f"print('ok')  # {i}", "ok")
                                            for i in range(2)])
                    assert [verdict_name(r) for r in results] == ["PASS", "PASS"]
            slow.join(60)
    assert not [r for r in caplog.records if r.name == "reward_server.client"], caplog.text  # no call refused
    assert score_calls(replicas[:1]) == [calls + 8]  # every call went to the replica still serving
