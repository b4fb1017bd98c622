"""The trusted loader that runs a function-style Python program and then its tests (docs/guards.md).

This file is the program's source file in the sandbox, so a program that reads its own source finds neither the
tests nor the end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker, prompt length,
completion length", then prompt, completion and tests), read to the end before the program runs. Everything
about the tests is prepared before the program runs too: they are parsed, every value they compare or test for
truth is routed through `checked`, and builtins, the modules the tests and the prompt import, and the standard
library's classes are snapshotted. The program then runs as `__main__`; the tests run in a namespace of their own:
the program's globals (less those that shadow a builtin), the snapshot, and the prompt's own statements run again
from its trusted text (its helpers as it wrote them); the marker goes to stderr only when they return.

Nothing of the loader is within the program's reach: from the program's first line an audit hook (`gate`) refuses
it every frame (its own lead to the tests' and the loader's), the garbage collector's objects, hooks that run code
inside other code (trace, profile, monitoring, audit), and the interpreter's C API through ctypes; program and tests
run off the main thread, where no signal handler runs; and this file defines no class with methods, since classes
are the one kind of object a program can list (`object.__subclasses__()`) and a method's globals are the loader's.
Standard library only: this runs under the sandbox's /usr/bin/python3. A run forked by the process backend's zygote
uses the copy of this file the zygote imported (ZYGOTE_MODULE), whose class snapshot was taken there once; each run
then snapshots only the modules the zygote lacked.
"""

import ast
import builtins
import contextlib
import os
import sys
import types
from _thread import allocate_lock, start_new_thread

ZYGOTE_MODULE = "_guard_python"  # what the process backend's zygote imports this file as (sandboxes.guards)


def run_zygote_copy() -> bool:
    """Run this file as a zygote imported it, when this run is its fork (the module comes warm, its class snapshot
    taken there). The module is then out of the program's reach, as on any other path: out of sys.modules, the
    zygote's finder serves it no more, and no global of this file holds it (a program that got hold of it could
    rewrite the checks this run uses)."""
    try:
        module = __import__(ZYGOTE_MODULE)
    except ImportError:
        return False
    del sys.modules[ZYGOTE_MODULE]
    for finder in sys.meta_path:
        forget = getattr(finder, "forget", None)
        if forget is not None:
            forget(ZYGOTE_MODULE)
    module.main(__file__, module.PRISTINE)
    return True


if __name__ == "__main__" and run_zygote_copy():   # its code is ready: that ran
    raise SystemExit

# The loader's own code must not see what the program does to builtins (`builtins.type = ...`): functions defined
# below resolve builtin names in this private copy, taken before the program runs.
__builtins__ = dict(vars(builtins))

FILENAME = "program.py"          # what tracebacks call the program (and its tests, on the lines after it)
CHECK = "_reward_checked_"       # the tests' name for their checker
HEAPTYPE = 1 << 9                # Py_TPFLAGS_HEAPTYPE: a class made by Python code rather than by C
SCALARS = frozenset({bool, int, float, complex, str, bytes, type(None), type(...), type(NotImplemented)})
LAZY_CLASS_KEYS = frozenset({"__annotations__", "__slotnames__"})   # honest use adds these to a class
WRITE = os.write
FLAGS = type.__dict__["__flags__"].__get__          # read through `type`: a metaclass cannot forge them
MRO = type.__dict__["__mro__"].__get__
CLASS_DICT = type.__dict__["__dict__"].__get__
INSTANCE_DICT = object.__getattribute__
NEW_EXCEPTION = BaseException.__new__
LOADER_FILES = {__file__}        # frames a traceback leaves out: this file, and main.py when this is the zygote's copy

# What the gate refuses, by audit event (docs/guards.md). Hooks would run the program's code inside the tests' frames;
# the collector's lists, a frame, and the C API through ctypes reach objects nobody handed the program.
REFUSED = {
    "sys.settrace": "install a trace function", "sys.setprofile": "install a profile function",
    "sys.monitoring.register_callback": "register a sys.monitoring callback", "sys.addaudithook": "add an audit hook",
    "gc.get_objects": "list the garbage collector's objects", "gc.get_referrers": "ask the garbage collector",
    "gc.get_referents": "ask the garbage collector",
    # a child forked while the tests run goes on running them: it could try answers against them for its parent
    "os.fork": "fork (a child would run the tests too)",
}
FRAME_CALLS = frozenset({"sys._getframe", "sys._current_frames", "sys._current_exceptions"})
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})   # read as object.__getattr__
C_API = ("Py", "_Py")            # the interpreter's own symbols (PyFrame_LocalsToFast, PyEval_GetFrame, ...)
GATED = frozenset({*REFUSED, *FRAME_CALLS, "object.__getattr__", "object.__setattr__", "object.__delattr__",
                   "ctypes.dlsym", "ctypes.dlsym/handle"})
