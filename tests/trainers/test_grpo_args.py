"""`python -m trainers.grpo` on a machine without a GPU: the CPU flags are defaults, explicit flags win."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import torch

from trainers import grpo

pytestmark = pytest.mark.skipif(torch.accelerator.is_available(), reason="checks the defaults of a GPU-less machine")


def test_a_machine_without_a_gpu_trains_on_the_cpu_in_float32(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="trainers.grpo"):
        script_args, training_args = grpo.parse(["--model_name_or_path", "m", "--output_dir", str(tmp_path)])
    assert (training_args.use_cpu, training_args.bf16, script_args.dtype) == (True, False, "float32")
    assert "no GPU: training on the CPU in float32 (--use_cpu true --bf16 false --dtype float32" in caplog.text


def test_explicit_flags_win_over_the_cpu_defaults(tmp_path: Path) -> None:
    script_args, training_args = grpo.parse(["--model_name_or_path", "m", "--output_dir", str(tmp_path),
                                             "--dtype", "bfloat16", "--bf16", "true"])
    assert (training_args.use_cpu, training_args.bf16, script_args.dtype) == (True, True, "bfloat16")
