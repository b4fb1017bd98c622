"""What the registry knows of a backend: its name, its options (and so its command-line flags), its factory."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from sandboxes.backend import Backend


@dataclasses.dataclass(frozen=True)
class Option:
    """One keyword of a backend's factory; the command line offers it as --name-with-dashes, or as `--flag` where
    the flag users know is shorter than the keyword."""

    name: str
    type: type
    default: Any
    help: str
    flag: str | None = None


@dataclasses.dataclass(frozen=True)
class BackendKind:
    name: str
    summary: str
    factory: str                        # "module:attribute", imported only when this backend is made
    options: tuple[Option, ...] = ()

    def create(self, **options: Any) -> Backend:
        """A backend with the given options, the rest at their defaults. The module is imported here, so that
        an optional dependency (the Docker SDK) is needed only by the backend that uses it."""
        unknown = set(options) - {option.name for option in self.options}
        if unknown:
            raise TypeError(f"the {self.name} backend has no option(s) {sorted(unknown)}")
        module, _, attribute = self.factory.partition(":")
        values = {option.name: options.get(option.name, option.default) for option in self.options}
        return getattr(importlib.import_module(module), attribute)(**values)
