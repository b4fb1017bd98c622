"""A language is one unit, a folder: its entry, which names the Debian packages that install it, its samples, and the
files its entry names."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from sandboxes.languages import NATIVE_CHECKER, LanguageFolderError, LanguageTable, language_from_entry
from sandboxes.languages.samples import SamplesError, load_samples

ENTRY = {"source_file": "a", "run": ["a"], "version": ["a"]}


def entry(fields: str) -> dict:
    """ENTRY with these fields (TOML) added."""
    return ENTRY | tomllib.loads(fields)


def test_every_language_has_samples(table: LanguageTable) -> None:
    samples = load_samples()
    assert [language.key for language in table if language.key not in samples] == []


def test_every_language_has_an_image_recipe(table: LanguageTable) -> None:
    """The docker backend can grade every language: from its pinned Debian packages, or from an official release
    where Debian 12 has none."""
    assert [language.key for language in table if not language.docker_image] == []
    assert sorted(language.key for language in table if language.release) == ["julia", "swift"]


def test_broken_samples_fail_where_the_language_finds_the_error(table: LanguageTable) -> None:
    samples = load_samples()
    found_at = {language.key: "COMPILE_ERROR" if language.compiled else "RUNTIME_ERROR" for language in table}
    assert {key: samples[key].stdin.broken_verdict for key in found_at} == found_at


@pytest.mark.parametrize(("fields", "error"), [
    ("", "no packages"),
    ('packages = ["g++ gcc"]\n', "not a Debian name"),
    ('packages = ["g++"]\ndocker_image = true\n', "needs =version"),
])
def test_table_refuses_an_entry_without_an_install_recipe(fields: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        language_from_entry("a", entry(fields))


def test_table_takes_pinned_and_unpinned_packages() -> None:
    a = language_from_entry("a", entry('packages = ["g++=4:12.2.0-3", "nodejs=18.20.4+dfsg-1~deb12u3"]\n'
                                       'docker_image = true\n'))
    b = language_from_entry("b", entry('packages = ["r-base-core"]\n'))
    assert a.packages == ("g++=4:12.2.0-3", "nodejs=18.20.4+dfsg-1~deb12u3") and a.docker_image
    assert b.packages == ("r-base-core",) and not b.docker_image


RELEASE = 'url = "https://example.org/t-1.0.tar.gz", sha256 = "{}", bin = "t-1.0/bin"'.format("ab" * 32)


def test_table_takes_a_release_and_a_setup_step() -> None:
    language = language_from_entry("a", entry(f'packages = []\ndocker_image = true\nrelease = {{ {RELEASE} }}\n'
                                              'setup = "true"\n'))
    assert language.release is not None and language.release.bin == "t-1.0/bin" and language.setup == "true"


@pytest.mark.parametrize(("release", "error"), [
    (RELEASE.replace("https:", "http:"), "not an https .tar.gz"),
    (RELEASE.replace("ab", "AB", 1), "not 64 hex digits"),
    (RELEASE.replace("t-1.0/bin", "../bin"), "not a path inside the tarball"),
    (RELEASE.replace(', bin = "t-1.0/bin"', ""), r"a release is \{url, sha256, bin\}"),
])
def test_table_refuses_a_release_it_cannot_pin(release: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        language_from_entry("a", entry(f"packages = []\nrelease = {{ {release} }}\n"))


@pytest.mark.parametrize(("text", "error"), [
    ("[function]\n", r"sections \['function'\], need"),
    ("[function]\n[stdin]\n[greeter]\nprogram = 'x'\n", r"\[function\]: need the non-empty texts"),
])
def test_samples_file_must_hold_every_program(tmp_path: Path, text: str, error: str) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "samples.toml").write_text(text)
    with pytest.raises(SamplesError, match=error):
        load_samples(tmp_path)


def write_folder(directory: Path, key: str, toml: str, files: dict[str, str] | None = None) -> Path:
    folder = directory / key
    folder.mkdir(parents=True)
    (folder / "language.toml").write_text(toml)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return folder


FOLDER = '[run]\nsource_file = "a.x"\nrun = ["a"]\nversion = ["a"]\n[install]\npackages = []\n'


def test_a_folder_reads_its_files_into_the_language(tmp_path: Path) -> None:
    """Harness parts, the call-harness template and the compile script are the folder's files, read in as they are;
    what the entry leaves out takes schema.toml's defaults."""
    write_folder(tmp_path, "a", FOLDER.replace('[install]', 'compile_script = "build.sh"\n[install]')
                 + "[grading]\n[[grading.harness]]\nwhen = 'main'\nrewrite = 'main'\nreplacement = 'r.x'\n"
                   "epilogue = 'e.x'\n[grading.call_harness]\ntemplate = 'call.x'\nvalues = ['int']\n",
                 {"build.sh": "cc \"$0\"\n", "r.x": "renamed", "e.x": "print({marker})\n", "call.x": "call {function}"})
    [language] = LanguageTable.load(tmp_path)
    assert language.compile == ("sh", "-c", 'cc "$0"\n', "{source}")
    [harness] = language.harness
    assert (harness.when, harness.rewrite, harness.prologue, harness.epilogue) == (
        "main", ("main", "renamed"), "", "print({marker})\n")
    assert language.call_harness is not None and language.call_harness.template == "call {function}"
    defaults = tomllib.loads((Path(__file__).parents[2] / "sandboxes/languages/schema.toml").read_text())
    assert (language.timeout_s, language.comment) == (defaults["run"]["timeout_s"], defaults["prompt"]["comment"])


