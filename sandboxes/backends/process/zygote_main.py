"""The zygote: a warm interpreter inside one slot's sandbox, of which every run of the slot is a fork.

zygote.py starts it as `<the run command's interpreter and flags> /tmp/zygote.py MODULE...` in the slot's bubblewrap
sandbox (its uid, cgroups and rlimits, no network, read-only system; pid 1 of its pid namespace; CAP_SYS_ADMIN,
CAP_SETPCAP and CAP_SYS_RESOURCE in the sandbox's user namespace only). It imports MODULE... ahead, then serves runs
on fd 3: a JSON request (workspace, argv and where the script is in it, rlimits) with the run's stdin, stdout and
stderr. For each it starts
- the run's init (run_init.c, spawned): pid 1 of a new pid namespace, which reaps what the program leaves and is
  killed once the program has exited, taking whatever is still running along;
- the program (pid 2 there; its parent, the zygote, is outside, so getppid() is 0): new mount and IPC namespaces
  where the workspace's box and tmp are /sandbox and /tmp, /dev/shm is a fresh tmpfs and /proc its pid namespace's;
  a session of its own, the run's rlimits, no capabilities (the bounding set is empty from the zygote on),
  its standard streams, and the interpreter as `python3 main.py` has it when the program starts: a fresh __main__,
  sys.argv, sys.path[0], and sys.modules as at start-up. A program that imports a module imported here gets that
  module, as it was, along with the modules its import loaded (what a fresh import would have loaded), and nothing
  more.
A split's run (the tests in a process of their own, docs/guards.md) is two such processes, as sandboxes/split/pair.c
starts them: pid 2 goes on as the tests', and forks the program's, which confines itself with pair's own code (its
library, bound at PAIR_LIBRARY) before its first line (split_sides).
The zygote runs no program code itself; a run cannot see it (pid namespace), trace it (not dumpable, and it holds
capabilities the run lacks) nor change what it keeps, so every run starts from the same pristine state. It blocks
user namespaces for everything under it, as bubblewrap's --disable-userns does.

What differs from a fresh `python3 main.py`: getppid() is 0, not 1; the program's frame has this module's frame as
caller; sys.meta_path starts with the finder of the modules imported here; the str hash seed is the zygote's;
objects from start-up are frozen out of the garbage collector (gc.freeze); and finalisation is the observable part of
Python's own (threads joined, atexit handlers, std streams flushed, the program's __main__ cleared and collected)
followed by _exit: a full one would touch, and so copy, every page of the zygote's heap.

Standard library only, and never imported by the server: it runs under the sandbox's interpreter.
"""

import os
import sys

FRESH = frozenset(sys.modules)      # what the interpreter has loaded when a program's first line runs

import builtins  # noqa: E402  (in FRESH: builtin)

CTRL_FD = 3
SCRIPT_DIR = "/tmp"                 # where zygote.py binds this file, run_init and libpair; each run's /tmp hides them
INIT = "/tmp/run-init"
PAIR_LIBRARY = "/tmp/libpair.so"    # sandboxes/split/pair.c's confinement, for a split's program
TESTS_DIR, PROGRAM_DIR = "t", "p"   # pair.c's own names
SANDBOX = "/sandbox"


def warm_up(names):
    """Import `names`. Returns what they put in sys.modules and, for each module, what its imports need there: the
    modules each of its import statements names, and whatever else the statement added to sys.modules."""
    bootstrap = sys.modules["_frozen_importlib"]
    real_import = builtins.__import__
    imports = {}
    root = []

    def recording(name, globals=None, locals=None, fromlist=(), level=0):
        before = set(sys.modules)
        module = real_import(name, globals, locals, fromlist, level)
        importer = globals.get("__name__") if globals else None
        base = bootstrap._resolve_name(name, bootstrap._calc___package__(globals), level) if level else name
        parts = base.split(".")
        targets = {".".join(parts[:i]) for i in range(1, len(parts) + 1)} | (set(sys.modules) - before)
        targets.update(f"{base}.{item}" for item in fromlist or () if item != "*")
        imports.setdefault(importer or root[0], set()).update(targets)
        return module

    builtins.__import__ = recording
    try:
        for name in names:
            root[:] = [name]
            recording(name)
    finally:
        builtins.__import__ = real_import
    modules = {name: module for name, module in sys.modules.items() if name not in FRESH}
    return modules, {name: {t for t in targets if t in modules} for name, targets in imports.items()}


