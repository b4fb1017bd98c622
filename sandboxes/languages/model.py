"""A language as typed, immutable data, and the checks of its flat entry (what a folder's sections hold, merged:
sandboxes/languages/folders.py reads them; a docker image reads its language back from JSON).

Languages are data, not code: one entry says how a language is compiled and run. The only per-language logic here is
generic, table-driven naming of the source file and entry point for languages whose toolchain insists on it (Java:
`public class Main` must live in Main.java). The defaults of optional fields are schema.toml's, stated there once.
Standard library only: the images carry this module.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import tomllib
from collections.abc import Mapping

SCHEMA = pathlib.Path(__file__).with_name("schema.toml")
# A compile script of a language's folder runs as SCRIPT + (its text, the source file, flags...): in the script $0 is
# the source and "$@" the flags its compiles get first (a precompiled header's -I: sandboxes/toolchain_artifacts.py).
SCRIPT = ("sh", "-c")
NATIVE_CHECKER = "native"   # [grading] checker: the language's checkers run as any program


def script_command(text: str) -> tuple[str, ...]:
    """The compile command template of a compile script's text."""
    return (*SCRIPT, text, "{source}")


@dataclasses.dataclass(frozen=True)
class Harness:
    """Code around a function-style program's tests that writes the end-of-tests marker (`{marker}`) to stderr
    once they have run to the end, and only then (docs/guards.md). A language lists one per layout its tests
    come in; the first that fits the tests is used, and tests that none fits run as they are."""

    when: str = ""                  # a regex the tests must match ("": any tests)
    rewrite: tuple[str, ...] = ()   # (regex, literal replacement) applied once to the tests, which it must match
    substitute: tuple[tuple[str, str], ...] = ()  # (regex, re.sub template) pairs: every match, before rewrite
    prologue: str = ""              # between the completion and the tests
    epilogue: str = ""              # after the tests


@dataclasses.dataclass(frozen=True)
class SplitUnit:
    """What of a split's program side is compiled by itself, once per problem, and linked into each program of the
    problem: a completion then compiles only its own code (the codec costs a C++ or Java compile about what the
    program does, or three times as much). Its source is `template` with @@prefix@@ (the prompt's text before the
    declaration, which must match `prefix` whole: nothing there that a link would then see twice; its groups join the
    entry match's), @@declaration@@, @@dispatcher@@, @@codec@@ and the entry match's groups. The program's source then
    ends with `dispatcher` instead of the split's: nothing where the link provides the program's start (C++), a start
    that hands over to the unit's (Java's main). A declaration whose group `internal` matched (static, inline,
    private) is reached from nowhere else: no unit."""

    source_file: str                # its file, in the program's directory
    template: str                   # its text
    compile: tuple[str, ...]        # its compile there ({source}: source_file)
    objects: tuple[str, ...]        # what that compile leaves there (glob patterns), kept with the problem's build
    prefix: str                     # a regex the prompt before the declaration must fullmatch
    declaration: str = ""           # @@declaration@@: the entry's declaration, a template of the entry's groups
    link: tuple[str, ...] = ()      # what the program's compile command takes after it
    dispatcher: str = ""            # what the program's source ends with instead of the split's dispatcher


@dataclasses.dataclass(frozen=True)
class Split:
    """Function-style tests in a process of their own (docs/guards.md, "Two processes"): the tests' source is the
    prompt up to the last match of `entry` (its declaration of the entry function), then `stub` in its place, then
    the tests (under the language's harness); the program's is the prompt, the completion, then `dispatcher`. Each
    template may place @@codec@@ (the wire format's reader and writer in this language). In the templates @@name@@ is
    the match's group `name` (`entry`: the function's name); a typed language also parses the group `params` into
    arguments: each piece between its top-level `argument_separator`s matches `argument` (groups `type`, `name`, ...),
    and each template of `each_argument` (with @@index@@ and those groups), joined by its separator, is @@<its key>@@.
    """

    entry: str                      # a regex matching the prompt's declaration of the entry function
    stub: str                       # the tests' side: the function, its calls sent across, results read back
    dispatcher: str                 # the program's side: calls read, the function called, results written
    codec: str = ""                 # the wire format's reader and writer, where a template says @@codec@@
    codec_module: str = ""          # else the codec's own file beside each side's source (Python: a module the
                                    # templates import, which the zygote holds warm: not compiled again each run)
    prologue: str = ""              # the program's side's first line(s), before the prompt
    program_end: str = ""           # a regex: what it matches at the tests' start ends the program's side instead
    argument: str = ""              # a regex one argument of the group `params` matches; "": none parsed
    argument_separator: str = ","   # what separates the arguments of `params` at its top level (Ada: ";")
    each_argument: Mapping[str, tuple[str, str]] = dataclasses.field(default_factory=dict)  # key: (template, sep)
    may_fork: bool = False          # its runtime creates processes to start (the program may then too)
    unit: SplitUnit | None = None   # the dispatcher compiled once per problem; None: in each program's source