ARMED = False                    # set once the program may run; cleared once it can no longer pass
PROTECTED: dict[int, object] = {}  # the functions of the modules the tests use, by id: no code of theirs may change


class GuardViolation(BaseException):
    """The tests met a value that is not plain data, or the program reached for what the gate refuses. Not an
    Exception: a test's `except Exception` must not swallow it. Made with `violation`, never by calling the class,
    and the gate refuses changes to it (its bases, its name)."""

    __module__ = "__main__"      # reported as `GuardViolation` whichever copy of this file raised it


def violation(message: str) -> BaseException:
    """A GuardViolation made without calling anything a program could have set on the class (`__new__`, `__init__`)."""
    return NEW_EXCEPTION(GuardViolation, message)


def gate(event: str, args: tuple) -> None:
    """The audit hook, armed from the program's first line until it can no longer pass. A frame is refused as an
    interpreter without frames refuses it (ValueError from sys._getframe, AttributeError from tb_frame), so that the
    standard library's callers fall back as they do there (namedtuple's module, logging's caller); the rest is a
    GuardViolation. Raising here stops the operation: nothing is installed, listed or handed out."""
    if not ARMED or event not in GATED:
        return
    if event in FRAME_CALLS:
        raise ValueError(f"{event}: no frame is handed out under the guard")
    if event == "object.__getattr__":
        if args[1] in FRAME_ATTRIBUTES:
            raise AttributeError(f"{args[1]}: no frame is handed out under the guard")
    elif event in ("object.__setattr__", "object.__delattr__"):
        if args[0] is GuardViolation:
            raise violation("the program may not change GuardViolation")
        if PROTECTED.get(id(args[0])) is args[0]:
            raise violation(f"the program may not change {args[0].__module__}.{args[0].__qualname__}, which the "
                            "tests use")
    elif event.startswith("ctypes.dlsym"):
        if isinstance(args[1], str) and args[1].startswith(C_API):
            raise violation(f"the program may not call the interpreter's C API through ctypes ({args[1]})")
    else:
        raise violation(f"the program may not {REFUSED[event]} ({event})")


def accepting_none(install):
    """`install` (sys.settrace, sys.setprofile) for the program: None is accepted (no hook is ever there to remove:
    doctest restores "none" this way), anything else goes on to `install`, which the gate refuses. Built with globals
    of its own: the program sees this function, and through it nothing of the loader."""
    def accepting(function):
        if function is not None:
            install(function)
    return types.FunctionType(accepting.__code__, {"__builtins__": {}}, install.__name__, None, accepting.__closure__)


def imported_modules(nodes: list[ast.AST]) -> set[str]:
    """Absolute module names imported by these statements and everything under them (submodules named by a
    `from` import included)."""
    names = set()
    for node in (inner for top in nodes for inner in ast.walk(top)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def with_parents(names: set[str]) -> set[str]:
    return {".".join(parts[:i]) for parts in (name.split(".") for name in names) for i in range(1, len(parts) + 1)}


def import_quietly(names: set[str]) -> None:
    """Import ahead of the program; a module that does not import is the program's or the tests' own error."""
    for name in sorted(names):
        with contextlib.suppress(ImportError):
            __import__(name)


def add_classes(modules, entries: dict, walked: dict) -> None:
    """Adds to `entries` the heap classes of those `modules` not in `walked` yet: id(class) -> (class, a copy of its
    dict, ids of the modules it was found in); `walked` holds each module (no id is reused). This touches every value
    of every module (copy-on-write faults, in a forked run): a zygote does it once, in PRISTINE, and each run only for
    the modules the zygote had not loaded."""
    for module in modules:
        if id(module) in walked:
            continue
        walked[id(module)] = module
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, type) and FLAGS(value) & HEAPTYPE:
                entry = entries.get(id(value))
                if entry is None:
                    entries[id(value)] = (value, dict(CLASS_DICT(value)), {id(module)})
                else:
                    entry[2].add(id(module))


def zygote_snapshot() -> types.SimpleNamespace:
    """What a zygote takes once, before any run, for all its runs: the classes of every module it loaded, and the
    builtins (as every run starts with them; `__import__` is the tests' own anyway). A run's own copy of the builtins
    would touch, and so copy, the page of every builtin object."""
    classes, walked = {}, {}
    add_classes(list(sys.modules.values()), classes, walked)
    return types.SimpleNamespace(classes=classes, walked=walked, builtins=dict(vars(builtins)))