class WarmModules:
    """A meta path finder that hands a program the modules the zygote imported, as they were, each with what its own
    import put in sys.modules (objects there that are not modules, like typing.io, come only that way)."""

    def __init__(self, modules, imports):
        self.modules = modules
        self.imports = imports
        self.specs = {name: module.__spec__ for name, module in modules.items() if isinstance(module, type(sys))}
        self.spec_type = sys.modules["_frozen_importlib"].ModuleSpec

    def find_spec(self, name, path=None, target=None):
        return self.spec_type(name, self) if name in self.specs else None

    def create_module(self, spec):
        loaded, stack = set(), [spec.name]
        while stack:
            for name in self.imports.get(stack.pop(), ()):
                if name not in loaded and name not in sys.modules:
                    loaded.add(name)
                    stack.append(name)
        for name in self.modules:               # in the order the zygote loaded them
            if name in loaded and name != spec.name:
                sys.modules[name] = self.modules[name]
        return self.modules[spec.name]

    def exec_module(self, module):
        module.__spec__ = self.specs[module.__name__]   # importlib set ours


MODULES, IMPORTS = warm_up(sys.argv[1:])

import array  # noqa: E402
import ctypes  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402

LIBC = ctypes.CDLL(None, use_errno=True)
PAIR = ctypes.CDLL(PAIR_LIBRARY)
PAIR.confine_files.restype = PAIR.confine_processes.restype = None
LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
LIBC.unshare.argtypes = [ctypes.c_int]
LIBC.setns.argtypes = [ctypes.c_int, ctypes.c_int]
LIBC.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
LIBC.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
LIBC.fopen.restype = ctypes.c_void_p
PYTHON_API = ctypes.pythonapi
PYTHON_API.PyRun_FileExFlags.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.py_object,
                                         ctypes.py_object, ctypes.c_int, ctypes.c_void_p]
PYTHON_API.PyRun_FileExFlags.restype = ctypes.py_object
PY_FILE_INPUT = 257
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
PR_SET_DUMPABLE, PR_CAPBSET_DROP = 4, 24
CAPABILITY_VERSION_3 = 0x20080522
RLIMITS = (("cpu", resource.RLIMIT_CPU), ("fsize", resource.RLIMIT_FSIZE), ("nofile", resource.RLIMIT_NOFILE),
           ("nproc", resource.RLIMIT_NPROC), ("as", resource.RLIMIT_AS), ("data", resource.RLIMIT_DATA))
STD_FDS = 3                         # a request's descriptors: stdin, stdout, stderr, then the two cgroup ones, if any
SIGNAL_EXIT = 128
INIT_SIGNALS = (signal.SIGCHLD, signal.SIGUSR1)     # what run_init.c waits for
# The run's init holds no descriptor: the zygote's std streams (its log) and control socket (its answers to the server)
# would be the program's to write, could it ever reach its init (the other received ones are not inheritable).
INIT_FILE_ACTIONS = [(os.POSIX_SPAWN_CLOSE, fd) for fd in range(CTRL_FD + 1)]
ARG_START_FIELD = 45                # arg_start's index in /proc/self/stat after the command's ")" (arg_end follows)


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


# Every foreign function a run calls is looked up and typed here, once: the first call in a fork would allocate (and
# so copy pages of) what ctypes builds for it.
LIBC.capset.argtypes = [ctypes.POINTER(CapHeader), ctypes.POINTER(CapData)]
NO_CAPABILITIES = (CapHeader(CAPABILITY_VERSION_3, 0), (CapData * 2)())


class SetupError(Exception):
    """The sandbox of a run could not be made (never the program's doing)."""


def libc(result, what):
    if result != 0:
        error = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(error)}")


def mount(source, target, fstype=None, flags=0, data=None):
    libc(LIBC.mount(source and source.encode(), target.encode(), fstype and fstype.encode(), flags,
                    data and data.encode()), f"mount {target}")


def block_user_namespaces():
    """No user namespace below this one: as bubblewrap's --disable-userns, but for the zygote's whole tree."""
    with open("/proc/sys/user/max_user_namespaces", "w") as f:
        f.write("0")


