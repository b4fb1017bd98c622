"""Generates the Python stubs from proto/ into reward_server/pb (committed; a test checks they are fresh).

Run: python -m reward_server.protogen
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO = pathlib.Path("reward/v1/reward.proto")
OUT = ROOT / "reward_server" / "pb"
GENERATED = ("reward_pb2.py", "reward_pb2.pyi", "reward_pb2_grpc.py")


def generate() -> dict[str, str]:
    """The stub files' text, as protoc makes them, with the import made package-relative."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
             f"--python_out={tmp}", f"--pyi_out={tmp}", f"--grpc_python_out={tmp}", str(PROTO)],
            check=True,
        )
        out = pathlib.Path(tmp) / PROTO.parent
        return {
            name: (out / name).read_text().replace(
                "from reward.v1 import reward_pb2", "from . import reward_pb2")
            for name in GENERATED
        }


def main() -> None:
    for name, text in generate().items():
        (OUT / name).write_text(text)


if __name__ == "__main__":
    main()
