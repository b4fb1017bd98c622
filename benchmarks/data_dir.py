"""Where the offline data lives: an explicit path, else $REWARD_DATA_DIR, else the copy shipped in benchmarks/data.

benchmarks/data holds public data copied unchanged (equational laws, their implication matrix, SAIR Stage 1
examples); provenance and licences are in benchmarks/data/SOURCE.md.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "REWARD_DATA_DIR"
DEFAULT = Path(__file__).resolve().parent / "data"


def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    chosen = Path(path) if path else Path(os.environ.get(ENV_VAR) or DEFAULT)
    if not chosen.is_dir():
        raise FileNotFoundError(f"data directory {chosen} does not exist (pass a path or set ${ENV_VAR})")
    return chosen
