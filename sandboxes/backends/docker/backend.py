"""The docker backend: digest-pinned per-language images, served by warm pools of long-lived containers.

Only what the image lock pins runs, and only after the engine shows that the local image carries the
pinned digest (and content id). Each container runs the in-image runner as its main process; a job is a
JSON line over the attach stream, so a program costs a fork, not a `docker run`. Containers get no
network, no IPC namespace sharing (and so no writable /dev/shm), a read-only root, tmpfs workdir and /tmp,
no capabilities, no-new-privileges, an unprivileged user, and pids/memory/CPU limits; nothing from the
host is mounted. Containers are sibling cgroups with docker's equal default CPU weight (`cpus` caps each),
and a run's time limit is its CPU time, which the runner reads from the container's cgroup (policy.py).
A compile gets the toolchain artifacts (precompiled headers, class archive, compiler snapshot) its image carries,
built into the image's read-only root when it was built (sandboxes/toolchain_artifacts.py, bake_artifacts.py here),
never from a container's writable tmpfs.
A split's tests' side (and its unit) is built once per problem: the first workspace of a problem builds it in its
container, whose runner packs what the build left at once, before anything of the program is compiled or run there,
and the host keeps that archive, where no container reaches it; each later workspace of the problem has it laid out
in its own workdir and compiles only its program (sandboxes/split/builds.py).
Every workspace starts from a wiped workdir; a container whose program timed out or hit a limit, or whose
runner died, went silent or answered garbage, is destroyed and replaced, and every container is recycled
after `recycle_after` jobs. A container lost under a step (killed, its runner dead or silent, its engine gone) is
never the program's fault: the step goes again, once, in a fresh container where the workspace is built again
(sandboxes/sandbox_deaths.py, DockerWorkspace).
Containers are labelled with this server's instance id; leftovers of dead instances are removed at start.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import dataclasses
import itertools
import logging
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path

import docker
import docker.errors
import requests.exceptions
from docker.types import LogConfig

from sandboxes import split
from sandboxes.backend import (
    LimitsInfo,
    SandboxError,
    SandboxInfo,
    SlotState,
    SplitTestsDoNotCompile,
    UnsupportedWorkspace,
    build_static,
    compiled_away,
    workspace_files,
)
from sandboxes.backends.docker import RECYCLE_AFTER, WARM
from sandboxes.backends.docker.channel import Channel, ChannelError
from sandboxes.backends.docker.lock import DEFAULT_LOCK, ImageLock, PinnedImage
from sandboxes.backends.docker.runtime import SANDBOX_USER, WORKDIR, runner_job
from sandboxes.languages import Language, LanguageTable, SplitUnit
from sandboxes.policy import COMPILE_PROCESSES, Ending, Step, classify, compile_step, run_step, wall_backstop_s
from sandboxes.results import Limits, RunResult, RunStatus
from sandboxes.sandbox_deaths import SandboxDeaths, at_most_twice, cause_of_death
from sandboxes.split.builds import KeptBuilds, build_key
from sandboxes.toolchain_artifacts import running, using

log = logging.getLogger(__name__)

LABEL = "reward-sandbox"                 # value: the owning server's instance id
LABEL_OWNER = "reward-sandbox.owner"     # hostname:pid of the owning server process
LABEL_LANGUAGE = "reward-sandbox.language"
RUNNER_OVERHEAD_MB = 48                  # the runner's own memory on top of the program's limit
EXTRA_PIDS = 8                           # the runner's own, on top of the program's
ANSWER_GRACE_S = 10.0                    # the runner enforces limits itself; this only catches a hung one
START_TIMEOUT_S = 60.0
SPAWN_PARALLEL = 4
WORKDIR_TMPFS = "rw,exec,nosuid,size=512m,mode=1777"
TMP_TMPFS = "rw,exec,nosuid,size=256m,mode=1777"
# A container whose program ended like this may hold state a wipe cannot undo: it is replaced.
REPLACE_AFTER = {RunStatus.TIMEOUT, RunStatus.MEMORY_LIMIT, RunStatus.OUTPUT_LIMIT, RunStatus.DEADLINE,
                 RunStatus.SANDBOX_ERROR}
KEPT_ARCHIVE = "build.tar"    # in a kept build's directory: the runner's pack of it
AGNOSTICS_STATUS = {"success": RunStatus.OK, "fail:wrong-output": RunStatus.OK,
                    "fail:error": RunStatus.EXIT_NONZERO, "fail:timeout": RunStatus.TIMEOUT}


@dataclasses.dataclass
class LanguageStats:
    warm: int          # target number of idle containers (0 = on demand)
    total: int = 0     # containers alive (idle + busy + starting)
    busy: int = 0
    idle: int = 0
    started: int = 0
    recycled: int = 0  # retired after recycle_after jobs
    replaced: int = 0  # destroyed after a timeout, a limit, a crash or a garbage answer
    jobs: int = 0


@dataclasses.dataclass(eq=False)
class Sandbox:
    container_id: str
    channel: Channel
    memory_mb: int
    jobs: int = 0
    broken: bool = False   # lost, or its runner can no longer be trusted: replaced before its workspace's next step
    tainted: bool = False  # a program left the container in a state a wipe may not undo


@dataclasses.dataclass(frozen=True)
class ContainerState(SlotState):
    """A container the pools hold (idle or serving a workspace) as it was when read (`DockerBackend.slots`): a
    workspace's slot is whichever container of its language serves it."""

    container_id: str
    language: str
    jobs: int          # workspaces it has served