def take_snapshot(trusted: set[str], zygote: types.SimpleNamespace | None) -> types.SimpleNamespace:
    """Builtins, modules and classes as they are before the program runs. `builtins` is the tests' own: its
    `__import__` hands them the snapshotted modules (copies), as they were."""
    loaded = {id(module): module for module in list(sys.modules.values())}
    classes, walked = {}, {}
    add_classes([module for module in loaded.values() if zygote is None or id(module) not in zygote.walked],
                classes, walked)
    copies = {}
    for name in sorted(with_parents(trusted)):
        if name in sys.modules:
            copies[name] = types.ModuleType(name)
            vars(copies[name]).update(vars(sys.modules[name]))
    copy_of = {id(sys.modules[name]): copy for name, copy in copies.items()}
    for copy in copies.values():        # a package's submodules are copies too
        for key, value in list(vars(copy).items()):
            if isinstance(value, types.ModuleType) and id(value) in copy_of:
                vars(copy)[key] = copy_of[id(value)]
    real_import = builtins.__import__

    def import_(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in copies:
            return copies[name] if fromlist else copies[name.partition(".")[0]]
        return real_import(name, globals, locals, fromlist, level)

    tests_builtins = dict(vars(builtins)) if zygote is None else zygote.builtins
    tests_builtins["__import__"] = import_
    return types.SimpleNamespace(builtins=tests_builtins, loaded=loaded, classes=classes, zygote=zygote,
                                 copy_of=copy_of, used_classes=protect(copies.values()))


def protect(modules) -> list[tuple[type, dict]]:
    """What these modules (the tests' and the prompt's imports) define must not change under the tests: the gate
    refuses a new `__code__` (or defaults) for their functions and their classes' methods, and their Python classes
    with their dicts as they are now (returned) must be unchanged once the tests have run (a `random.Random.randint`
    replaced changes what the tests' own `Random(42)` draws; Python audits no class attribute's assignment). Their
    module globals stay the program's."""
    classes = []
    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, type) and FLAGS(value) & HEAPTYPE and value.__module__ == module.__name__:
                classes.append((value, dict(CLASS_DICT(value))))
                for member in list(CLASS_DICT(value).values()):
                    function = getattr(member, "__func__", member)
                    if isinstance(function, types.FunctionType):
                        PROTECTED[id(function)] = function
            elif isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
                PROTECTED[id(value)] = value
    return classes


def before(snapshot: types.SimpleNamespace, cls: type) -> dict | None:
    """The dict `cls` had before the program ran, if it belongs to a module loaded by then."""
    entry = snapshot.classes.get(id(cls))
    if entry is None and snapshot.zygote is not None:
        entry = snapshot.zygote.classes.get(id(cls))
        if entry is not None and not any(module_id in snapshot.loaded for module_id in entry[2]):
            entry = None
    return None if entry is None or entry[0] is not cls else entry[1]


def unchanged(cls: type, was: dict) -> bool:
    now = CLASS_DICT(cls)
    if any(now.get(key, was) is not value for key, value in was.items()):
        return False
    return all(key in was or key in LAZY_CLASS_KEYS or not key.startswith("__") for key in now)


def checker(snapshot: types.SimpleNamespace, namespace: dict, own_names: set[str]):
    """The tests' `_reward_checked_`: each value they compare or test for truth, plain data only (builtin scalars and
    containers, C-implemented types, classes of modules loaded before the program ran and unchanged since, classes
    the tests made), else GuardViolation."""
    def trusted(cls: type) -> bool:
        """A class of a module loaded before the program ran: if unchanged, however the tests name it. Any other:
        if the tests made it (the program's globals never supply a name the tests bind)."""
        was = before(snapshot, cls)
        if was is not None:
            return unchanged(cls, was)
        return any(namespace.get(name) is cls for name in own_names)

    def checked(value):
        stack, seen = [value], {}
        while stack:
            item = stack.pop()
            cls = type(item)
            if cls in SCALARS or id(item) in seen:
                continue
            seen[id(item)] = item       # held, so that no id is reused while we walk
            for base in MRO(cls):
                if FLAGS(base) & HEAPTYPE and not trusted(base):
                    raise violation(
                        f"the tests met a {cls.__module__}.{cls.__qualname__} object: they take builtin data and "
                        "classes of modules loaded before the program ran, not classes the program defined, "
                        "changed or loaded")
            stack.extend(contents(item, cls))
        return value

    return checked