def unraisable_args_type():
    """sys.UnraisableHookArgs, which Python does not name: what sys.unraisablehook is called with."""
    seen, hook = [], sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        type("Unraisable", (), {"__del__": lambda self: 1 / 0})()
    finally:
        sys.unraisablehook = hook
    return type(seen[0])


def unraisable(error, traceback, culprit):
    """Report an exception the way the interpreter does when it cannot raise it (PyErr_WriteUnraisable)."""
    sys.unraisablehook(UNRAISABLE((type(error), error, traceback, None, culprit)))


def show_command_line(argv):
    """/proc/<pid>/cmdline of the program's process says what runs (the run's argv, NUL-padded in the zygote's own
    argv area), not the zygote: as `ps` shows a fresh run, and so that an operator's `pkill -f zygote.py` takes the
    zygotes (a death the server tells from the program's) and never a program (a SIGKILL it cannot tell from the
    program's own)."""
    with open("/proc/self/stat", "rb") as stat_file:
        fields = stat_file.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[ARG_START_FIELD]), int(fields[ARG_START_FIELD + 1])
    room = end - start
    text = b"\0".join(os.fsencode(arg) for arg in argv)[:room - 1]
    ctypes.memmove(start, text.ljust(room, b"\0"), room)


def program(request, fds, report):
    """The program's process (pid 2 of the run's pid namespace), up to its first line: its mount and IPC namespaces,
    limits, no privileges, its streams and a fresh interpreter."""
    workspace = f"{SANDBOX}/{request['workspace']}"
    libc(LIBC.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount(f"{workspace}/tmp", "/tmp", None, MS_BIND)        # before the box hides the slot's workspaces
    mount(f"{workspace}/box", SANDBOX, None, MS_BIND)
    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755")
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.setsid()
    limits = request["limits"]
    for name, resource_id in RLIMITS:
        soft = limits[name]
        resource.setrlimit(resource_id, (soft, soft + (1 if name == "cpu" and soft >= 0 else 0)))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    libc(LIBC.capset(*NO_CAPABILITIES), "capset")
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.chdir(SANDBOX)
    directory, placed = SANDBOX, ()
    if request["split"] is not None:
        side, placed = split_sides(request["split"], report)
        directory = f"{SANDBOX}/{side}"
        os.chdir(directory)
    argv, script = request["argv"], request["script"]
    show_command_line(argv)
    path = f"{directory}/{argv[script]}"
    sys.orig_argv = list(argv)
    sys.argv = argv[script:]
    sys.path[0] = directory
    sys.path_importer_cache.pop(SCRIPT_DIR, None)
    if len(sys.modules) != len(FRESH):      # the zygote imported something since it started (it never removes)
        for name in [name for name in sys.modules if name not in FRESH]:
            del sys.modules[name]
    main = type(sys)("__main__")
    main.__annotations__ = {}
    main.__builtins__ = builtins
    main.__file__ = path
    main.__cached__ = None
    main.__loader__ = sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", path)
    sys.modules["__main__"] = main
    # dumpable, as a fresh process is (its /proc/self files its uid's): last, the zygote's descriptors closed next
    libc(LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
    os.write(report, b"S")
    CTRL.detach()
    for target, fd in enumerate(placed, 3):     # fd 3 was CTRL's: no placed descriptor is ever 3 before this
        os.dup2(fd, target)
    os.closerange(3 + len(placed), 1 << 20)
    return main, path


def split_sides(may_fork, report):
    """A split's two processes, as pair.c starts them (docs/guards.md, "Two processes"), from the workspace: this one
    goes on as the tests' (in TESTS_DIR, empty stdin, the calls written on fd 3 and the replies read on fd 4), a fork
    as the program's (in PROGRAM_DIR, the calls its stdin, the replies its stdout), confined by pair's own code before
    its first line: Landlock, and seccomp unless it may fork. The tests' start waits for the program's (its report
    then goes where the program's would: an error there is the sandbox's). Returns the side and the descriptors it
    places at 3 and up."""
    calls_r, calls_w = os.pipe()
    replies_r, replies_w = os.pipe()
    started_r, started_w = os.pipe()
    if os.fork() == 0:
        os.dup2(started_w, report)          # the program's start is told to the tests', which tell the zygote
        for fd in (started_r, started_w, calls_w, replies_r):
            os.close(fd)
        PAIR.confine_files()                # from the workspace; a failure exits 125, pair's reason on stderr
        os.dup2(calls_r, 0)
        os.dup2(replies_w, 1)
        os.close(calls_r)
        os.close(replies_w)
        if not may_fork:
            PAIR.confine_processes()
        return PROGRAM_DIR, ()
    for fd in (started_w, calls_r, replies_w):
        os.close(fd)
    said = read_all(started_r)
    os.close(started_r)
    if said != b"S":
        raise SetupError(f"the program's side did not start: {said.decode(errors='replace') or 'it ended first'}")
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return TESTS_DIR, (calls_w, replies_r)


def serve():
    """Start a run per request; answer with how its program ended. Returns only in a program's process."""
    ctrl = CTRL
    own_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    ctrl.send(b"ready")
    while True:
        message, fds = receive(ctrl)
        if not message:
            os._exit(0)
        for fd in fds:                  # the program's and the run's groups, not its init's
            os.set_inheritable(fd, False)
        fds, groups = fds[:STD_FDS], fds[STD_FDS:]
        request = json.loads(message)
        report_r, report = os.pipe()
        init = pid = None
        try:
            if groups:                                      # born in the run's group (cgroup_v2.py)
                os.write(groups[0], b"0")
            libc(LIBC.unshare(CLONE_NEWPID), "unshare the pid namespace")
            # pid 1 of the run's namespace, born with the signals it waits for blocked: an init drops a signal it
            # neither blocks nor handles, and SIGUSR1 may come before its first instruction
            init = os.posix_spawn(INIT, [INIT], {}, setsigmask=INIT_SIGNALS, file_actions=INIT_FILE_ACTIONS)
            pid = os.fork()                                 # the program: pid 2
        except (SetupError, OSError) as e:
            error = str(e)
        if pid != 0 and groups:     # back home, whatever happened (a failure ends the zygote: the run goes again)
            os.write(groups[1], b"0")
        if pid == 0:
            try:
                os.close(report_r)
                return program(request, fds, report)
            except BaseException as e:  # whatever stops the setup, the run never started
                os.write(report, f"{type(e).__name__}: {e}".encode(errors="replace"))
                os._exit(1)
        libc(LIBC.setns(own_pid_namespace, CLONE_NEWPID), "setns back to the zygote's pid namespace")
        for fd in (*fds, *groups, report):
            os.close(fd)
        usages = []
        if pid is None:
            answer = {"started": False, "error": error}
        else:
            _, status, usage = os.wait4(pid, 0)
            usages.append(usage)
            said = read_all(report_r)
            answer = {"started": said == b"S", "error": said.decode(errors="replace"),
                      "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status)
                      else SIGNAL_EXIT + os.WTERMSIG(status)}
            if request["split"] is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
                answer["exit_code"] = 1     # the tests killed, as pair.c has it: their failure, never a sandbox death
        if init is not None:
            os.kill(init, signal.SIGUSR1)                   # it kills and reaps every process the program left
            _, init_status, usage = os.wait4(init, 0)       # with what they used
            usages.append(usage)
            if os.WIFSIGNALED(init_status):     # killed from outside (a run cannot signal its namespace's init): the
                answer["init_killed"] = True    # program died with its namespace, not of its own doing
        answer["usage"] = [sum(round((u.ru_utime + u.ru_stime) * 1e9) for u in usages),
                           max((u.ru_maxrss for u in usages), default=0)]
        os.close(report_r)
        ctrl.send(json.dumps(answer).encode())


def receive(ctrl):
    """A request and its file descriptors: socket.recv_fds without the `import array` it makes on every call."""
    message, ancillary, _, _ = ctrl.recvmsg(1 << 16, socket.CMSG_LEN((STD_FDS + 2) * FD_BYTES))
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % FD_BYTES])
    return message, list(fds)