@dataclasses.dataclass(frozen=True)
class CallHarness:
    """How a call-based (LiveCodeBench functional) test runs in this language (docs/grading.md): a template (a file of
    the language's folder) that reads the arguments (JSON, one a line) from stdin, calls the function and prints its
    result after the marker, then writes the marker to stderr; and what it can pass and report."""

    template: str                   # the template's text
    values: tuple[str, ...]         # the JSON value kinds (benchmarks/call_values.py) its arguments and results take
    program_file: str = ""          # the program's own file next to the harness; "": in place of {program}
    program_prefix: str = ""        # put before the program: what the judge's environment imports
    solution_class: str = ""        # a regex: the program declares the Solution class ({solution} is then 1)


@dataclasses.dataclass(frozen=True)
class Release:
    """The official release tarball of a toolchain Debian 12 lacks, by exact URL and checksum: what its image
    unpacks (the host installs Debian packages only)."""

    url: str       # https URL of a .tar.gz
    sha256: str    # its SHA-256, hex
    bin: str       # the directory inside the tarball whose programs go on the fixed PATH


@dataclasses.dataclass(frozen=True)
class PrecompiledHeaders:
    """Headers compiled once ahead, so that a compile whose source starts with one of `prefixes` loads them instead
    of parsing them again (sandboxes/toolchain_artifacts.py)."""

    command: tuple[str, ...]        # compiles {source} (a prefix, in a file named as the program's) into {output}
    prefixes: tuple[str, ...]       # texts a program may start with, each compiled ahead on its own


@dataclasses.dataclass(frozen=True)
class Language:
    """One language; schema.toml says what each field means, section by section."""

    key: str
    # [prompt]
    display: str                   # what prompts call it ("C++"); the key when empty
    fence: str                     # Markdown fence tag; the key when empty
    comment: str                   # a comment holding {} (a placeholder line in a prompt's code block)
    aliases: tuple[str, ...]
    # [run]
    source_file: str
    run: tuple[str, ...]
    version: tuple[str, ...]
    timeout_s: float
    memory_mb: int
    compile_timeout_s: float
    compile_memory_mb: int
    address_space_limit: bool
    env: Mapping[str, str]
    class_named_file: bool
    stderr_failure_markers: tuple[str, ...]
    memory_error_markers: tuple[str, ...]
    # [install]
    packages: tuple[str, ...]      # Debian packages of the toolchain, "name" or pinned "name=version"
    docker_image: bool             # `images build` builds it an image from its (pinned) packages
    setup: str                     # shell command run as root after the packages, by setup.sh and in the image
    # optional, absent: none
    compile: tuple[str, ...] | None = None
    public_decl: str | None = None
    type_decl: str | None = None
    main_decl: str | None = None
    release: Release | None = None  # not in Debian 12: the image adds this official release to its packages
    # [speedups]
    warm_imports: tuple[str, ...] | None = None  # runs fork from an interpreter that imported these (process backend)
    precompiled_headers: PrecompiledHeaders | None = None  # headers compiled ahead, per source prefix
    class_archive: str | None = None             # how the JVM compiler takes a JVM flag ("-J{}"): archived classes
    compiler_snapshot: str | None = None         # a Node compiler's snapshot script, a file of the language's folder
    run_class_archive: str | None = None         # how the run command takes a JVM flag ("{}"): archived classes
    # [grading]
    checker: str = ""               # NATIVE_CHECKER, or the wrapper (its text) checkers run under; "": none here
    harness: tuple[Harness, ...] = ()  # function style: proof that the tests ran to the end, per layout
    split: Split | None = None      # function style: the tests in a process of their own; None: in the program's
    call_harness: CallHarness | None = None  # call-based tests: how they run; None: not here (INFRA_UNSUPPORTED_TEST)

    @property
    def compiled(self) -> bool:
        return self.compile is not None

    def entry_name(self, code: str) -> str:
        """The type that holds the entry point (Java/Scala class or object), else the source stem."""
        default = pathlib.PurePosixPath(self.source_file).stem
        if self.main_decl is None or self.type_decl is None:
            return default
        masked = _mask_comments_and_strings(code)
        main = re.search(self.main_decl, masked)
        if main is None:
            return default
        if main.lastindex and main.group(1):
            return main.group(1)
        return _innermost_enclosing_type(masked, self.type_decl, main.start()) or default

    def source_name(self, code: str) -> str:
        """The file name the source must be written to."""
        if not self.class_named_file:
            return self.source_file
        suffix = pathlib.PurePosixPath(self.source_file).suffix
        if self.public_decl is not None:
            masked = _mask_comments_and_strings(code)
            depth = _brace_depths(masked)
            for match in re.finditer(self.public_decl, masked):
                if depth[match.start(1)] == 0:
                    return match.group(1) + suffix
        return self.entry_name(code) + suffix

    def render(self, template: tuple[str, ...], code: str, memory_mb: int) -> list[str]:
        """Fill a command template's placeholders for this program."""
        values = {"source": self.source_name(code), "entry": self.entry_name(code), "memory_mb": str(memory_mb)}
        return [part.format_map(values) for part in template]