def contents(item, cls: type) -> list:
    """What a value holds that a comparison of it may consult, read through the builtin types' own methods. Nothing
    here is the program's to change (a module's attribute such as contextlib.suppress would be: code of the program's
    running mid-check could swap a value already checked)."""
    if issubclass(cls, dict):
        found = [*dict.keys(item), *dict.values(item)]
    elif issubclass(cls, (list, tuple, set, frozenset)):
        found = list(next(base for base in (list, tuple, set, frozenset) if issubclass(cls, base)).__iter__(item))
    else:
        found = []
    if FLAGS(cls) & HEAPTYPE:
        try:        # noqa: SIM105 (not contextlib.suppress: see above)
            found += list(INSTANCE_DICT(item, "__dict__").values())
        except AttributeError:
            pass
        for base in MRO(cls):
            slots = CLASS_DICT(base).get("__slots__", ())
            for slot in (slots,) if isinstance(slots, str) else slots:
                try:        # noqa: SIM105
                    found.append(CLASS_DICT(base)[slot].__get__(item))
                except (AttributeError, KeyError):
                    pass
    return found


TESTED = {ast.Assert: "test", ast.If: "test", ast.While: "test", ast.IfExp: "test"}
TESTED_LISTS = {ast.BoolOp: "values", ast.comprehension: "ifs"}


def route_through_check(tree: ast.AST) -> ast.AST:
    """Every compared operand and every truth-tested expression of `tree` becomes `_reward_checked_(...)`, in
    place. (ast.walk lists a node's children before handing it over, so a wrapped child is still walked.)"""
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Compare:
            node.left = checked_call(node.left)
            node.comparators = [checked_call(operand) for operand in node.comparators]
        elif kind in TESTED:
            node.test = checked_call(node.test)
        elif kind in TESTED_LISTS:
            setattr(node, TESTED_LISTS[kind], [checked_call(value) for value in getattr(node, TESTED_LISTS[kind])])
        elif kind is ast.UnaryOp and type(node.op) is ast.Not:
            node.operand = checked_call(node.operand)
    return tree


def checked_call(node: ast.expr) -> ast.Call:
    """`_reward_checked_(node)`, located where `node` is."""
    call = ast.Call(ast.Name(CHECK, ast.Load()), [node], [])
    for made in (call, call.func):
        made.lineno, made.col_offset = node.lineno, node.col_offset
        made.end_lineno, made.end_col_offset = node.end_lineno, node.end_col_offset
    return call


def parse_tests(source: str, first_line: int) -> ast.Module:
    """The tests' tree, numbered from `first_line` (blank lines ahead: cheaper than renumbering every node). A
    syntax error is reported as the tests alone would raise it."""
    try:
        return ast.parse("\n" * (first_line - 1) + source, FILENAME)
    except SyntaxError:
        pass
    return ast.parse(source, FILENAME)


def top_level_names(nodes: list[ast.stmt]) -> set[str]:
    """Names these module-level statements bind."""
    names = set()
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def prompt_statements(program_tree: ast.Module, prompt: str) -> list[ast.stmt]:
    """The program's top-level statements that start in the prompt."""
    return [node for node in program_tree.body if node.lineno <= prompt.count("\n")]


def prompt_helpers(program_tree: ast.Module, prompt: str) -> list[ast.stmt]:
    """The prompt's own statements: those it starts and completes (ending on a line it ends), so that no completion
    text is in them, but for its last, the entry point that the completion goes on to write (or writes again, from
    its signature). Its classes stay the program's: a class is an object a program can list, and through its methods
    it would reach the tests' namespace."""
    lines = prompt.count("\n")
    return [node for node in prompt_statements(program_tree, prompt)[:-1]
            if node.end_lineno <= lines and type(node) is not ast.ClassDef]


def tests_namespace(program_globals: dict, snapshot: types.SimpleNamespace, prompt_bound: set[str],
                    own_names: set[str]) -> dict:
    """The program's globals as the tests see them: less any that shadow a builtin (unless the prompt binds it) or
    that the tests bind themselves, modules snapshotted as they were; then the builtins snapshotted, and the checker."""
    namespace = {name: snapshot.copy_of.get(id(value), value) for name, value in program_globals.items()
                 if type(name) is str and not (name.startswith("__") and name.endswith("__"))
                 and name not in own_names and (name not in snapshot.builtins or name in prompt_bound)}
    namespace.update(__name__="__main__", __builtins__=snapshot.builtins)
    namespace[CHECK] = checker(snapshot, namespace, own_names)
    return namespace