@pytest.mark.parametrize(("toml", "files", "error"), [
    (FOLDER + '[prompt]\nsource_file = "b"\n', {}, r"\['source_file'\] do not belong in \[prompt\]"),
    (FOLDER + '[other]\nx = 1\n', {}, r"unknown section \[other\]"),
    (FOLDER + "[grading]\n[[grading.harness]]\nepilogue = 'missing.x'\n", {}, "'missing.x' is not a file"),
    (FOLDER + "[grading]\n[[grading.harness]]\nepilogue = '../a/language.toml'\n", {}, "is not a file of its folder"),
    (FOLDER + "[grading]\n[[grading.harness]]\nrewrite = 'main'\n", {}, "needs its replacement"),
    (FOLDER + "[grading]\n[[grading.harness]]\nepilog = 'e.x'\n", {"e.x": ""}, "unknown harness fields"),
    (FOLDER.replace("[install]", 'compile = ["cc"]\ncompile_script = "b.sh"\n[install]'), {"b.sh": ""},
     "compile and compile_script both"),
    (FOLDER + '[speedups]\ncompiler_snapshot = "snap.js"\n', {}, "'snap.js' is not a file"),
    (FOLDER.replace("[install]\npackages = []\n", ""), {}, "no packages"),
])
def test_a_folder_that_breaks_the_schema_is_refused(tmp_path: Path, toml: str, files: dict, error: str) -> None:
    write_folder(tmp_path, "a", toml, files)
    with pytest.raises(ValueError, match=error):
        LanguageTable.load(tmp_path)


def test_a_folder_without_an_entry_is_an_error_not_a_missing_language(tmp_path: Path) -> None:
    write_folder(tmp_path, "a", FOLDER)
    (tmp_path / "b").mkdir()
    with pytest.raises(LanguageFolderError, match=r"without language\.toml"):
        LanguageTable.load(tmp_path)


def test_every_language_folder_holds_only_what_its_entry_names(table: LanguageTable) -> None:
    """No stray file: each file of a folder is its entry, its samples, or named by its entry."""
    root = Path(__file__).parents[2] / "sandboxes/languages"
    stray = {}
    for language in table:
        with open(root / language.key / "language.toml", "rb") as f:
            named = {"language.toml", "samples.toml", *_file_names(tomllib.load(f))}
        files = {path.name for path in (root / language.key).iterdir()}
        if files - named:
            stray[language.key] = sorted(files - named)
    assert stray == {}


def _file_names(sections: dict) -> set[str]:
    run, speedups, grading = (sections.get(name, {}) for name in ("run", "speedups", "grading"))
    names = {run.get("compile_script"), speedups.get("compiler_snapshot"),
             grading.get("call_harness", {}).get("template"),
             grading.get("checker") if grading.get("checker") != NATIVE_CHECKER else None}
    for layout in grading.get("harness", []):
        names |= {layout.get(part) for part in ("replacement", "prologue", "epilogue", "declaration", "compile_script")}
    names |= {grading.get("split", {}).get(part) for part in ("stub", "dispatcher", "codec", "prologue")}
    names |= {grading.get("split", {}).get("unit", {}).get(part) for part in ("template", "dispatcher")}
    return names - {None}


def test_the_readme_has_a_row_for_every_language_and_its_aliases(table: LanguageTable) -> None:
    """A new language is its folder plus its README row (key, aliases, guard); the row cannot go stale unseen."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    header = "| key | aliases |"
    rows = readme[readme.index(header):].split("\n\n", 1)[0].splitlines()[2:]
    cells = {row.split("|")[1].strip(): row.split("|") for row in rows}
    assert sorted(cells) == sorted(language.key for language in table)
    for language in table:
        aliases = [alias.strip() for alias in cells[language.key][2].split(",") if alias.strip()]
        guard = "split" if language.split else "harness" if language.harness else "none"
        assert (aliases, cells[language.key][-2].strip()) == (list(language.aliases), guard), language.key
