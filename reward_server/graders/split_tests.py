"""A function-style program whose tests run in a process of their own (docs/guards.md, "Two processes").

The program's side is what the reference runs up to the tests (the prompt and the completion cut at its stop tokens,
then what the tests begin with that closes it: the split's program_end), after the language's prologue where it has
one (what must happen before the program's first line), and then the language's dispatcher, which answers calls of
the entry function read from its stdin (its dispatcher or its codec may be a unit of their own instead, compiled once
per problem and linked to each program: the language's SplitUnit, where what the prompt holds before the declaration
links nothing twice). The tests' side is the prompt up to its declaration of the entry function (its helpers exactly as
the dataset wrote them), the language's stub in the function's place, which sends each call's arguments across and
returns the value read back, and the tests under the language's harness (the end-of-tests marker after them). Only
data crosses, in the wire format of docs/guards.md: nothing the program defines, and no marker or expected value,
reaches the other side.
"""

from __future__ import annotations

import dataclasses
import re

from sandboxes.languages import Language

PLACEHOLDER = re.compile(r"@@(\w+)@@")
UNSUPPORTED = " unsupported: "     # after the marker on the tests' stderr: a test the wire cannot carry


@dataclasses.dataclass(frozen=True)
class SplitProgram:
    program: str      # the program's source: prompt, completion, dispatcher
    tests: str        # the tests' source: the prompt's helpers, the stub, the harnessed tests
    files: dict[str, str] = dataclasses.field(default_factory=dict)    # beside each side's source: the codec module,
                                                                        # the split's unit (SplitUnit)


class EntryNotFound(ValueError):
    """The prompt declares no entry function the language's split recognises."""


def split_program(language: Language, prompt: str, completion: str, tests: str, marker: str) -> SplitProgram:
    """Both sides of one candidate; `completion` is already cut at the stop tokens, `tests` already harnessed (the
    marker written after them). Raises EntryNotFound when the prompt has no declaration the entry regex matches."""
    split = language.split
    assert split is not None
    found = list(re.finditer(split.entry, prompt))
    if not found:
        raise EntryNotFound(f"the prompt declares no entry function that {language.key}'s split recognises")
    declaration = found[-1]
    values = {**{name: value or "" for name, value in declaration.groupdict().items()},
              "codec": "" if split.codec_module else split.codec,
              "marker": marker, "unsupported": marker + UNSUPPORTED}
    if split.argument:
        values |= _arguments(language, values.get("params", ""))
    stub = _filled(split.stub, values)
    dispatcher = _filled(split.dispatcher, values)
    before = prompt[:declaration.start()]
    files = {split.codec_module: split.codec} if split.codec_module else {}
    program = _filled(split.prologue, values) + prompt + completion
    unit = split.unit
    prefix = re.fullmatch(unit.prefix, before) if unit is not None and not values.get("internal") else None
    if unit is None or prefix is None:
        program += "\n" + dispatcher
    else:
        values |= {name: value or "" for name, value in prefix.groupdict().items()}
        files[unit.source_file] = _filled(unit.template, {**values, "codec": split.codec, "prefix": before,
                                                          "declaration": _filled(unit.declaration, values),
                                                          "dispatcher": _filled(split.dispatcher, values)})
        if unit.dispatcher:
            program += "\n" + _filled(unit.dispatcher, values)
    return SplitProgram(program=program, tests=before + stub + "\n" + tests, files=files)


def unsupported(stderr: str, marker: str) -> str | None:
    """What the tests' stub said it cannot carry across (after the marker only it knows), or None."""
    at = stderr.find(marker + UNSUPPORTED)
    return None if at < 0 else stderr[at + len(marker + UNSUPPORTED):].split("\n", 1)[0]


def _arguments(language: Language, params: str) -> dict[str, str]:
    """@@names@@, @@types@@ and each `each_argument` template of the declaration's arguments."""
    split = language.split
    assert split is not None
    arguments = []
    for index, piece in enumerate(_top_level_pieces(params, split.argument_separator)):
        match = re.fullmatch(split.argument, piece.strip(), re.S)
        if match is None:
            raise EntryNotFound(f"{language.key}'s split cannot read the argument {piece.strip()!r}")
        arguments.append({**{name: value or "" for name, value in match.groupdict().items()}, "index": str(index)})
    values = {"names": ", ".join(a.get("name", "") for a in arguments),
              "types": ", ".join(a.get("type", "") for a in arguments)}
    for key, (template, separator) in split.each_argument.items():
        values[key] = separator.join(_filled(template, {"codec": "", **argument}) for argument in arguments)
    return values


def _top_level_pieces(params: str, separator: str) -> list[str]:
    """`params` split at each `separator` outside every bracket; [] when it is blank."""
    pieces, depth, start = [], 0, 0
    for at, char in enumerate(params):
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == separator and depth == 0:
            pieces.append(params[start:at])
            start = at + 1
    pieces.append(params[start:])
    return [] if not params.strip() else pieces


def _filled(template: str, values: dict[str, str]) -> str:
    """The template with every @@name@@ of `values` replaced (the codec first, so its own placeholders fill too)."""
    template = template.replace("@@codec@@", values["codec"])
    return PLACEHOLDER.sub(lambda match: values.get(match[1], match[0]), template)