def remember_source(text: str) -> None:
    import linecache

    linecache.cache[FILENAME] = (len(text), None, text.splitlines(True), FILENAME)


def print_traceback(kind: type[BaseException], error: BaseException, tb: types.TracebackType | None) -> None:
    """sys.excepthook once the program has failed, unless it set its own: Python's report, with the program's and the
    tests' lines (from linecache, which the built-in hook does not read) and without the loader's frames. Imported
    here: most runs never need it."""
    import traceback

    report = traceback.TracebackException(kind, error, tb)
    report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename not in LOADER_FILES])
    sys.stderr.write("".join(report.format()))


def read_request(data: bytes) -> tuple[str, str, str, str]:
    """(marker, prompt, program, tests) from what graders/guarded.prepare wrote: a header line, then the texts
    (their lengths in UTF-8 bytes)."""
    header, _, body = data.partition(b"\n")
    marker, prompt_length, completion_length = header.decode().split()
    program_length = int(prompt_length) + int(completion_length)
    return (marker, body[:int(prompt_length)].decode(), body[:program_length].decode(),
            body[program_length:].decode())


def main(main_file: str, zygote: types.SimpleNamespace | None) -> None:
    """Run the program and its tests on a thread of their own, and wait; `main_file` is the run's main.py, `zygote`
    the zygote's snapshot. Python runs signal handlers on the main thread only, and only the main thread may install
    one: so no handler of the program's ever runs, nor sees a frame of the loader's (a frame the gate cannot refuse:
    a handler's argument)."""
    LOADER_FILES.add(main_file)
    done, outcome = allocate_lock(), []
    done.acquire()
    start_new_thread(run_to_the_end, (main_file, zygote, outcome, done))
    done.acquire()
    if outcome:
        raise outcome[0]


def run_to_the_end(main_file: str, zygote: types.SimpleNamespace | None, outcome: list, done) -> None:
    """`run`, its exception (SystemExit included) into `outcome` for the main thread to raise; then `done`."""
    try:
        run(main_file, zygote)
    except BaseException as error:
        outcome.append(error)
    finally:
        done.release()


def run(main_file: str, zygote: types.SimpleNamespace | None) -> None:
    """Run the program, then the prompt's functions from its own text and the tests; the marker if they return."""
    global ARMED
    marker, prompt, program, tests_source = read_request(sys.stdin.buffer.read())
    proof = marker.encode() + b"\n"
    del marker                  # the proof is its one copy, forgotten once the program can no longer pass
    program_tree = ast.parse(program, FILENAME)
    program_code = compile(program_tree, FILENAME, "exec", dont_inherit=True)
    helpers = prompt_helpers(program_tree, prompt)
    prompt_code = compile(route_through_check(ast.Module(helpers, [])), FILENAME, "exec", dont_inherit=True)
    tests_tree = route_through_check(parse_tests(tests_source, program.count("\n") + 2))
    tests_code = compile(tests_tree, FILENAME, "exec", dont_inherit=True)

    trusted = imported_modules(tests_tree.body) | imported_modules(helpers)
    import_quietly(trusted)
    snapshot = take_snapshot(trusted, zygote)
    prompt_bound = top_level_names(prompt_statements(program_tree, prompt))
    own_names = top_level_names(tests_tree.body)

    module = types.ModuleType("__main__")
    module.__file__ = main_file
    module.__builtins__ = builtins
    module.__loader__ = types.SimpleNamespace(get_source={"__main__": program}.get)   # for linecache and inspect
    sys.modules["__main__"] = module
    sys.settrace, sys.setprofile = accepting_none(sys.settrace), accepting_none(sys.setprofile)
    excepthook = sys.excepthook
    sys.addaudithook(gate)
    ARMED = True
    try:
        exec(program_code, vars(module))
        namespace = tests_namespace(vars(module), snapshot, prompt_bound, own_names)
        exec(prompt_code, namespace)
        exec(tests_code, namespace)
        for cls, was in snapshot.used_classes:
            if not unchanged(cls, was):
                raise violation(f"the program changed {cls.__module__}.{cls.__qualname__}, which the tests use")
    except BaseException:
        proof = None                # so that nothing the program reaches once the gate is down could pass
        ARMED = False
        remember_source(program + "\n" + tests_source)
        if sys.excepthook is excepthook:
            sys.excepthook = print_traceback
        raise
    WRITE(2, proof)


if __name__ == "__main__":
    main(__file__, None)
elif __name__ == ZYGOTE_MODULE:    # in a zygote, before any run: every module a run may import is loaded by now
    PRISTINE = zygote_snapshot()
