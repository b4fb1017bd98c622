"""What the split's confinement cannot enforce on a kernel is told, never left silent (sandboxes/split): clients read it
in ListLanguages' weaker limits, operators in `doctor`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sandboxes import split
from tests.conftest import ROOT


@pytest.mark.parametrize(("abi", "told"), [(0, "no Landlock"), (2, "can signal its tests' process"),
                                           (5, "can signal its tests' process"), (6, None), (7, None)])
def test_each_kernel_s_gaps_are_told(abi: int, told: str | None) -> None:
    gaps = split.confinement_gaps(abi)
    assert (told in "".join(gaps)) if told else gaps == ()


def test_the_backend_and_doctor_tell_this_kernel_s(backend) -> None:
    gaps = split.confinement_gaps(split.landlock_abi())
    assert set(gaps) <= set(backend.limits().weaker)
    doctor = subprocess.run([sys.executable, "-m", "reward_server", "doctor"], cwd=ROOT, capture_output=True,
                            text=True, check=False).stdout
    [line] = [line for line in doctor.splitlines() if line[4:].startswith("landlock ")]
    assert f"ABI {split.landlock_abi()}" in line and all(gap in line for gap in gaps)
