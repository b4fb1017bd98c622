"""One dataset row + one completion -> one `reward.v1.Candidate` (shared by the rewards and the eval callback)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reward_server.pb import reward_pb2

EXTRACTIONS = {"none": reward_pb2.EXTRACTION_NONE, "first_block": reward_pb2.FIRST_BLOCK,
               "last_block": reward_pb2.LAST_BLOCK}
COMPARATORS = {"": reward_pb2.COMPARATOR_UNSPECIFIED, "exact": reward_pb2.EXACT, "lenient": reward_pb2.LENIENT,
               "lcb": reward_pb2.LCB}


def completion_text(completion: str | list[Mapping[str, Any]]) -> str:
    """TRL hands conversational completions as a list of messages; the graded text is their content."""
    if isinstance(completion, str):
        return completion
    return "".join(message["content"] for message in completion if message.get("role") == "assistant")


def candidate(row: Mapping[str, Any], completion: str, candidate_id: str, *,
              run_all_tests: bool = False) -> reward_pb2.Candidate:
    if row["task"] == "equation":
        return reward_pb2.Candidate(id=candidate_id, equation=reward_pb2.EquationTask(
            response=completion, expected=bool(row["expected"])))
    if row["task"] != "code":
        raise ValueError(f"row {row.get('problem_id')!r}: unknown task {row['task']!r}")
    return reward_pb2.Candidate(id=candidate_id, code=reward_pb2.CodeTask(
        language=row["language"], completion=completion, extraction=EXTRACTIONS[row["extraction"]],
        prompt=row["code_prompt"], stop_tokens=row["stop_tokens"], tests=row["tests"],
        io_tests=[reward_pb2.IOTest(stdin=t["stdin"], expected_stdout=t["expected_stdout"])
                  for t in row["io_tests"]],
        comparator=COMPARATORS[row["comparator"]], run_all_tests=run_all_tests))