_HARNESS_TUPLES = ("rewrite",)
_TUPLE_FIELDS = ("aliases", "compile", "run", "version", "stderr_failure_markers", "memory_error_markers",
                 "packages", "warm_imports")
_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]+(?P<pin>=[A-Za-z0-9.+~:-]+)?")


def schema_defaults() -> dict[str, dict]:
    """schema.toml's sections: each optional field's default value, by section."""
    with open(SCHEMA, "rb") as f:
        return tomllib.load(f)


def language_from_entry(key: str, entry: dict) -> Language:
    """One flat entry (a folder's sections merged, or an image's JSON) over schema.toml's defaults, checked."""
    known = {f.name for f in dataclasses.fields(Language)} - {"key"}
    unknown = set(entry) - known
    if unknown:
        raise ValueError(f"language {key}: unknown fields {sorted(unknown)}")
    _check_packages(key, entry)
    entry = {name: value for section in schema_defaults().values() for name, value in section.items()} | entry
    missing = {f.name for f in dataclasses.fields(Language) if f.default is dataclasses.MISSING} - {"key"} - set(entry)
    if missing:
        raise ValueError(f"language {key}: no {sorted(missing)}")
    values = {name: tuple(value) if name in _TUPLE_FIELDS else value for name, value in entry.items()}
    if "env" in values:
        values["env"] = dict(values["env"])
    if "precompiled_headers" in values:
        values["precompiled_headers"] = _precompiled_headers_from_toml(key, values["precompiled_headers"])
    for field in ("class_archive", "run_class_archive"):
        if field in values:
            _check_class_archive(key, entry, field)
    if "compiler_snapshot" in values:
        _check_compiler_snapshot(key, entry)
    if "harness" in values:
        values["harness"] = tuple(_harness_from_toml(key, harness) for harness in values["harness"])
    if "release" in values:
        values["release"] = _release_from_toml(key, values["release"])
    if "call_harness" in values:
        values["call_harness"] = _call_harness_from_toml(key, values["call_harness"])
    if "split" in values:
        values["split"] = _split_from_toml(key, values["split"])
    return Language(key=key, **values)


def _split_from_toml(key: str, entry: dict) -> Split:
    try:
        unit = entry.get("unit")
        split = Split(**{**entry, "each_argument": {name: tuple(pair)
                                                    for name, pair in entry.get("each_argument", {}).items()},
                         "unit": unit and SplitUnit(**{**unit, **{name: tuple(unit[name]) for name in
                                                                  ("compile", "objects", "link") if name in unit}})})
    except TypeError as exc:
        raise ValueError(f"language {key}: a split is {{entry, stub, dispatcher, codec, prologue, program_end, "
                         f"argument, each_argument, may_fork, unit}}, its unit {{source_file, template, compile, "
                         f"objects, prefix, declaration, link, dispatcher}}: {exc}") from None
    groups = re.compile(split.entry).groupindex
    if "entry" not in groups or (split.argument and "params" not in groups):
        raise ValueError(f"language {key}: a split's entry regex names the function as its group `entry` (and its "
                         "arguments as `params`, where it parses them)")
    if any(len(pair) != 2 for pair in split.each_argument.values()) or (split.each_argument and not split.argument):
        raise ValueError(f"language {key}: a split's each_argument is {{key: [template, separator]}}, with argument")
    re.compile(split.argument)
    re.compile(split.program_end)
    if split.unit is not None:
        re.compile(split.unit.prefix)
        if not split.unit.compile or not split.unit.objects:
            raise ValueError(f"language {key}: a split's unit has a compile command and the objects it leaves")
    return split


def _call_harness_from_toml(key: str, entry: dict) -> CallHarness:
    try:
        harness = CallHarness(**{name: tuple(value) if name == "values" else value for name, value in entry.items()})
    except TypeError as exc:
        raise ValueError(f"language {key}: a call_harness is {{template, values, ...}}: {exc}") from None
    re.compile(harness.solution_class)
    if "/" in harness.program_file:
        raise ValueError(f"language {key}: call_harness program_file is a plain file name")
    return harness


