"""Eval summary: pass@k overall, per benchmark and per language, with verdict and infra counts.

Infra results (reward withheld) are not samples: a problem's n counts only model-graded completions,
so an infra failure never lowers pass@k; it is reported in its own count instead.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from reward_server.evaluation.passk import mean_pass_at_k
from reward_server.evaluation.results import ResultRecord


def group_summary(records: Sequence[ResultRecord], ks: Sequence[int]) -> dict[str, Any]:
    per_problem: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])   # id -> [n, c]
    verdicts = collections.Counter(r.verdict for r in records)
    for record in records:
        counts = per_problem[record.problem_id]
        if not record.is_infra:
            counts[0] += 1
            counts[1] += record.verdict == "PASS"
    counts = [(n, c) for n, c in per_problem.values()]
    infra = sum(1 for r in records if r.is_infra)
    return {
        "problems": len(per_problem),
        "completions": len(records),
        "scored": len(records) - infra,
        "infra": infra,
        "verdicts": dict(sorted(verdicts.items())),
        "pass_at_k": {str(k): mean_pass_at_k(counts, k) for k in ks},
        "problems_at_k": {str(k): sum(1 for n, _ in counts if n >= k) for k in ks},
    }


def _grouped(records: Iterable[ResultRecord], key: Callable[[ResultRecord], str],
             ks: Sequence[int]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[ResultRecord]] = collections.defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    return {name: group_summary(groups[name], ks) for name in sorted(groups)}


def summarize(records: Sequence[ResultRecord], ks: Sequence[int]) -> dict[str, Any]:
    return {
        "ks": list(ks),
        "overall": group_summary(records, ks),
        "by_benchmark": _grouped(records, lambda r: r.benchmark, ks),
        "by_language": _grouped(records, lambda r: r.language, ks),
    }


def format_table(summary: dict[str, Any]) -> str:
    """A fixed-width table: one row per benchmark, per language and overall."""
    ks = summary["ks"]
    header = (f"{'group':<28} {'problems':>8} {'scored':>7} {'infra':>6} "
              + " ".join(f"{'pass@' + str(k):>9}" for k in ks))
    lines = [header, "-" * len(header)]
    rows = ([(f"benchmark {name}", g) for name, g in summary["by_benchmark"].items()]
            + [(f"language {name}", g) for name, g in summary["by_language"].items()]
            + [("overall", summary["overall"])])
    for name, group in rows:
        values = [group["pass_at_k"][str(k)] for k in ks]
        cells = " ".join(f"{'-' if v is None else format(v, '.4f'):>9}" for v in values)
        lines.append(f"{name[:28]:<28} {group['problems']:>8} {group['scored']:>7} {group['infra']:>6} {cells}")
    return "\n".join(lines)
