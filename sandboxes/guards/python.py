"""The trusted loader that runs a function-style Python program and then its tests (docs/guards.md).

This file is the program's source file in the sandbox, so a program that reads its own source finds neither the
tests nor the end-of-tests marker: both arrive on stdin (python_guard.prepare: a line "marker, prompt length,
completion length", then prompt, completion and tests), read to the end before the program runs. Everything
about the tests is prepared before the program runs too: they are parsed, every value they compare or test for
truth is routed through `Guard.checked`, and builtins, the modules the tests and the prompt import, and the
standard library's classes are snapshotted. The program then runs as `__main__`; the tests run in a namespace of
their own (the program's globals, less those that shadow a builtin, over the snapshot); the marker goes to
stderr only when they return. Standard library only: this runs under the sandbox's /usr/bin/python3. A run forked
by the process backend's zygote uses the copy of this file the zygote imported (ZYGOTE_MODULE), whose class snapshot
was taken there once; each run then snapshots only the modules the zygote lacked.
"""

import ast
import builtins
import contextlib
import os
import sys
import types

ZYGOTE_MODULE = "_guard_python"  # what the process backend's zygote imports this file as (sandboxes.guards)


def zygote_copy():
    """This file as a zygote imported it, when this run is its fork (the module comes warm, its class snapshot
    taken there), else None. Then out of the program's reach, as on any other path: out of sys.modules, and the
    zygote's finder serves it no more (a program that imported it could rewrite the checks this run uses)."""
    try:
        module = __import__(ZYGOTE_MODULE)
    except ImportError:
        return None
    del sys.modules[ZYGOTE_MODULE]
    for finder in sys.meta_path:
        forget = getattr(finder, "forget", None)
        if forget is not None:
            forget(ZYGOTE_MODULE)
    return module


if __name__ == "__main__" and (ZYGOTE_COPY := zygote_copy()) is not None:   # its code is ready: run that
    ZYGOTE_COPY.main(__file__, ZYGOTE_COPY.PRISTINE)
    raise SystemExit

# The loader's own code must not see what the program does to builtins (`builtins.type = ...`): functions defined
# below resolve builtin names in this private copy, taken before the program runs.
__builtins__ = dict(vars(builtins))

FILENAME = "program.py"          # what tracebacks call the program (and its tests, on the lines after it)
CHECK = "_reward_checked_"       # the tests' name for Guard.checked
HEAPTYPE = 1 << 9                # Py_TPFLAGS_HEAPTYPE: a class made by Python code rather than by C
SCALARS = frozenset({bool, int, float, complex, str, bytes, type(None), type(...), type(NotImplemented)})
LAZY_CLASS_KEYS = frozenset({"__annotations__", "__slotnames__"})   # honest use adds these to a class
WRITE = os.write
FLAGS = type.__dict__["__flags__"].__get__          # read through `type`: a metaclass cannot forge them
MRO = type.__dict__["__mro__"].__get__
CLASS_DICT = type.__dict__["__dict__"].__get__
INSTANCE_DICT = object.__getattribute__
LOADER_FILES = {__file__}        # frames a traceback leaves out: this file, and main.py when this is the zygote's copy


class GuardViolation(BaseException):
    """The tests met a value that is not plain data. Not an Exception: a test's `except Exception` must not
    swallow it."""

    __module__ = "__main__"      # reported as `GuardViolation` whichever copy of this file raised it


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


class Classes:
    """The heap classes of some modules, each with a copy of its dict and the modules it was found in. Taking it
    touches every value of every module (copy-on-write faults, in a forked run): a zygote takes it once, in
    PRISTINE, and each run walks only the modules the zygote had not loaded."""

    def __init__(self, modules) -> None:
        self.entries = {}           # id(class) -> (class, its dict, ids of the modules it was found in)
        self.walked = {}            # id(module) -> module (held: no id is reused)
        self.add(modules)

    def add(self, modules) -> None:
        for module in modules:
            if id(module) in self.walked:
                continue
            self.walked[id(module)] = module
            for value in list(getattr(module, "__dict__", {}).values()):
                if isinstance(value, type) and FLAGS(value) & HEAPTYPE:
                    entry = self.entries.get(id(value))
                    if entry is None:
                        self.entries[id(value)] = (value, dict(CLASS_DICT(value)), {id(module)})
                    else:
                        entry[2].add(id(module))


class Pristine:
    """What a zygote snapshots once, before any run, for all its runs: the classes of every module it loaded, and
    the builtins (as every run starts with them; `__import__` is the tests' own anyway). A run's own copy of the
    builtins would touch, and so copy, the page of every builtin object."""

    def __init__(self) -> None:
        self.classes = Classes(list(sys.modules.values()))
        self.builtins = dict(vars(builtins))


