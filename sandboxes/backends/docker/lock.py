"""The image lock: which container image, pinned by digest, grades each language.

`reward-server images build` writes it; the docker backend runs nothing it does not pin. An entry
with protocol "agnostics" names an external Agnostics verifier image that is spoken to with that
protocol instead of our runner's.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

DEFAULT_LOCK = Path(__file__).with_name("images.lock")
PROTOCOLS = ("runner", "agnostics")
PINNED = re.compile(r"^[^@\s]+@sha256:[0-9a-f]{64}$")


class LockError(ValueError):
    """The lock file is malformed."""


@dataclasses.dataclass(frozen=True)
class PinnedImage:
    reference: str            # name@sha256:<manifest digest>, as pushed to the registry
    image_id: str = ""        # sha256:<config digest>, the content the engine stores ("" = not recorded)
    version: str = ""         # toolchain version line measured in the image at build time
    size_bytes: int = 0
    protocol: str = "runner"

    def __post_init__(self) -> None:
        if not PINNED.match(self.reference):
            raise LockError(f"{self.reference!r} is not pinned as name@sha256:<64 hex digits>")
        if self.protocol not in PROTOCOLS:
            raise LockError(f"unknown protocol {self.protocol!r} (known: {', '.join(PROTOCOLS)})")

    @property
    def repository(self) -> str:
        return self.reference.split("@", 1)[0]

    @property
    def digest(self) -> str:
        return self.reference.split("@", 1)[1]


@dataclasses.dataclass(frozen=True)
class ImageLock:
    images: dict[str, PinnedImage]

    @classmethod
    def load(cls, path: Path = DEFAULT_LOCK) -> ImageLock:
        """An absent file is an empty lock: every language is then unpinned."""
        if not path.exists():
            return cls({})
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise LockError(f"{path}: {exc}") from exc
        try:
            return cls({key: PinnedImage(**entry) for key, entry in data.items()})
        except TypeError as exc:
            raise LockError(f"{path}: {exc}") from exc

    def get(self, key: str) -> PinnedImage | None:
        return self.images.get(key)

    def with_image(self, key: str, image: PinnedImage) -> ImageLock:
        return ImageLock({**self.images, key: image})

    def dump(self) -> str:
        lines = ["# Written by `reward-server images build`: language -> image pinned by digest."]
        for key in sorted(self.images):
            entry = dataclasses.asdict(self.images[key])
            lines += ["", f"[{toml_key(key)}]"]
            lines += [f"{name} = {toml_value(value)}" for name, value in entry.items()]
        return "\n".join(lines) + "\n"

    def save(self, path: Path = DEFAULT_LOCK) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.dump())
        tmp.replace(path)


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_value(key)


def toml_value(value: str | int) -> str:
    if isinstance(value, int):
        return str(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