def _release_from_toml(key: str, entry: dict) -> Release:
    try:
        release = Release(**entry)
    except TypeError as exc:
        raise ValueError(f"language {key}: a release is {{url, sha256, bin}}: {exc}") from None
    if not release.url.startswith("https://") or not release.url.endswith(".tar.gz"):
        raise ValueError(f"language {key}: release url {release.url!r} is not an https .tar.gz")
    if not re.fullmatch(r"[0-9a-f]{64}", release.sha256):
        raise ValueError(f"language {key}: release sha256 {release.sha256!r} is not 64 hex digits")
    if release.bin.startswith("/") or ".." in release.bin.split("/"):
        raise ValueError(f"language {key}: release bin {release.bin!r} is not a path inside the tarball")
    return release


def _harness_from_toml(key: str, entry: dict) -> Harness:
    known = {f.name for f in dataclasses.fields(Harness)}
    if set(entry) - known:
        raise ValueError(f"language {key}: unknown harness fields {sorted(set(entry) - known)}")
    harness = Harness(**{name: tuple(value) if name in _HARNESS_TUPLES else value for name, value in entry.items()})
    if harness.rewrite and len(harness.rewrite) != 2:
        raise ValueError(f"language {key}: a harness rewrite is [regex, replacement]")
    if any(len(pair) != 2 for pair in harness.substitute):
        raise ValueError(f"language {key}: a harness substitute is a list of [regex, template] pairs")
    harness = dataclasses.replace(harness, substitute=tuple(tuple(pair) for pair in harness.substitute))
    for pattern in (harness.when, *harness.rewrite[:1], *(pattern for pattern, _ in harness.substitute)):
        re.compile(pattern)
    return harness


def _precompiled_headers_from_toml(key: str, entry: dict) -> PrecompiledHeaders:
    if set(entry) != {"command", "prefixes"}:
        raise ValueError(f"language {key}: precompiled_headers takes command and prefixes, not {sorted(entry)}")
    return PrecompiledHeaders(tuple(entry["command"]), tuple(entry["prefixes"]))


def _check_compiler_snapshot(key: str, entry: dict) -> None:
    """A compiler snapshot is built by a script of the language's folder, for a compiled language."""
    script = entry["compiler_snapshot"]
    if "compile" not in entry:
        raise ValueError(f"language {key}: a compiler_snapshot needs a compile command")
    if not isinstance(script, str) or pathlib.PurePath(script).name != script:
        raise ValueError(f"language {key}: compiler_snapshot {script!r} is not a file name")


def _check_class_archive(key: str, entry: dict, field: str) -> None:
    """A class archive is a JVM's: the compiler's (a compiled language) or the runtime's, with a flag template holding
    {} once."""
    template = entry[field]
    if field == "class_archive" and "compile" not in entry:
        raise ValueError(f"language {key}: a class_archive needs a compile command")
    if not isinstance(template, str) or template.count("{}") != 1 or template.count("{") != 1:
        raise ValueError(f"language {key}: {field} {template!r} is not a flag template with {{}} once")


def _check_packages(key: str, entry: dict) -> None:
    """Every language says what installs it (setup.sh and the image recipe read the same list); an image pins."""
    if "packages" not in entry:
        raise ValueError(f"language {key}: no packages ([] if the base system has the toolchain or Debian has none)")
    for package in entry["packages"]:
        match = _PACKAGE.fullmatch(package) if isinstance(package, str) else None
        if match is None:
            raise ValueError(f"language {key}: package {package!r} is not a Debian name or name=version")
        if entry.get("docker_image") and not match["pin"]:
            raise ValueError(f"language {key}: its image is digest-pinned, so package {package!r} needs =version")


_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'', re.DOTALL)


def _mask_comments_and_strings(code: str) -> str:
    """Blank out comments and string/char literals (same length) so braces and keywords in them are ignored."""
    return _LITERAL.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)


def _brace_depths(masked: str) -> list[int]:
    """Brace nesting depth at every position of (masked) source."""
    depths, depth = [], 0
    for char in masked:
        if char == "}":
            depth = max(depth - 1, 0)
        depths.append(depth)
        if char == "{":
            depth += 1
    return depths


def _innermost_enclosing_type(masked: str, type_decl: str, position: int) -> str | None:
    """The name of the innermost type declaration whose body `{...}` contains `position`."""
    best: tuple[int, str] | None = None
    for match in re.finditer(type_decl, masked):
        open_at = masked.find("{", match.end())
        if open_at < 0 or open_at > position:
            continue
        close_at = _matching_brace(masked, open_at)
        if close_at > position and (best is None or open_at >= best[0]):
            best = (open_at, match.group(1))
    return best[1] if best else None


def _matching_brace(masked: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(masked)):
        if masked[i] == "{":
            depth += 1
        elif masked[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(masked)