class Snapshot:
    """Builtins, modules and classes as they were before the program ran. `builtins` is the tests' own."""

    def __init__(self, trusted: set[str], zygote: Pristine | None) -> None:
        self.builtins = dict(vars(builtins)) if zygote is None else zygote.builtins
        self.loaded = {id(module): module for module in list(sys.modules.values())}
        self.zygote_classes = zygote_classes = None if zygote is None else zygote.classes
        self.own = Classes(module for module in self.loaded.values()
                           if zygote_classes is None or id(module) not in zygote_classes.walked)
        self.copies = {}
        for name in sorted(with_parents(trusted)):
            if name in sys.modules:
                self.copies[name] = types.ModuleType(name)
                vars(self.copies[name]).update(vars(sys.modules[name]))
        self.copy_of = {id(sys.modules[name]): copy for name, copy in self.copies.items()}
        for copy in self.copies.values():       # a package's submodules are copies too
            for key, value in list(vars(copy).items()):
                if isinstance(value, types.ModuleType) and id(value) in self.copy_of:
                    vars(copy)[key] = self.copy_of[id(value)]
        self.real_import = builtins.__import__

    def import_(self, name, globals=None, locals=None, fromlist=(), level=0):
        """`__import__` for the tests: the modules snapshotted, as they were."""
        if level == 0 and name in self.copies:
            return self.copies[name] if fromlist else self.copies[name.partition(".")[0]]
        return self.real_import(name, globals, locals, fromlist, level)

    def pristine(self, value):
        """A snapshotted module's copy in place of the module; anything else as it is."""
        return self.copy_of.get(id(value), value) if isinstance(value, types.ModuleType) else value

    def before(self, cls: type) -> dict | None:
        """The dict `cls` had before the program ran, if it belongs to a module loaded by then."""
        entry = self.own.entries.get(id(cls))
        if entry is None and self.zygote_classes is not None:
            entry = self.zygote_classes.entries.get(id(cls))
            if entry is not None and not any(module_id in self.loaded for module_id in entry[2]):
                entry = None
        return None if entry is None or entry[0] is not cls else entry[1]

    def unchanged(self, cls: type, before: dict) -> bool:
        now = CLASS_DICT(cls)
        if any(now.get(key, before) is not value for key, value in before.items()):
            return False
        return all(key in before or key in LAZY_CLASS_KEYS or not key.startswith("__") for key in now)


class Guard:
    """Checks each value the tests compare or test for truth: plain data only (builtin scalars and containers,
    C-implemented types, standard-library and test classes unchanged since before the program ran)."""

    def __init__(self, snapshot: Snapshot, namespace: dict, own_names: set[str]) -> None:
        self.snapshot = snapshot
        self.namespace = namespace
        self.own_names = own_names

    def checked(self, value):
        stack, seen = [value], {}
        while stack:
            item = stack.pop()
            cls = type(item)
            if cls in SCALARS or id(item) in seen:
                continue
            seen[id(item)] = item       # held, so that no id is reused while we walk
            for base in MRO(cls):
                if FLAGS(base) & HEAPTYPE and not self.trusted(base):
                    raise GuardViolation(
                        f"the tests met a {cls.__module__}.{cls.__qualname__} object: they take builtin data and "
                        "classes of modules loaded before the program ran, not classes the program defined, "
                        "changed or loaded")
            stack.extend(contents(item, cls))
        return value

    def trusted(self, cls: type) -> bool:
        """A class of a module loaded before the program ran: if unchanged, however the tests name it. Any other:
        if the tests made it (the program's globals never supply a name the tests bind)."""
        before = self.snapshot.before(cls)
        if before is not None:
            return self.snapshot.unchanged(cls, before)
        return any(self.namespace.get(name) is cls for name in self.own_names)


def contents(item, cls: type) -> list:
    """What a value holds that a comparison of it may consult, read through the builtin types' own methods."""
    if issubclass(cls, dict):
        found = [*dict.keys(item), *dict.values(item)]
    elif issubclass(cls, (list, tuple, set, frozenset)):
        found = list(next(base for base in (list, tuple, set, frozenset) if issubclass(cls, base)).__iter__(item))
    else:
        found = []
    if FLAGS(cls) & HEAPTYPE:
        with contextlib.suppress(AttributeError):
            found += list(INSTANCE_DICT(item, "__dict__").values())
        for base in MRO(cls):
            slots = CLASS_DICT(base).get("__slots__", ())
            for slot in (slots,) if isinstance(slots, str) else slots:
                with contextlib.suppress(AttributeError, KeyError):
                    found.append(CLASS_DICT(base)[slot].__get__(item))
    return found


