"""A build larger than its run's memory limit is the program's MEMORY_LIMIT, never a sandbox error (issue 28).

As root a slot's workspaces are a tmpfs of its own, charged to its memory group, so a compiled binary (a big
initialized static array) holds memory before its run starts: the run's limit cannot go below it (cgroup v1 refuses
the write, v2 would OOM-kill the slot's residents). That is the program's doing, decided by the policy from that fact
(`Ending.files_over_memory`), in every limits mode alike; the slot's next program passes.
"""

from __future__ import annotations

import pytest

from reward_server.client import RewardClient
from tests.candidates import stdio, verdict_name

BIG_BINARY = """#include <cstdio>
char big[200 << 20] = {1};
int main(int argc, char**) { big[argc] = 2; std::printf("%d\\n", big[0] + big[argc * 1000]); }
"""
RIGHT = "#include <cstdio>\nint main() { std::printf(\"2\\n\"); }\n"


@pytest.mark.parametrize("limits", ["auto", "rlimit"])
def test_a_binary_larger_than_its_memory_is_memory_limit(start_server, limits: str) -> None:
    server = start_server("--workers", "1", "--limits", limits)
    with RewardClient(server.address) as client:
        big, right = client.score([stdio("big", "cpp", BIG_BINARY, [("", "2\n")], memory_mb=128),
                                   stdio("right", "cpp", RIGHT, [("", "2\n")], memory_mb=128)], timeout_s=300)
    assert verdict_name(big) == "MEMORY_LIMIT" and "files in its workspace" in big.detail, big
    assert verdict_name(right) == "PASS", right
