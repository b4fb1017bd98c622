"""A reward server for the benchmarks: a `serve` subprocess on a free loopback port, and its async client.

It keeps no results (--cache-size 0), so that every round really grades every candidate.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from reward_server.client import AsyncRewardClient

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Server:
    """`async with Server(...) as server:` starts, connects and stops it; `server.client` scores."""

    def __init__(self, name: str, workers: int, *flags: str, root: pathlib.Path = ROOT) -> None:
        """A server of the tree at `root` (another checkout: an older version, measured side by side)."""
        self.name = name
        command = [sys.executable, "-m", "reward_server", "--log-level", "WARNING", "serve", "--port", "0",
                   "--workers", str(workers), "--cache-size", "0", *flags]
        self.process = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONPATH": str(root)})
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            raise SystemExit(f"server did not start: {line!r}")
        self.address = line.rsplit(" ", 1)[-1].strip()
        self.client: AsyncRewardClient | None = None

    async def connect(self) -> None:
        self.client = await AsyncRewardClient.connect(self.address, wait_ready_s=60)

    async def stop(self) -> None:
        """Closes the client if it connected, then lets the server drain (SIGTERM)."""
        if self.client is not None:
            await self.client.close()
        self.process.terminate()
        self.process.wait(60)

    async def __aenter__(self) -> Server:
        try:
            await self.connect()
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()
