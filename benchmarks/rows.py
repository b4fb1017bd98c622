"""A benchmark's rows, in its own format: a local .json / .jsonl file, or a dataset on the hub.

Local files are read with `json` alone; only the hub needs `datasets` (the [train] extra), imported then.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def read_rows(source: str, *, config: str | None = None, split: str = "test") -> Iterator[dict[str, Any]]:
    """Rows of a local .jsonl / .json file, or of a hub dataset when `source` is not a path."""
    path = Path(source)
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            yield from json.loads(text)
        else:
            yield from (json.loads(line) for line in text.splitlines() if line.strip())
        return
    import datasets

    log.info("loading %s (%s, split %s) from the hub", source, config, split)
    yield from datasets.load_dataset(source, config, split=split)


def read_source(source: str) -> Iterator[dict[str, Any]]:
    """Rows of a local file, else of the hub dataset NAME[:CONFIG]."""
    if Path(source).exists():
        return read_rows(source)
    name, _, config = source.partition(":")
    return read_rows(name, config=config or None)