def pids_limit(language: Language) -> int:
    """One limit for the container's life (the SDK cannot change it live): a compiler's many threads
    where the language compiles, a run's processes otherwise."""
    processes = COMPILE_PROCESSES if language.compile is not None else Limits(0, 0).max_processes
    return processes + EXTRA_PIDS


def owner_tag() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_dead(owner: str) -> bool:
    """Only an owner on this host whose process is gone is known dead; anything else is left alone."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class DockerBackend:
    name = "docker"

    def __init__(self, lock_path: Path | None = None, *, table: LanguageTable | None = None, warm: int = WARM,
                 warm_languages: Iterable[str] | None = None, recycle_after: int = RECYCLE_AFTER, cpus: float = 1.0,
                 docker_url: str | None = None) -> None:
        """lock_path: None = $REWARD_SANDBOX_LOCK, else images.lock next to this file; warm: idle containers kept
        per language (0 = start one per workspace); warm_languages: keys to keep warm (None = every pinned
        language); cpus: CPU share of each container; docker_url: the engine (None = DOCKER_HOST/default)."""
        self.lock = ImageLock.load(lock_path or Path(os.environ.get("REWARD_SANDBOX_LOCK", DEFAULT_LOCK)))
        self.table = table or LanguageTable.load()
        self.warm = warm
        self.warm_languages = None if warm_languages is None else {self.table.resolve(k).key for k in warm_languages}
        self.recycle_after = recycle_after
        self.cpus = cpus
        self.docker_url = docker_url
        self.instance_id = uuid.uuid4().hex
        self.client: docker.DockerClient | None = None
        self._info: dict[str, SandboxInfo] = {}
        self._idle: dict[str, list[Sandbox]] = {}
        self._busy: dict[Sandbox, str] = {}          # serving a workspace: its language's key
        self._stats: dict[str, LanguageStats] = {}
        self._tasks: set[asyncio.Task] = set()
        self._names = itertools.count()
        self._closing = False
        self._pair: tempfile.TemporaryDirectory | None = None   # pair, built at start: every container binds it
        self._kept: tempfile.TemporaryDirectory | None = None   # the split tests' builds, on the host alone
        self.tests_builds: KeptBuilds | None = None
        self.deaths = SandboxDeaths()

    # --- the Backend protocol -------------------------------------------------------------------------

    def describe(self, language: Language) -> SandboxInfo:
        if language.key not in self._info:
            self._info[language.key] = self._describe(language)
        return self._info[language.key]

    def limits(self) -> LimitsInfo:
        """Each container's own cgroup, made by the engine: every guarantee of the process backend's cgroup modes; the
        split's confinement is the kernel's, which the containers share."""
        return LimitsInfo("docker", split.confinement_gaps(split.landlock_abi()))

    async def start(self, slots: int) -> None:
        gcc = shutil.which("gcc")
        if gcc is None:
            raise SandboxError("gcc not found: the docker backend builds the split's pair (sandboxes/split) at start")
        self._pair = tempfile.TemporaryDirectory(prefix="rsd-pair-")
        await build_static(gcc, split.SOURCE, Path(self._pair.name) / "pair", 0o755)
        Path(self._pair.name).chmod(0o755)
        self._kept = tempfile.TemporaryDirectory(prefix="rsd-tests-builds-")     # 0700: the server's alone
        self.tests_builds = KeptBuilds(Path(self._kept.name))
        self.client = await asyncio.to_thread(self._connect)
        self._info.clear()
        removed = await asyncio.to_thread(self._remove_leftovers)
        if removed:
            log.info("removed %d leftover container(s) of dead server instances", removed)
        warm = [self.table.resolve(key) for key in sorted(self.lock.images)
                if self.warm > 0 and (self.warm_languages is None or key in self.warm_languages)]
        for language in warm:
            await asyncio.to_thread(self._ensure_image, language.key, self.lock.images[language.key])
            self._stats.setdefault(language.key, LanguageStats(self.warm))
        spawn = asyncio.Semaphore(SPAWN_PARALLEL)

        async def fill(language: Language) -> None:
            for _ in range(self.warm):
                async with spawn:
                    self._idle_list(language).append(await self._spawn(language, language.memory_mb))

        try:
            await asyncio.gather(*(fill(language) for language in warm))
        except SandboxError:
            await self.close()
            raise
        log.info("docker backend %s: %d warm container(s) for %s", self.instance_id[:12],
                 sum(s.total for s in self._stats.values()), ", ".join(k.key for k in warm) or "no language")

    async def close(self) -> None:
        self._closing = True
        # Removals and refills in flight finish (a refill sees _closing and removes what it started).
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for boxes in self._idle.values():
            for box in boxes:
                box.channel.close()
        self._idle.clear()
        if self.client is not None:
            await asyncio.to_thread(self._remove_own)
            self.client.close()
            self.client = None
        if self._pair is not None:
            self._pair.cleanup()
            self._pair = None
        if self._kept is not None:
            self._kept.cleanup()
            self._kept, self.tests_builds = None, None

    def _pair_binary(self) -> str:
        if self._pair is None:
            raise SandboxError("the docker backend is not started")
        return str(Path(self._pair.name) / "pair")

    @contextlib.asynccontextmanager
    async def workspace(self, language: Language, source: str, slot: int, files: Mapping[str, str] | None = None,
                        data_files: Mapping[str, str] | None = None,
                        tests: str | None = None) -> AsyncIterator[DockerWorkspace]:
        info = self.describe(language)
        if not info.ready:
            raise SandboxError(f"{language.key}: {info.reason}")
        pinned = self.lock.images[language.key]
        if (files or data_files or tests is not None) and pinned.protocol == "agnostics":
            raise UnsupportedWorkspace(f"{language.key}: its image's Agnostics protocol takes the source alone, no "
                                       "extra files and no tests in a process of their own")
        workdir = workspace_files(language, source, files, data_files, tests)
        self._stats.setdefault(language.key, LanguageStats(self._warm_for(language.key))).jobs += 1
        workspace = DockerWorkspace(self, language, source, pinned, workdir,
                                    compiled_away(language, source, files, tests), tests,
                                    split.unit_of(language, files) if tests is not None else None)
        healthy = False
        try:
            yield workspace
            healthy = True
        finally:
            if workspace.box is not None:
                self.give_back(language, workspace.box, healthy)

    # --- observability --------------------------------------------------------------------------------

    def slots(self) -> list[ContainerState]:
        """The containers the pools hold: idle, and serving a workspace (not those starting or being removed)."""
        held = [(box, key, False) for key, boxes in self._idle.items() for box in boxes]
        held += [(box, key, True) for box, key in self._busy.items()]
        return [ContainerState(busy, box.container_id, key, box.jobs) for box, key, busy in held]

    def stats(self) -> dict[str, LanguageStats]:
        for key, stats in self._stats.items():
            stats.idle = len(self._idle.get(key, []))
        return {key: dataclasses.replace(stats) for key, stats in self._stats.items()}

    # --- pinning --------------------------------------------------------------------------------------

    def _describe(self, language: Language) -> SandboxInfo:
        pinned = self.lock.get(language.key)
        if pinned is None:
            return SandboxInfo(False, f"no image pinned for {language.key} in the image lock", "", "", pinned=False)
        problem = self._verify(pinned) if self.client is not None else "the docker backend is not started"
        if problem:
            return SandboxInfo(False, problem, pinned.version, pinned.reference)
        return SandboxInfo(True, "", pinned.version, pinned.reference)

    def _verify(self, pinned: PinnedImage) -> str:
        """"" when the local image really is the pinned one; otherwise why not."""
        assert self.client is not None
        try:
            image = self.client.images.get(pinned.reference)
        except docker.errors.ImageNotFound:
            have = self._local_digests(pinned.repository)
            return (f"{pinned.reference} is not present locally"
                    + (f" (local {pinned.repository} has {', '.join(have)})" if have else ""))
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            return f"cannot inspect {pinned.reference}: {exc}"
        if pinned.reference not in image.attrs.get("RepoDigests", []):
            return f"the local image does not carry the pinned digest {pinned.digest}"
        if pinned.image_id and image.id != pinned.image_id:
            return f"local content {image.id} differs from the pinned {pinned.image_id}"
        return ""

    def _local_digests(self, repository: str) -> list[str]:
        assert self.client is not None
        digests = []
        for image in self.client.images.list(name=repository):
            digests += [d.split("@", 1)[1] for d in image.attrs.get("RepoDigests", [])
                        if d.startswith(repository + "@")]
        return digests

    def _ensure_image(self, key: str, pinned: PinnedImage) -> None:
        """Pull a missing pinned image by digest (the engine checks content against it), else fail fast."""
        assert self.client is not None
        problem = self._verify(pinned)
        if problem and "not present locally" in problem:
            try:
                self.client.api.pull(pinned.repository, tag=pinned.digest)
            except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
                log.debug("pull %s failed: %s", pinned.reference, exc)
            problem = self._verify(pinned)
        if problem:
            raise SandboxError(f"cannot warm the {key} pool: {problem}. Build and pin it with "
                               f"`reward-server images build {key} --registry HOST:PORT`.")

    # --- containers -----------------------------------------------------------------------------------

    def _connect(self) -> docker.DockerClient:
        try:
            client = (docker.DockerClient(base_url=self.docker_url, timeout=120) if self.docker_url
                      else docker.from_env(timeout=120))
            client.ping()
        except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
            where = self.docker_url or os.environ.get("DOCKER_HOST", "the default socket")
            raise SandboxError(f"cannot reach the Docker engine at {where}: {exc}") from exc
        return client

    def _warm_for(self, key: str) -> int:
        wanted = self.warm_languages is None or key in self.warm_languages
        return self.warm if wanted else 0

    def _idle_list(self, language: Language) -> list[Sandbox]:
        return self._idle.setdefault(language.key, [])

    async def take(self, language: Language) -> Sandbox:
        """A container of the language for a workspace: an idle one, else a new one. Raises SandboxError. An idle
        container that died while it waited (killed, its engine restarted) is replaced, not handed out."""
        idle = self._idle_list(language)
        while idle:
            box = idle.pop()
            if not box.channel.ended():
                break
            log.warning("%s container %s died while idle", language.key, box.container_id[:12])
            self._release(language, box, healthy=False)
        else:
            box = await self._spawn(language, language.memory_mb)
        self._busy[box] = language.key
        self._stats[language.key].busy += 1
        return box

    def give_back(self, language: Language, box: Sandbox, healthy: bool) -> None:
        """A workspace's container, done with or lost: kept warm, or replaced."""
        self._stats[language.key].busy -= 1
        del self._busy[box]
        self._release(language, box, healthy)

    def _release(self, language: Language, box: Sandbox, healthy: bool) -> None:
        stats = self._stats[language.key]
        box.jobs += 1
        if not healthy or box.broken or box.tainted:
            stats.replaced += 1
            reason = "replaced"
        elif box.jobs >= self.recycle_after:
            stats.recycled += 1
            reason = "recycled"
        elif not self._closing and len(self._idle_list(language)) < stats.warm:
            self._idle_list(language).append(box)
            return
        else:
            reason = "surplus"
        log.debug("%s container %s %s after %d job(s)", language.key, box.container_id[:12], reason, box.jobs)
        self._background(self._destroy(language, box))
        if not self._closing:
            self._background(self._refill(language))

    async def _refill(self, language: Language) -> None:
        stats = self._stats[language.key]
        while not self._closing and stats.total < stats.warm:
            try:
                box = await self._spawn(language, language.memory_mb)
            except SandboxError as exc:
                log.warning("cannot refill the %s pool: %s", language.key, exc)
                return
            if self._closing:
                await self._destroy(language, box)
                return
            self._idle_list(language).append(box)

    def _background(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _spawn(self, language: Language, memory_mb: int) -> Sandbox:
        stats = self._stats.setdefault(language.key, LanguageStats(self._warm_for(language.key)))
        stats.total += 1
        try:
            box = await asyncio.to_thread(self._create, language, memory_mb)
        except BaseException:
            stats.total -= 1
            raise
        pinned = self.lock.images[language.key]
        if pinned.protocol == "runner":
            try:
                answer = await box.channel.request({"op": "ping"}, START_TIMEOUT_S)
            except ChannelError as exc:
                answer = {"error": str(exc)}
            if not answer.get("ok"):
                await self._destroy(language, box)
                raise SandboxError(f"{language.key} container did not come up: {answer}")
        stats.started += 1
        return box

    def _create(self, language: Language, memory_mb: int) -> Sandbox:
        assert self.client is not None
        pinned = self.lock.images[language.key]
        limit = f"{memory_mb + RUNNER_OVERHEAD_MB}m"
        name = f"rsb-{self.instance_id[:12]}-{language.key}-{next(self._names)}"
        container = None
        try:
            container = self.client.containers.create(
                pinned.reference, name=name, detach=True, stdin_open=True, tty=False, user=SANDBOX_USER,
                working_dir=WORKDIR, network_mode="none", ipc_mode="none", read_only=True,
                tmpfs={WORKDIR: WORKDIR_TMPFS, "/tmp": TMP_TMPFS}, cap_drop=["ALL"],
                volumes={self._pair_binary(): {"bind": split.PAIR, "mode": "ro"}},
                security_opt=["no-new-privileges"], pids_limit=pids_limit(language),
                mem_limit=limit, memswap_limit=limit, nano_cpus=int(self.cpus * 1e9),
                environment={"PYTHONDONTWRITEBYTECODE": "1"}, log_config=LogConfig(type=LogConfig.types.NONE),
                labels={LABEL: self.instance_id, LABEL_OWNER: owner_tag(), LABEL_LANGUAGE: language.key})
            # docker-py exposes the hijacked attach connection only through its private _sock.
            attached = container.attach_socket(params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            container.start()
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            if container is not None:
                with contextlib.suppress(docker.errors.APIError, requests.exceptions.RequestException):
                    container.remove(force=True)
            raise SandboxError(f"cannot start a {language.key} container from {pinned.reference}: {exc}") from exc
        return Sandbox(container.id, Channel(attached._sock), memory_mb)

    async def _destroy(self, language: Language, box: Sandbox) -> None:
        box.channel.close()
        self._stats[language.key].total -= 1
        if self.client is None:
            return
        try:
            await asyncio.to_thread(self.client.api.remove_container, box.container_id, force=True)
        except docker.errors.NotFound:
            pass
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            log.warning("cannot remove container %s: %s", box.container_id[:12], exc)

    async def resize(self, box: Sandbox, memory_mb: int) -> None:
        """A run asks for another memory limit than the container has: change the container's cgroup."""
        assert self.client is not None
        limit = f"{memory_mb + RUNNER_OVERHEAD_MB}m"
        try:
            await asyncio.to_thread(self.client.api.update_container, box.container_id, mem_limit=limit,
                                    memswap_limit=limit)
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            raise SandboxError(f"cannot set the memory limit of {box.container_id[:12]}: {exc}") from exc
        box.memory_mb = memory_mb

    def _remove_leftovers(self) -> int:
        assert self.client is not None
        removed = 0
        for container in self.client.containers.list(all=True, filters={"label": LABEL}):
            owner = container.labels.get(LABEL_OWNER, "")
            if container.labels.get(LABEL) != self.instance_id and owner_dead(owner):
                with contextlib.suppress(docker.errors.NotFound):
                    container.remove(force=True)
                    removed += 1
        return removed

    def _remove_own(self) -> None:
        assert self.client is not None
        try:
            containers = self.client.containers.list(all=True, filters={"label": f"{LABEL}={self.instance_id}"})
        except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
            log.warning("cannot list this instance's containers: %s", exc)
            return
        for container in containers:
            try:
                container.remove(force=True)
            except docker.errors.NotFound:
                pass
            except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
                log.warning("cannot remove container %s: %s", container.short_id, exc)


class DockerWorkspace:
    """One candidate in a container of its language: a wiped workdir holding its files; compile once, run per test.

    Its container is taken by its first step. A step whose container was lost under it, or whose program died of a
    SIGKILL none of its limits explains, goes again once (sandbox_deaths.py) in a fresh container, where the workspace
    is built again first: its files, and its compile where it had one (a split's tests' side from the problem's kept
    build).
    """

    def __init__(self, backend: DockerBackend, language: Language, source: str, pinned: PinnedImage,
                 files: dict[str, str], compiled_away: list[str], tests: str | None, unit: SplitUnit | None) -> None:
        self.backend = backend
        self.tests = tests      # a split's tests' source: a function-style program's tests in a process of their own
        self.unit = unit        # its dispatcher's own unit, compiled before the program (split_tests decides)
        self.box: Sandbox | None = None
        self.language = language
        self.source = source
        self.files = files      # the workdir's files: the source, the extra and the data files
        self.compiled_away = compiled_away
        self.agnostics = pinned.protocol == "agnostics"
        self.build: Step | None = None   # the compile the runs need, done again in a fresh container
        self.workdir_bytes = 0           # what the workdir's files held after the last step (the runner's count)

    async def compile(self, deadline: float | None) -> RunResult | None:
        step = None if self.agnostics else compile_step(self.language, self.source)
        if step is None:
            return None
        step = using(self.language, self.source, step)
        compiled = await self._in_a_live_container(lambda: self._build(step, deadline), deadline, "compile")
        self.build = step
        return compiled

    async def run(self, stdin: bytes, limits: Limits, deadline: float | None, args: Sequence[str] = ()) -> RunResult:
        if self.agnostics:
            if args:
                raise SandboxError(f"{self.language.key}: its image's Agnostics protocol runs without arguments")
            return await self._in_a_live_container(lambda: self._agnostics(stdin, limits, deadline), deadline, "run")
        step = running(self.language, run_step(self.language, self.source, limits))
        step = dataclasses.replace(step, argv=(*step.argv, *args))
        if self.tests is not None:
            assert self.language.split is not None
            step = split.paired(step, self.language.split.may_fork)
        return await self._in_a_live_container(lambda: self._exec(step, stdin, deadline), deadline, "run")

    async def _in_a_live_container(self, step: Callable[[], Awaitable[RunResult]], deadline: float | None,
                                   what: str) -> RunResult:
        """The step in the workspace's live container; once more in a fresh one if this one may have died under it."""

        async def attempt() -> RunResult:
            lost = await self._ready(deadline)
            return lost if lost is not None else await step()

        return await at_most_twice(attempt, self.backend.deaths, f"a {self.language.key} {what}")

    async def _ready(self, deadline: float | None) -> RunResult | None:
        """None when the workspace's container is live; else it takes a fresh one (the lost one is replaced) and builds
        the workspace there again. A step's ending when that failed."""
        if self.box is not None and not self.box.broken:
            return None
        if self.box is not None:
            self.backend.give_back(self.language, self.box, healthy=False)
            self.box = None
        try:
            self.box = await self.backend.take(self.language)
        except SandboxError as exc:
            return lost(str(exc))
        if self.agnostics:
            return None
        failed = await self._order({"op": "reset", "files": self.files}, deadline, "cannot prepare the workdir")
        if failed is not None:
            return failed
        if self.build is None:
            return None
        built = await self._build(self.build, deadline)
        if built.status is RunStatus.OK:
            return None
        if built.status is RunStatus.DEADLINE or cause_of_death(built) is not None:
            return built
        return self._broken(f"the compile that passed failed in a fresh container: {built.detail}")

    async def _build(self, step: Step, deadline: float | None) -> RunResult:
        """The compile `step`; a split's is its tests' side (and its dispatcher's unit) as the problem's kept build has
        it (built here first where none is kept), then its program's. The former failing is never the program's fault
        (SplitTestsDoNotCompile): their sources hold nothing of it."""
        if self.tests is None:
            return await self._compile(step, deadline)
        builds = self.backend.tests_builds
        if builds is None:
            return lost("the docker backend is not started")
        unit_source = self.files[f"{split.PROGRAM_DIR}/{self.unit.source_file}"] if self.unit is not None else ""
        failed = await builds.lay_out(build_key(self.language.key, step, self.tests, unit_source),
                                      lambda: self._build_tests(step, unit_source, deadline),
                                      lambda target: self._keep(target, deadline),
                                      lambda kept: self._lay_out(kept, deadline))
        if failed is not None:
            why = split.tests_unbuilt(failed)
            if why is None or cause_of_death(failed) is not None:
                return failed
            raise SplitTestsDoNotCompile(why)
        return await self._compile(split.program_side(step, self.unit), deadline)

    async def _build_tests(self, step: Step, unit_source: str, deadline: float | None) -> RunResult:
        """The problem's build: its tests' side, then its unit's (where it has one)."""
        built = await self._exec(split.tests_side(step), b"", deadline)
        if built.status is RunStatus.OK and self.unit is not None:
            unit_step = using(self.language, unit_source, split.unit_compile(self.unit, step))
            built = await self._exec(split.unit_side(unit_step), b"", deadline)
        return built

    async def _keep(self, target: Path, deadline: float | None) -> RunResult | None:
        """The problem's build, just made here (nothing of the program compiled or run yet), packed by the runner and
        kept at `target` on the host, read-only; none where the runner found it too big to keep (each workspace builds
        it then). The step's ending where the container failed it, else None."""
        answer = await self._request({"op": "pack", "paths": list(split.unit_kept(self.unit))}, START_TIMEOUT_S,
                                     deadline)
        if isinstance(answer, RunResult):
            return answer
        archive = answer.get("archive_b64")
        if not answer.get("ok") or "archive_b64" not in answer or not isinstance(archive, str | None):
            return self._broken(f"cannot pack the tests' build: {str(answer)[:200]}")
        if archive is None:
            return None
        try:
            packed = base64.b64decode(archive, validate=True)
        except binascii.Error:
            return self._broken(f"the runner packed garbage: {archive[:200]}")
        await asyncio.to_thread(_store, target, packed)
        return None

    async def _lay_out(self, kept: Path, deadline: float | None) -> RunResult | None:
        """The problem's kept build laid out in this workspace's workdir (its files just written: a fresh one)."""
        packed = await asyncio.to_thread((kept / KEPT_ARCHIVE).read_bytes)
        answer = await self._request({"op": "unpack", "archive_b64": base64.b64encode(packed).decode()},
                                     START_TIMEOUT_S, deadline)
        if isinstance(answer, RunResult):
            return answer
        if not answer.get("ok") or not isinstance(answer.get("workdir_bytes"), int):
            return self._broken(f"cannot lay out the tests' build: {str(answer)[:200]}")
        self.workdir_bytes = answer["workdir_bytes"]
        return None

    async def _compile(self, step: Step, deadline: float | None) -> RunResult:
        """The compile; once it has ended, the files it consumed are gone from the workdir."""
        compiled = await self._exec(step, b"", deadline)
        if compiled.status is RunStatus.DEADLINE or cause_of_death(compiled) is not None:
            return compiled
        failed = await self._order({"op": "remove", "names": self.compiled_away}, deadline,
                                   "cannot remove the compiled source")
        return compiled if failed is None else failed

    async def _order(self, job: dict, deadline: float | None, failure: str) -> RunResult | None:
        """A runner request whose answer is only whether it was done: None when it was, else the step's ending."""
        answer = await self._request(job, START_TIMEOUT_S, deadline)
        if isinstance(answer, RunResult):
            return answer
        if not answer.get("ok"):
            return self._broken(f"{failure}: {str(answer)[:200]}")
        return None

    async def _exec(self, step: Step, stdin: bytes, deadline: float | None) -> RunResult:
        """One step in the runner, which reports how the process ended (cut at the caller's deadline, if that comes
        first, by the runner itself: what the run had earned by then is known); the policy says what that means."""
        assert self.box is not None
        if self.workdir_bytes >= step.limits.memory_mb << 20:     # the container's limit cannot go below its files
            status, detail = classify(step, Ending(files_over_memory=True), b"")
            return RunResult(status, None, b"", b"", 0.0, detail)
        if self.box.memory_mb != step.limits.memory_mb:
            try:
                await self.backend.resize(self.box, step.limits.memory_mb)
            except SandboxError as exc:
                return self._broken(str(exc))
        job = {"op": "exec", **runner_job(step, stdin)}
        if deadline is not None:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return RunResult(RunStatus.DEADLINE, None, b"", b"", 0.0, "the deadline passed before the run")
            if left < step.wall_s:
                job.update(wall_s=left, cut_by="deadline")
        answer = await self._request(job, job["wall_s"] + ANSWER_GRACE_S, None)
        if isinstance(answer, RunResult):
            return answer
        try:
            ending = Ending(**answer["ending"])
            stdout, stderr = base64.b64decode(answer["stdout_b64"]), base64.b64decode(answer["stderr_b64"])
            elapsed = float(answer["elapsed_s"])
            self.workdir_bytes = int(answer["workdir_bytes"])
        except (KeyError, ValueError, TypeError):
            return self._broken(f"the runner answered garbage: {str(answer)[:200]}")
        status, detail = classify(step, ending, stderr)
        return self._settle(RunResult(status, ending.exit_code, stdout, stderr, elapsed, detail, ending.cpu_s,
                                      ending.peak_memory_bytes, ending.signal))

    async def _agnostics(self, stdin: bytes, limits: Limits, deadline: float | None) -> RunResult:
        """One test per request; an empty expected output makes the verifier hand back what it printed."""
        job = {"code": self.source, "timeout_s": limits.timeout_s,
               "test_cases": [{"input": stdin.decode("utf-8", "replace"), "output": ""}]}
        loop = asyncio.get_running_loop()
        started = loop.time()
        wait = wall_backstop_s(limits.timeout_s) + self.language.compile_timeout_s + ANSWER_GRACE_S
        answer = await self._request(job, wait, deadline)
        if isinstance(answer, RunResult):
            return answer
        status = AGNOSTICS_STATUS.get(answer.get("result"))
        if status is None or not all(isinstance(answer.get(k, ""), str) for k in ("stdout", "stderr", "got")):
            return self._broken(f"the verifier answered {str(answer)[:200]}")
        stdout = answer.get("got", "") if answer["result"] == "fail:wrong-output" else answer.get("stdout", "")
        exit_code = {RunStatus.OK: 0, RunStatus.EXIT_NONZERO: answer.get("exit_code")}.get(status)
        if status is RunStatus.EXIT_NONZERO and not isinstance(exit_code, int):
            return self._broken(f"the verifier answered fail:error without an exit code: {str(answer)[:200]}")
        return self._settle(RunResult(status, exit_code, stdout.encode(), answer.get("stderr", "").encode(),
                                      loop.time() - started, "" if status is RunStatus.OK else answer["result"]))

    async def _request(self, job: dict, timeout_s: float, deadline: float | None) -> dict | RunResult:
        assert self.box is not None
        if self.box.broken:
            return lost("the container was lost earlier")
        loop = asyncio.get_running_loop()
        cut_by_deadline = deadline is not None and deadline - loop.time() < timeout_s
        wait = max(0.0, deadline - loop.time()) if cut_by_deadline else timeout_s
        try:
            return await self.box.channel.request(job, wait)
        except ChannelError as exc:
            if cut_by_deadline and "no answer" in str(exc):
                self.box.broken = True
                return RunResult(RunStatus.DEADLINE, None, b"", b"", wait, "the caller's deadline passed")
            return self._broken(str(exc))

    def _broken(self, why: str) -> RunResult:
        assert self.box is not None
        log.warning("%s container %s: %s", self.language.key, self.box.container_id[:12], why)
        self.box.broken = True
        return lost(why)

    def _settle(self, result: RunResult) -> RunResult:
        """A program that hit a limit taints its container; one killed by a SIGKILL none of them explains may have
        been killed with it: the step goes again in a fresh one."""
        assert self.box is not None
        if result.status in REPLACE_AFTER:
            self.box.tainted = True
        if cause_of_death(result) is not None:
            self.box.broken = True
        return result


def _store(target: Path, packed: bytes) -> None:
    target.mkdir(mode=0o700)
    fd = os.open(target / KEPT_ARCHIVE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
    with open(fd, "wb") as f:
        f.write(packed)


def lost(why: str) -> RunResult:
    """A step's ending when its container was lost, or could not be had: a sandbox error."""
    return RunResult(RunStatus.SANDBOX_ERROR, None, b"", b"", 0.0, why)