TESTED = {ast.Assert: "test", ast.If: "test", ast.While: "test", ast.IfExp: "test"}
TESTED_LISTS = {ast.BoolOp: "values", ast.comprehension: "ifs"}


def route_through_check(tree: ast.AST) -> ast.AST:
    """Every compared operand and every truth-tested expression of the tests becomes `_reward_checked_(...)`, in
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


def prompt_imports(nodes: list[ast.stmt], snapshot: Snapshot) -> dict:
    """What the prompt's own module-level imports bind, as snapshotted (the completion may rebind the names)."""
    bound = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name if alias.asname else alias.name.partition(".")[0]
                if name in snapshot.copies:
                    bound[alias.asname or name] = snapshot.copies[name]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module in snapshot.copies:
            module = snapshot.copies[node.module]
            bound.update({alias.asname or alias.name: getattr(module, alias.name)
                          for alias in node.names if alias.name != "*" and hasattr(module, alias.name)})
    return bound


class ProgramSource:
    """The program module's `__loader__`: linecache (tracebacks, inspect) asks it for the program's lines when it
    needs them. The tests' lines reach linecache only once they have failed (`remember_source`)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def get_source(self, name: str) -> str:
        return self.text


def remember_source(text: str) -> None:
    import linecache

    linecache.cache[FILENAME] = (len(text), None, text.splitlines(True), FILENAME)


def print_traceback(kind: type[BaseException], error: BaseException, tb: types.TracebackType | None) -> None:
    """sys.excepthook until the program sets its own: Python's report, with the program's and the tests' lines
    (from linecache, which the built-in hook does not read) and without the loader's frames. Imported here: most
    runs never need it."""
    import traceback

    report = traceback.TracebackException(kind, error, tb)
    report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename not in LOADER_FILES])
    sys.stderr.write("".join(report.format()))


def read_request(text: str) -> tuple[str, str, str, str]:
    """(marker, prompt, program, tests) from what python_guard.prepare wrote: a header line, then the texts."""
    header, _, body = text.partition("\n")
    marker, prompt_length, completion_length = header.split()
    program_length = int(prompt_length) + int(completion_length)
    return marker, body[:int(prompt_length)], body[:program_length], body[program_length:]


def main(main_file: str, zygote: Pristine | None) -> None:
    """Run the program, then its tests; `main_file` is the run's main.py, `zygote` the zygote's snapshot."""
    LOADER_FILES.add(main_file)
    sys.excepthook = print_traceback
    marker, prompt, program, tests_source = read_request(sys.stdin.buffer.read().decode())
    program_tree = ast.parse(program, FILENAME)
    program_code = compile(program_tree, FILENAME, "exec", dont_inherit=True)
    tests_tree = route_through_check(parse_tests(tests_source, program.count("\n") + 2))
    tests_code = compile(tests_tree, FILENAME, "exec", dont_inherit=True)

    prompt_nodes = [node for node in program_tree.body if node.lineno <= prompt.count("\n")]
    trusted = imported_modules(tests_tree.body) | imported_modules(
        [node for node in prompt_nodes if isinstance(node, (ast.Import, ast.ImportFrom))])
    import_quietly(trusted)
    snapshot = Snapshot(trusted, zygote)
    prompt_bound = top_level_names(prompt_nodes)
    own_names = top_level_names(tests_tree.body)

    module = types.ModuleType("__main__")
    module.__file__ = main_file
    module.__builtins__ = builtins
    module.__loader__ = ProgramSource(program)
    sys.modules["__main__"] = module
    exec(program_code, vars(module))

    namespace = {name: snapshot.pristine(value) for name, value in vars(module).items()
                 if not (name.startswith("__") and name.endswith("__")) and name not in own_names
                 and (name not in snapshot.builtins or name in prompt_bound)}
    namespace.update(prompt_imports(prompt_nodes, snapshot))
    snapshot.builtins["__import__"] = snapshot.import_
    namespace.update(__name__="__main__", __builtins__=snapshot.builtins)
    namespace[CHECK] = Guard(snapshot, namespace, own_names).checked
    try:
        exec(tests_code, namespace)
    except BaseException:
        remember_source(program + "\n" + tests_source)
        raise
    WRITE(2, marker.encode() + b"\n")


if __name__ == "__main__":
    main(__file__, None)
elif __name__ == ZYGOTE_MODULE:    # in a zygote, before any run: every module a run may import is loaded by now
    PRISTINE = Pristine()