def _unreadable(path):
    error = ctypes.get_errno()
    raise OSError(error, os.strerror(error), path)


def read_all(fd):
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def exit_status(code):
    """What the interpreter makes of SystemExit(code): None 0, an int itself, anything else printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if -(1 << 63) <= code < 1 << 63 else 0xFF
    stream = sys.stderr
    if stream is None:
        os.write(2, f"{code}\n".encode(errors="backslashreplace"))
    else:
        stream.write(f"{code}\n")
    return 1


def report_uncaught(error):
    """PyErr_Print: sys.last_*, then sys.excepthook, without this module's frame."""
    traceback = error.__traceback__.tb_next
    error.__traceback__ = traceback
    sys.last_type, sys.last_value, sys.last_traceback = type(error), error, traceback
    hook = getattr(sys, "excepthook", None)
    try:
        if hook is None:
            sys.stderr.write("sys.excepthook is missing\n")
            hook = sys.__excepthook__
        hook(type(error), error, traceback)
    except SystemExit as exit_:
        finish(exit_status(exit_.code))
    except BaseException as hook_error:
        sys.stderr.write("Error in sys.excepthook:\n")
        hook_error.__traceback__ = hook_error.__traceback__.tb_next
        sys.__excepthook__(type(hook_error), hook_error, hook_error.__traceback__)
        sys.stderr.write("\nOriginal exception was:\n")
        sys.__excepthook__(type(error), error, traceback)


