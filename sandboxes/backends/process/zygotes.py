"""The life of a slot's zygotes (zygote.py): started on a language's first run in the slot, serving every later one
with the same interpreter and environment, replaced when one dies. A run its zygote took down is a sandbox error, which
goes again on a fresh one (sandbox_deaths.py): never the program's fault."""

from __future__ import annotations

import itertools
import logging
import pathlib
import resource

from sandboxes.backend import SandboxError
from sandboxes.backends.process.command import SANDBOX_DIR, Commands, which
from sandboxes.backends.process.limits import RLIMITS, LimitsError
from sandboxes.backends.process.slots import Slot
from sandboxes.backends.process.supervision import Supervisor, sandbox_error
from sandboxes.backends.process.zygote import CAPABILITIES, INIT, PAIR_LIBRARY, SCRIPT, SCRIPT_DIR, Zygote
from sandboxes.languages import Language
from sandboxes.policy import Step
from sandboxes.results import RunResult

log = logging.getLogger(__name__)


def zygote_prefix(language: Language, step: Step) -> tuple[str, ...] | None:
    """The interpreter and flags a zygote of the language runs (the run command up to its `{source}`, which must
    come last in the table), resolved on the fixed PATH; None if the language has no zygote."""
    if language.warm_imports is None or language.run[-1] != "{source}":
        return None
    prefix = step.argv[:len(language.run) - 1]
    return (which(prefix[0]) or prefix[0], *prefix[1:])


def own_hard_limits() -> list[int | None]:
    """The launcher's limits for a zygote (RLIMITS): this process's own hard limits, the most any run may be given;
    each run lowers them to its own."""
    hard = (resource.getrlimit(limit)[1] for limit in RLIMITS.values())
    return [None if value == resource.RLIM_INFINITY else value for value in hard]


class Zygotes:
    """The zygotes of one backend instance's slots: its program, the runs' init and pair's library (a split's
    confinement) are files of the instance."""

    def __init__(self, supervisor: Supervisor, commands: Commands, script: pathlib.Path, init: str,
                 pair_library: str) -> None:
        self.supervisor = supervisor
        self.commands = commands
        self.script = script
        self.init = init
        self.pair_library = pair_library

    async def run(self, slot: Slot, path: pathlib.Path, language: Language, step: Step, stdin: bytes,
                  deadline: float | None, prefix: tuple[str, ...]) -> RunResult:
        """A run forked by the slot's zygote of the language, started if it has none. A zygote that cannot start, or
        that died under the run, is a sandbox error (replaced before the next run: sandbox_deaths.py runs it again)."""
        zygote = slot.zygotes.get(language.key)
        if zygote is not None and not (zygote.alive and zygote.serves(prefix, dict(step.env))):
            await self.drop(slot, language.key)
            zygote = None
        if zygote is None:
            try:
                zygote = await self._start(slot, language, step, prefix)
            except (SandboxError, LimitsError, OSError) as e:
                return sandbox_error(f"zygote: {e}", 0.0)
        result = await self.supervisor.execute(slot, path, step, stdin, deadline=deadline, zygote=zygote)
        if result is not None:
            return result
        await self.drop(slot, language.key)
        return sandbox_error("the zygote died under the run", 0.0)

    async def _start(self, slot: Slot, language: Language, step: Step, prefix: tuple[str, ...]) -> Zygote:
        """A new zygote in the slot, started under the run's memory limit; what it holds becomes resident."""
        slot.set_limits(step.limits, forked=False)
        bytes_before, pids_before = slot.resident_bytes, slot.resident_pids
        mounts, warm = [], list(language.warm_imports or ())
        if language.split is not None and language.split.codec_module:    # warm, as the sides' own import finds it
            codec = self.script.with_name(f"{language.key}-{language.split.codec_module}")
            if not codec.exists():      # whole, before any zygote binds it (another slot's may be reading it)
                codec.with_suffix(".new").write_text(language.split.codec)
                codec.with_suffix(".new").replace(codec)
            mounts += ["--ro-bind", str(codec), f"{SCRIPT_DIR}/{language.split.codec_module}"]
            warm.append(pathlib.PurePath(language.split.codec_module).stem)
        command = self.commands.sandbox(
            slot.limits.resident_join, own_hard_limits(), slot.uid,
            ["--as-pid-1", *itertools.chain.from_iterable(("--cap-add", cap) for cap in CAPABILITIES)],
            ["--bind", str(slot.root), SANDBOX_DIR, "--ro-bind", str(self.script), SCRIPT,
             "--ro-bind", self.init, INIT, "--ro-bind", self.pair_library, PAIR_LIBRARY, *mounts],
            SANDBOX_DIR, [*prefix, SCRIPT, *warm])
        zygote = await Zygote.start(command, dict(step.env), prefix)
        slot.limits.track(zygote.child.pid)
        try:
            zygote.resident_pids = frozenset(slot.limits.members()) - pids_before
            zygote.resident_bytes = max(0, slot.limits.anon_bytes() - bytes_before)
        except (LimitsError, OSError):
            await zygote.close()
            raise
        slot.zygotes[language.key] = zygote
        return zygote

    async def drop(self, slot: Slot, key: str) -> None:
        zygote = slot.zygotes.pop(key, None)
        if zygote is not None:
            await zygote.close()
            await slot.sweep()
