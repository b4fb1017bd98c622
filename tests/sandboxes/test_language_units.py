"""A language is one unit: its table entry, which names the Debian packages that install it, and its samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandboxes.languages import LanguageTable
from sandboxes.samples import SamplesError, load_samples

ENTRY = '[a]\nsource_file = "a"\nrun = ["a"]\nversion = ["a"]\n'


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
def test_table_refuses_an_entry_without_an_install_recipe(tmp_path: Path, fields: str, error: str) -> None:
    path = tmp_path / "languages.toml"
    path.write_text(ENTRY + fields)
    with pytest.raises(ValueError, match=error):
        LanguageTable.load(path)


def test_table_takes_pinned_and_unpinned_packages(tmp_path: Path) -> None:
    path = tmp_path / "languages.toml"
    path.write_text(ENTRY + 'packages = ["g++=4:12.2.0-3", "nodejs=18.20.4+dfsg-1~deb12u3"]\ndocker_image = true\n'
                    + ENTRY.replace("[a]", "[b]").replace('"a"', '"b"') + 'packages = ["r-base-core"]\n')
    a, b = LanguageTable.load(path)
    assert a.packages == ("g++=4:12.2.0-3", "nodejs=18.20.4+dfsg-1~deb12u3") and a.docker_image
    assert b.packages == ("r-base-core",) and not b.docker_image


RELEASE = 'url = "https://example.org/t-1.0.tar.gz", sha256 = "{}", bin = "t-1.0/bin"'.format("ab" * 32)


def test_table_takes_a_release_and_a_setup_step(tmp_path: Path) -> None:
    path = tmp_path / "languages.toml"
    path.write_text(ENTRY + f'packages = []\ndocker_image = true\nrelease = {{ {RELEASE} }}\nsetup = "true"\n')
    [language] = LanguageTable.load(path)
    assert language.release is not None and language.release.bin == "t-1.0/bin" and language.setup == "true"


@pytest.mark.parametrize(("release", "error"), [
    (RELEASE.replace("https:", "http:"), "not an https .tar.gz"),
    (RELEASE.replace("ab", "AB", 1), "not 64 hex digits"),
    (RELEASE.replace("t-1.0/bin", "../bin"), "not a path inside the tarball"),
    (RELEASE.replace(', bin = "t-1.0/bin"', ""), r"a release is \{url, sha256, bin\}"),
])
def test_table_refuses_a_release_it_cannot_pin(tmp_path: Path, release: str, error: str) -> None:
    path = tmp_path / "languages.toml"
    path.write_text(ENTRY + f"packages = []\nrelease = {{ {release} }}\n")
    with pytest.raises(ValueError, match=error):
        LanguageTable.load(path)


@pytest.mark.parametrize(("text", "error"), [
    ("[function]\n", r"sections \['function'\], need"),
    ("[function]\n[stdin]\n[greeter]\nprogram = 'x'\n", r"\[function\]: need the non-empty texts"),
])
def test_samples_file_must_hold_every_program(tmp_path: Path, text: str, error: str) -> None:
    (tmp_path / "x.toml").write_text(text)
    with pytest.raises(SamplesError, match=error):
        load_samples(tmp_path)
