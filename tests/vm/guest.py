"""One shell command as root in a Linux guest whose only cgroup hierarchy is v2: Debian's kernel under qemu (TCG,
no KVM needed), the host's / as a read-only root over virtio-9p. The sandbox backend's tests use it to run on
cgroup v2 from a host that only has v1 controllers.

The guest's PID 1 is a busybox script in an initramfs this module builds (busybox-static, the virtio and 9p
modules of the installed kernel, `INIT`), cached per kernel and per version of this file. The command's cwd,
text, output and exit status go through a second, writable 9p share (a host temp dir): the console carries
kernel messages too, so it is only read to explain a guest that failed.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

QEMU = "qemu-system-x86_64"
BUSYBOX = Path("/bin/busybox")
MODULES = ("virtio_pci", "9pnet_virtio", "9p", "overlay", "virtio_rng")  # their dependencies come along
MSIZE = 128 * 1024      # 9p's largest message; measured (import grpc): 8 KiB 15 s, 128 KiB 3.4 s, 512 KiB 6 s
KERNEL_ARGS = ("console=ttyS0 quiet loglevel=3 panic=-1 "    # panic=-1 with -no-reboot: a failed init ends qemu
               "cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1")
CONSOLE_TAIL = 3000     # characters of the console log a GuestError quotes
HOSTNAME = "guest"

# PID 1. Stage 1 (in the initramfs): mounts the new root and everything the command may need, then switch_root
# (not chroot: a chrooted process cannot make a user namespace). Stage 2 (PID 1 in the new root): runs the
# command as a root login shell would, writes its status, powers off. A failed step powers off at once (`set -e`
# and the trap), its error on the console; should PID 1 die anyway, the kernel's panic ends qemu (panic=-1).
INIT = r"""#!/bin/busybox sh
set -e
bb=/bin/busybox
[ "$1" != 2 ] || bb=/run/vm/busybox
trap '$bb echo "guest init failed" >&2; $bb poweroff -f' EXIT
if [ "$1" != 2 ]; then
    $bb --install -s /bin
    export PATH=/bin
    while read -r module; do insmod "/modules/$module"; done </modules/order
    p9=trans=virtio,version=9p2000.L,msize=@MSIZE@
    mount -t 9p -o "$p9,cache=none" io /io
    mount -t 9p -o "$p9,cache=loose,ro" hostroot /newroot
    cwd=$(cat /io/cwd)
    covered=false   # the cwd (a clone in /tmp) under a fresh tmpfs below: kept visible by a bind mount
    case "$cwd" in /tmp/*|/run/*|/var/tmp/*) covered=true; mount -o bind "/newroot$cwd" /cwd ;; esac
    mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
    mount -t tmpfs -o mode=1777 tmpfs /newroot/var/tmp
    mount -t tmpfs -o mode=755,nosuid,nodev tmpfs /newroot/run
    # /root: the host's under a tmpfs overlay, writable with what lives there kept (a pyenv Python, a clone)
    mount -t tmpfs -o mode=700 tmpfs /root-rw
    mkdir /root-rw/upper /root-rw/work
    mount -t overlay -o lowerdir=/newroot/root,upperdir=/root-rw/upper,workdir=/root-rw/work overlay /newroot/root
    if $covered; then mkdir -p "/newroot$cwd"; mount -o move /cwd "/newroot$cwd"; fi
    mount -t devtmpfs -o nosuid devtmpfs /newroot/dev
    mkdir /newroot/dev/pts /newroot/dev/shm
    mount -t devpts -o nosuid,noexec,gid=5,mode=620,ptmxmode=000 devpts /newroot/dev/pts
    mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /newroot/dev/shm
    ln -s /proc/self/fd /newroot/dev/fd
    ln -s /proc/self/fd/0 /newroot/dev/stdin
    ln -s /proc/self/fd/1 /newroot/dev/stdout
    ln -s /proc/self/fd/2 /newroot/dev/stderr
    mount -t proc -o nosuid,nodev,noexec proc /newroot/proc
    mount -t sysfs -o nosuid,nodev,noexec sysfs /newroot/sys
    mount -t cgroup2 -o nosuid,nodev,noexec,nsdelegate,memory_recursiveprot cgroup2 /newroot/sys/fs/cgroup
    mkdir -p /newroot/run/vm/io
    cp /bin/busybox /init /newroot/run/vm/
    mount -o move /io /newroot/run/vm/io
    exec switch_root /newroot /run/vm/busybox sh /run/vm/init 2
fi
io=/run/vm/io
$bb hostname @HOSTNAME@
$bb ip link set lo up
cd "$($bb cat $io/cwd)"
status=0
$bb env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root LOGNAME=root \
    SHELL=/bin/sh LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 \
    /bin/sh -c "$($bb cat $io/command)" </dev/null >$io/output 2>&1 || status=$?
echo "$status" >$io/status
$bb sync
$bb poweroff -f
""".replace("@MSIZE@", str(MSIZE)).replace("@HOSTNAME@", HOSTNAME)


class GuestError(RuntimeError):
    """The guest did not run the command to its end: it failed to boot, or ran out of time."""

    def __init__(self, what: str, console: Path | None = None) -> None:
        if console is not None and console.exists():
            what += "; the console's end:\n" + console.read_text(errors="replace")[-CONSOLE_TAIL:]
        super().__init__(what)


@dataclasses.dataclass(frozen=True)
class GuestResult:
    """How the command ended in the guest."""

    returncode: int
    output: str         # stdout and stderr, interleaved as written
    seconds: float      # qemu's whole run: boot, command, power-off


@dataclasses.dataclass(frozen=True)
class Kernel:
    version: str
    image: Path
    modules: Path


def _version_key(version: str) -> list[int | str]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", version)]


@functools.cache
def _kernel() -> Kernel | None:
    """The newest kernel in /boot whose modules are installed: Debian's, never a running kernel without them."""
    found = [Kernel(version, image, Path("/lib/modules", version)) for image in Path("/boot").glob("vmlinuz-*")
             if (Path("/lib/modules", version := image.name.removeprefix("vmlinuz-")) / "modules.dep").is_file()]
    return max(found, key=lambda kernel: _version_key(kernel.version), default=None)


def _is_static(path: Path) -> bool:
    """An ELF executable without an interpreter (PT_INTERP): it runs in an initramfs with no libc."""
    with path.open("rb") as f:
        header = f.read(64)
        if header[:5] != b"\x7fELF\x02":
            return False
        phoff, phentsize, phnum = (int.from_bytes(header[a:b], "little") for a, b in ((32, 40), (54, 56), (56, 58)))
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    return all(int.from_bytes(table[i:i + 4], "little") != 3 for i in range(0, len(table), phentsize))


def available() -> str | None:
    """None when a guest can boot here, else why not (tests/vm/setup_vm.sh installs what is missing)."""
    if shutil.which(QEMU) is None:
        return f"no {QEMU} (qemu-system-x86)"
    kernel = _kernel()
    if kernel is None:
        return "no kernel in /boot with its modules in /lib/modules (linux-image-amd64)"
    if not os.access(kernel.image, os.R_OK):
        return f"{kernel.image} is not readable"
    if not (BUSYBOX.is_file() and _is_static(BUSYBOX)):
        return f"no static {BUSYBOX} (busybox-static)"
    return None


def _load_order(kernel: Kernel) -> list[Path]:
    """MODULES and their dependencies from modules.dep, each after what it needs; built-in ones are left out."""
    deps: dict[str, list[str]] = {}
    paths: dict[str, Path] = {}
    for line in (kernel.modules / "modules.dep").read_text().splitlines():
        module, _, needs = line.partition(":")
        paths[_module_name(module)] = kernel.modules / module
        deps[_module_name(module)] = [_module_name(need) for need in needs.split()]
    builtin = {_module_name(line) for line in (kernel.modules / "modules.builtin").read_text().split()}
    order: list[str] = []

    def visit(name: str) -> None:
        if name not in order:
            for need in deps[name]:
                visit(need)
            order.append(name)

    for name in MODULES:
        if name in paths:
            visit(name)
        elif name not in builtin:
            raise GuestError(f"kernel {kernel.version} has no module {name}")
    return [paths[name] for name in order]


def _module_name(path: str) -> str:
    return Path(path).name.split(".", 1)[0].replace("-", "_")


def _cpio(entries: list[tuple[str, int, bytes]]) -> bytes:
    """A newc archive of (name, mode, content); /dev/console is the one device (the kernel opens it for init)."""

    def entry(ino: int, name: str, mode: int, data: bytes) -> bytes:
        rdev = (5, 1) if stat.S_ISCHR(mode) else (0, 0)
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, *rdev, len(name) + 1, 0)
        header = b"070701" + b"".join(b"%08X" % field for field in fields) + name.encode() + b"\0"
        return header.ljust(-(-len(header) // 4) * 4, b"\0") + data.ljust(-(-len(data) // 4) * 4, b"\0")

    return b"".join(entry(ino, *e) for ino, e in enumerate([*entries, ("TRAILER!!!", 0, b"")], start=1))


def _initramfs(kernel: Kernel) -> Path:
    """The guest's initramfs, built once per kernel build and per version of this file."""
    image = kernel.image.stat()
    key = hashlib.sha256(Path(__file__).read_bytes() + f"{kernel.version} {image.st_size} {image.st_mtime_ns}"
                         .encode()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir(), f"reward-vm-{os.getuid()}")
    path = cache / f"initramfs-{kernel.version}-{key}.cpio"
    if path.exists():
        return path
    modules = _load_order(kernel)
    directory = stat.S_IFDIR | 0o755
    entries = [(name, directory, b"") for name in ("bin", "dev", "modules", "newroot", "io", "cwd", "root-rw")]
    entries += [("dev/console", stat.S_IFCHR | 0o600, b""),
                ("bin/busybox", stat.S_IFREG | 0o755, BUSYBOX.read_bytes()),
                ("init", stat.S_IFREG | 0o755, INIT.encode()),
                ("modules/order", stat.S_IFREG | 0o644, "".join(f"{m.name}\n" for m in modules).encode())]
    entries += [(f"modules/{m.name}", stat.S_IFREG | 0o644, m.read_bytes()) for m in modules]
    cache.mkdir(mode=0o700, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}")
    partial.write_bytes(_cpio(entries))
    partial.replace(path)
    log.info("built %s (%s)", path, ", ".join(m.name for m in modules))
    return path


def run(command: str, *, timeout_s: float = 300, memory_mb: int = 2048, cpus: int = 2) -> GuestResult:
    """Boots a guest, runs `/bin/sh -c command` in it as root in the caller's cwd, and powers it off."""
    reason = available()
    if reason is not None:
        raise GuestError(f"no guest here: {reason}")
    kernel = _kernel()
    initramfs = _initramfs(kernel)
    with tempfile.TemporaryDirectory(prefix="reward-vm-") as tmp:
        io, console = Path(tmp, "io"), Path(tmp, "console.log")
        io.mkdir()
        (io / "command").write_text(command)
        (io / "cwd").write_text(os.getcwd())
        argv = [QEMU, "-nodefaults", "-no-user-config", "-nographic", "-no-reboot", "-accel", "tcg", "-cpu", "max",
                "-smp", str(cpus), "-m", str(memory_mb), "-serial", "stdio",
                "-kernel", str(kernel.image), "-initrd", str(initramfs), "-append", KERNEL_ARGS,
                "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
                "-virtfs", f"local,path={str(io).replace(',', ',,')},mount_tag=io,security_model=none",  # ,, is ,
                "-device", "virtio-rng-pci"]
        log.debug("%s", argv)
        start = time.monotonic()
        with console.open("wb") as out:
            qemu = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
            try:
                qemu.wait(timeout_s)
            except subprocess.TimeoutExpired:
                qemu.kill()
                qemu.wait()
                raise GuestError(f"the guest ran past {timeout_s} s", console) from None
        seconds = time.monotonic() - start
        if not (io / "status").exists():
            raise GuestError(f"the guest ended (qemu status {qemu.returncode}) without running the command", console)
        result = GuestResult(int((io / "status").read_text()), (io / "output").read_bytes().decode(errors="replace"),
                             seconds)
    log.info("guest: status %d in %.1f s", result.returncode, seconds)
    return result
