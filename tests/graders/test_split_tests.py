"""The two sides of a split candidate as text (reward_server/graders/split_tests.py); tests/test_reward_hacks.py and
each language's guard module run them."""

from __future__ import annotations

import dataclasses

import pytest

from reward_server.graders.split_tests import EntryNotFound, split_program, unsupported
from sandboxes.languages import Split, SplitUnit
from tests.language_table import load_table

TYPED = Split(entry=r"(?m)^(?P<ret>\w+) (?P<entry>\w+)\((?P<params>[^)]*)\) \{$",
              stub="STUB @@ret@@ @@entry@@(@@params@@) -> @@names@@ / @@types@@ / @@read@@ @@unsupported@@",
              dispatcher="DISPATCH @@entry@@ @@codec@@",
              codec="CODEC", argument=r"(?P<type>.+?)\s+(?P<name>\w+)",
              each_argument={"read": ("read<@@type@@>(@@index@@)", "; ")})


def language(split: Split):
    return dataclasses.replace(load_table().resolve("cpp"), split=split)


def test_both_sides_of_a_typed_declaration() -> None:
    prompt = "#include <map>\nint helper() { return 1; }\nlong add(std::map<long, long> m, long y) {\n"
    sides = split_program(language(TYPED), prompt, "  return y;\n}", "TESTS\n", "MARK")
    assert sides.program == prompt + "  return y;\n}\nDISPATCH add CODEC"
    assert sides.tests == ("#include <map>\nint helper() { return 1; }\nSTUB long add(std::map<long, long> m, long y) "
                           "-> m, y / std::map<long, long>, long / read<std::map<long, long>>(0); read<long>(1) "
                           "MARK unsupported: \nTESTS\n")


def test_arguments_separated_otherwise_than_by_commas() -> None:
    """Ada's formal part: `;` between the arguments, a comma inside one (`X, Y : Integer` is not split there)."""
    ada = dataclasses.replace(TYPED, entry=r"(?m)^function (?P<entry>\w+) \((?P<params>[^)]*)\)$",
                              stub="STUB @@names@@ / @@types@@", argument=r"(?P<name>[\w, ]+?)\s*:\s*(?P<type>\w+)",
                              argument_separator=";")
    sides = split_program(language(ada), "function F (A, B : Integer; S : String)\n", "", "", "M")
    assert sides.tests.startswith("STUB A, B, S / Integer, String")


def test_the_last_declaration_is_the_entry_and_no_arguments_is_none() -> None:
    prompt = "int first() {\n}\nint second() {\n"
    sides = split_program(language(TYPED), prompt, "", "", "M")
    assert sides.tests.startswith("int first() {\n}\nSTUB int second() ->  /  / ")


def test_a_prompt_without_its_declaration_is_not_the_program_s_fault() -> None:
    with pytest.raises(EntryNotFound):
        split_program(language(TYPED), "// no function here\n", "", "", "M")
    with pytest.raises(EntryNotFound, match="cannot read the argument"):
        split_program(language(TYPED), "int f(long) {\n", "", "", "M")


def test_only_the_marker_s_own_notice_says_unsupported() -> None:
    assert unsupported("noise\nMARK unsupported: a function argument\nmore", "MARK") == "a function argument"
    assert unsupported(" unsupported: forged by the program\n", "MARK") is None


UNIT = SplitUnit(source_file="unit.cpp", template="UNIT @@prefix@@| @@declaration@@ | @@dispatcher@@",
                 compile=("cc",), objects=("unit.o",), prefix=r"(?:#[^\n]*\n)*", declaration="DECL @@entry@@;")
HANDING_UNIT = dataclasses.replace(UNIT, template="UNIT @@owner@@.@@entry@@ @@codec@@", prefix=r"(?P<owner>\w+):\n",
                                   declaration="", dispatcher="START @@owner@@")


def test_a_unit_takes_the_dispatcher_where_the_prompt_before_the_entry_links_nothing_twice() -> None:
    prompt = "#include <map>\nlong add(long y) {\n"
    sides = split_program(language(dataclasses.replace(TYPED, unit=UNIT)), prompt, "  return y;\n}", "TESTS\n", "M")
    assert sides.program == prompt + "  return y;\n}"
    assert sides.files == {"unit.cpp": "UNIT #include <map>\n| DECL add; | DISPATCH add CODEC"}


@pytest.mark.parametrize("prompt", ["#include <map>\nint helper() { return 1; }\nlong add(long y) {\n",
                                    "#include <map>\nstatic long add(long y) {\n"])
def test_no_unit_where_a_link_would_see_a_definition_twice_or_the_entry_not_at_all(prompt: str) -> None:
    entry = r"(?m)^(?P<internal>(?:static )?)(?P<ret>\w+) (?P<entry>\w+)\((?P<params>[^)]*)\) \{$"
    split = dataclasses.replace(TYPED, entry=entry, unit=UNIT)
    sides = split_program(language(split), prompt, "  return y;\n}", "TESTS\n", "M")
    assert sides.program == prompt + "  return y;\n}\nDISPATCH add CODEC" and sides.files == {}


def test_a_unit_may_give_the_program_a_start_of_its_own_and_read_the_prefix_s_groups() -> None:
    split = dataclasses.replace(TYPED, unit=HANDING_UNIT)
    sides = split_program(language(split), "Owner:\nlong add(long y) {\n", "  return y;\n}", "TESTS\n", "M")
    assert sides.program == "Owner:\nlong add(long y) {\n  return y;\n}\nSTART Owner"
    assert sides.files == {"unit.cpp": "UNIT Owner.add CODEC"}


@pytest.mark.parametrize(("key", "prompt", "unit_file", "in_unit"), [
    ("cpp", "#include<assert.h>\n#include<bits/stdc++.h>\n// Add\nlong add(long x, long y) {\n", "dispatcher.cpp",
     "long add(long x, long y);"),
    ("java", "import java.util.*;\nclass Problem {\n    public static long add(long x, long y) {\n",
     "reward_wire.java", "return Problem.add((long) reward_call_[0], (long) reward_call_[1]);"),
])
def test_cpp_and_java_programs_of_multipl_e_layout_compile_no_dispatcher_of_their_own(key, prompt, unit_file,
                                                                                      in_unit) -> None:
    language = load_table().resolve(key)
    assert language.split is not None
    sides = split_program(language, prompt, "        return x + y;\n", "    }\n", "M")
    assert list(sides.files) == [unit_file] and in_unit in sides.files[unit_file]
    assert language.split.codec not in sides.program and "serve(" not in sides.program


@pytest.mark.parametrize("prompt", [
    "class Problem {\n    static long twice(long x) { return 2 * x; }\n    public static long add(long x, long y) {\n",
    "class Problem {\n    private static long add(long x, long y) {\n",
    "class Outer {\n  static class Problem {\n    public static long add(long x, long y) {\n"])
def test_a_java_prompt_with_more_than_its_class_before_the_entry_or_a_private_one_keeps_the_dispatcher(
        prompt: str) -> None:
    language = load_table().resolve("java")
    sides = split_program(language, prompt, "        return x + y;\n", "    }\n", "M")
    assert sides.files == {} and "RewardWire_.serve(" in sides.program and "final class RewardWire_ {" in sides.program
