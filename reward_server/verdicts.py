"""The verdict taxonomy (docs/ARCHITECTURE.md): the model's fault earns a reward, infra failure withholds it.

Names match the proto enum `reward.v1.Verdict` one for one; the service maps by name at the edge.
"""

from __future__ import annotations

import enum


class Verdict(enum.Enum):
    PASS = "PASS"
    WRONG_ANSWER = "WRONG_ANSWER"
    COMPILE_ERROR = "COMPILE_ERROR"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIMEOUT = "TIMEOUT"
    MEMORY_LIMIT = "MEMORY_LIMIT"
    OUTPUT_LIMIT = "OUTPUT_LIMIT"
    NO_CODE = "NO_CODE"
    NO_VERDICT = "NO_VERDICT"
    EXITED_EARLY = "EXITED_EARLY"     # exited 0 before its tests finished (graders/end_marker.py)
    BAD_COUNTEREXAMPLE = "BAD_COUNTEREXAMPLE"   # a right FALSE without a valid magma (graders/counterexample.py)
    INFRA_UNPINNED_LANGUAGE = "INFRA_UNPINNED_LANGUAGE"
    INFRA_UNKNOWN_LANGUAGE = "INFRA_UNKNOWN_LANGUAGE"
    INFRA_SANDBOX_ERROR = "INFRA_SANDBOX_ERROR"
    INFRA_OVERLOADED = "INFRA_OVERLOADED"
    INFRA_DEADLINE = "INFRA_DEADLINE"
    INFRA_CHECKER_ERROR = "INFRA_CHECKER_ERROR"          # the task's checker failed (graders/checkers.py)
    INFRA_UNSUPPORTED_TEST = "INFRA_UNSUPPORTED_TEST"    # a call-based test the harness cannot pose

    @property
    def is_infra(self) -> bool:
        return self.name.startswith("INFRA_")

    @property
    def reward(self) -> float | None:
        """1.0 for a pass, 0.0 for any model failure, None (withheld) for infra failures."""
        if self.is_infra:
            return None
        return 1.0 if self is Verdict.PASS else 0.0
