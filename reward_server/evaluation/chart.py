"""The eval chart: pass@k bars per benchmark, per language and overall, as a PNG (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_chart(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = (list(summary["by_benchmark"].items())
              + list(summary["by_language"].items())
              + [("overall", summary["overall"])])
    ks = summary["ks"]
    width = 0.8 / max(len(ks), 1)
    figure, axes = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) * max(len(ks), 1)), 4.5))
    for position, k in enumerate(ks):
        values = [g["pass_at_k"][str(k)] or 0.0 for _, g in groups]
        xs = [i + (position - (len(ks) - 1) / 2) * width for i in range(len(groups))]
        bars = axes.bar(xs, values, width, label=f"pass@{k}")
        axes.bar_label(bars, fmt="%.2f", fontsize=7)
    axes.set_xticks(range(len(groups)), [name for name, _ in groups], rotation=30, ha="right")
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("pass@k (infra excluded)")
    axes.set_title(f"pass@k over {summary['overall']['problems']} problems, "
                   f"{summary['overall']['scored']} graded completions, {summary['overall']['infra']} infra")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