def flushed(stream, report):
    """Flush as the interpreter does at exit; False if that failed (exit status 120)."""
    if stream is None or getattr(stream, "closed", False):
        return True
    try:
        stream.flush()
    except Exception as error:  # whatever the stream raises (from C: no frame of ours to show)
        if report:
            unraisable(error, None, stream)
        return False
    return True


def clear_module(module):
    """_PyModule_ClearDict: names with one leading underscore to None first, then all others but __builtins__."""
    namespace = vars(module)
    for pass_ in (1, 2):
        for name in list(namespace):
            single = name.startswith("_") and not name.startswith("__")
            if name != "__builtins__" and (single if pass_ == 1 else True):
                namespace[name] = None


def finish(status, interrupted=False):
    """Py_FinalizeEx as far as a program can tell, then _exit."""
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException as error:  # reported, as the interpreter does
            unraisable(error, error.__traceback__.tb_next, threading)
    ATEXIT._run_exitfuncs()
    ok = flushed(sys.stdout, True) & flushed(sys.stderr, False)
    for module in {id(m): m for m in (MAIN, sys.modules.get("__main__")) if isinstance(m, type(sys))}.values():
        clear_module(module)
    gc.collect()
    ok = flushed(sys.__stdout__, False) & flushed(sys.__stderr__, False) & ok
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(status if ok else 120)


import atexit as ATEXIT  # noqa: E402

CTRL = socket.socket(fileno=CTRL_FD)
UNRAISABLE = unraisable_args_type()
WARM = WarmModules(MODULES, IMPORTS)
libc(LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")
with open("/proc/sys/kernel/cap_last_cap") as _file:
    for _capability in range(int(_file.read()) + 1):    # nothing below may ever gain one (runs drop the rest)
        libc(LIBC.prctl(PR_CAPBSET_DROP, _capability, 0, 0, 0), "drop the bounding set")
block_user_namespaces()
del _file, _capability
FD_BYTES = array.array("i").itemsize
for _name in [name for name in sys.modules if name not in FRESH]:  # as runs start; the zygote's own are in its names
    del sys.modules[_name]
sys.meta_path.insert(0, WARM)
sys.path_importer_cache.pop(SCRIPT_DIR, None)
del _name
gc.collect()
gc.freeze()
MAIN, PATH = serve()
_uncaught = None
try:   # parsed from the file, as `python3 main.py` does (a NUL byte ends a line there)
    PYTHON_API.PyRun_FileExFlags(LIBC.fopen(PATH.encode(), b"rb") or _unreadable(PATH), PATH.encode(),
                                 PY_FILE_INPUT, vars(MAIN), vars(MAIN), 1, None)
except SystemExit as _exit:
    finish(exit_status(_exit.code))
except BaseException as _error:
    _uncaught = _error
if _uncaught is not None:   # reported outside the handler: an excepthook's own error has no context here either
    report_uncaught(_uncaught)
    finish(1, isinstance(_uncaught, KeyboardInterrupt))
finish(0)
