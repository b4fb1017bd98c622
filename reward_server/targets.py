"""What a reward-server address means: gRPC targets, and how many replicas stand behind each.

`dns:///reward.ns.svc:50051`, `ipv4:10.0.0.5:50051,10.0.0.6:50051`, `unix:/run/reward.sock` and a plain
`host:port` are single gRPC targets: one channel, gRPC's own resolver and its `round_robin` policy pick the
replica of each call. A comma list without a scheme (`host1:50051,host2:50051`) is one target per item,
each its own channel. The replica count (`width`) only decides how many calls a batch is split into, so
that round_robin can spread them; gRPC, not this count, decides where each goes.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Sequence
from urllib.parse import urlsplit

# gRPC's built-in resolvers: a target starting with one of these is a URI, everything else host:port.
SCHEMES = ("dns", "ipv4", "ipv6", "unix", "unix-abstract", "vsock")
LITERAL_LISTS = ("ipv4", "ipv6")


def scheme(target: str) -> str | None:
    name, colon, _ = target.partition(":")
    return name if colon and name in SCHEMES else None


def parse_targets(addresses: str | Sequence[str]) -> list[str]:
    """The gRPC targets in an address string (or list of them), in order."""
    if isinstance(addresses, str):
        items = [addresses] if scheme(addresses.strip()) else addresses.split(",")
    else:
        items = list(addresses)
    targets = [item.strip() for item in items if item.strip()]
    if not targets:
        raise ValueError("no reward server address given")
    return targets


def _dns_host(target: str) -> str | None:
    """The host name of a `dns:[//authority/]host[:port]` or plain `host[:port]` target."""
    if scheme(target) == "dns":
        target = target.removeprefix("dns:")
        if target.startswith("//"):
            target = target[2:].partition("/")[2]  # drop the DNS server's authority
    return urlsplit(f"//{target}").hostname


async def width(target: str) -> int:
    """How many replicas the target names now: its literal addresses, or what its DNS name resolves to."""
    kind = scheme(target)
    if kind in LITERAL_LISTS:
        return max(1, len([a for a in target.partition(":")[2].split(",") if a.strip()]))
    if kind not in (None, "dns") or (host := _dns_host(target)) is None:
        return 1
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return 1  # the channel reports resolution failures itself, with gRPC's own message
    return max(1, len({info[4][0] for info in infos}))
