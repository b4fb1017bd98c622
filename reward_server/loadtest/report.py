"""The load-test report: throughput, latency percentiles, verdicts, errors, pool use; table and comparison.

The JSON report is self-describing (the mix and limits are in it), so a saved one can be compared with a
new run: throughput falling or a latency percentile rising beyond the tolerance, or errors/lost
candidates/unexpected verdicts appearing, is flagged as a regression.
"""

from __future__ import annotations

import collections
import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any

from reward_server.loadtest.driver import CandidateSample, RunLog
from reward_server.verdicts import Verdict

PERCENTILES = (50, 90, 99)
MAX_ERRORS_KEPT = 20


def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default); values need not be sorted."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency_stats(values: Sequence[float]) -> dict[str, float | int]:
    if not values:
        return {"count": 0}
    stats: dict[str, float | int] = {"count": len(values)}
    stats |= {f"p{q}": percentile(values, q) for q in PERCENTILES}
    stats |= {"max": max(values), "mean": sum(values) / len(values)}
    return stats


def _by(samples: Iterable[CandidateSample], key) -> dict[str, list[CandidateSample]]:
    groups: dict[str, list[CandidateSample]] = collections.defaultdict(list)
    for sample in samples:
        groups[key(sample)].append(sample)
    return dict(sorted(groups.items()))


def timeline(run: RunLog, bin_s: float = 1.0) -> dict[str, list[float]]:
    """Per time bin: completed candidates per second and median candidate latency (for the plot)."""
    bins = max(1, math.ceil(run.wall_s / bin_s))
    done: list[list[float]] = [[] for _ in range(bins)]
    for sample in run.candidates:
        done[min(bins - 1, int(sample.finished_s / bin_s))].append(sample.latency_s)
    return {"t": [(i + 0.5) * bin_s for i in range(bins)],
            "throughput": [len(d) / bin_s for d in done],
            "p50": [percentile(d, 50) if d else None for d in done]}


def build_report(run: RunLog, *, config: dict[str, Any], servers: list[dict[str, Any]]) -> dict[str, Any]:
    sent = sum(b.size for b in run.batches)
    errors = [b.error for b in run.batches if b.error]
    candidates = run.candidates
    by_language = _by(candidates, lambda s: s.language)
    by_size: dict[str, list[float]] = collections.defaultdict(list)
    for batch in run.batches:
        if batch.error is None:
            by_size[str(batch.size)].append(batch.latency_s)
    return {
        "config": config,
        "wall_s": run.wall_s,
        "batches": len(run.batches),
        "sent": sent,
        "completed": len(candidates),
        "lost": sent - len(candidates),
        "throughput_cps": len(candidates) / run.wall_s if run.wall_s else 0.0,
        "error_batches": len(errors),
        "errors": errors[:MAX_ERRORS_KEPT],
        "latency": {
            "candidate": latency_stats([s.latency_s for s in candidates]),
            "by_language": {name: latency_stats([s.latency_s for s in group]) for name, group in by_language.items()},
            "batch": latency_stats([b.latency_s for b in run.batches if b.error is None]),
            "by_batch_size": {size: latency_stats(v) for size, v in sorted(by_size.items(), key=lambda i: int(i[0]))},
        },
        "verdicts": dict(sorted(collections.Counter(s.verdict for s in candidates).items())),
        "verdicts_by_language": {name: dict(sorted(collections.Counter(s.verdict for s in group).items()))
                                 for name, group in by_language.items()},
        "unexpected": sum(s.verdict != s.expected for s in candidates),
        "unexpected_by_language": {name: sum(s.verdict != s.expected for s in group)
                                   for name, group in by_language.items()},
        "infra": sum(Verdict[s.verdict].is_infra for s in candidates),
        "servers": servers,
        "timeline": timeline(run),
    }


def _ms(value: float | int | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f}"


def format_table(report: dict[str, Any]) -> str:
    lines = [f"{report['completed']} candidates in {report['wall_s']:.1f}s = {report['throughput_cps']:.1f}/s; "
             f"{report['batches']} batches, {report['error_batches']} failed, {report['lost']} lost, "
             f"{report['infra']} infra, {report['unexpected']} unexpected verdicts"]
    header = f"{'latency (ms)':<20} {'count':>7} {'p50':>7} {'p90':>7} {'p99':>7} {'max':>7}"
    lines += [header, "-" * len(header)]
    latency = report["latency"]
    rows = ([("all candidates", latency["candidate"])]
            + [(f"lang {name}", stats) for name, stats in latency["by_language"].items()]
            + [("all batches", latency["batch"])]
            + [(f"batch of {size}", stats) for size, stats in latency["by_batch_size"].items()])
    for name, stats in rows:
        lines.append(f"{name[:20]:<20} {stats['count']:>7} " + " ".join(
            f"{_ms(stats.get(f'p{q}')):>7}" for q in PERCENTILES) + f" {_ms(stats.get('max')):>7}")
    lines.append("verdicts: " + ", ".join(f"{k}={v}" for k, v in report["verdicts"].items()))
    for server in report["servers"]:
        utilisation = server.get("utilisation")
        stages = ", ".join(f"{stage} {_ms(mean)} ms" for stage, mean in server.get("stage_mean_s", {}).items()
                           if mean is not None)
        lines.append(f"pool {server['url']}: {server['slots']:.0f} slots, "
                     f"utilisation {'-' if utilisation is None else f'{utilisation:.0%}'}, "
                     f"max queued {server['max_queued']}; mean per stage: {stages or '-'}")
    lines += [f"error: {error}" for error in report["errors"]]
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Regression:
    what: str
    baseline: float
    current: float

    def __str__(self) -> str:
        return f"REGRESSION {self.what}: {self.baseline:.4g} -> {self.current:.4g}"


def compare(current: dict[str, Any], baseline: dict[str, Any], tolerance: float = 0.10) -> list[Regression]:
    """What got worse than the baseline by more than `tolerance` (a fraction), or appeared at all."""
    found = []
    if current["throughput_cps"] < baseline["throughput_cps"] * (1 - tolerance):
        found.append(Regression("throughput (candidates/s)", baseline["throughput_cps"], current["throughput_cps"]))
    pairs = [("all candidates", current["latency"]["candidate"], baseline["latency"]["candidate"])]
    pairs += [(f"language {name}", stats, baseline["latency"]["by_language"][name])
              for name, stats in current["latency"]["by_language"].items()
              if name in baseline["latency"]["by_language"]]
    for name, now, before in pairs:
        for q in PERCENTILES:
            key = f"p{q}"
            if key in now and key in before and now[key] > before[key] * (1 + tolerance):
                found.append(Regression(f"{name} latency {key} (s)", before[key], now[key]))
    for key in ("error_batches", "lost", "unexpected", "infra"):
        if current[key] > baseline[key]:
            found.append(Regression(key, baseline[key], current[key]))
    return found
