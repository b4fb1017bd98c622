"""The load-test plot: candidate latency over time (per language) and throughput over time, as a PNG."""

from __future__ import annotations

from pathlib import Path

from reward_server.loadtest.driver import RunLog


def write_plot(run: RunLog, report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (latency, throughput) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    languages = sorted({s.language for s in run.candidates})
    for language in languages:
        points = [s for s in run.candidates if s.language == language]
        latency.scatter([s.finished_s for s in points], [s.latency_s for s in points], s=6, label=language)
    latency.set_ylabel("candidate latency (s)")
    latency.set_yscale("log")
    if languages:
        latency.legend(fontsize=7, markerscale=2)
    line = report["timeline"]
    throughput.plot(line["t"], line["throughput"], label="completed candidates/s")
    if any(server["occupancy"] for server in report["servers"]):
        busy = throughput.twinx()
        for server in report["servers"]:
            busy.step([p[0] for p in server["occupancy"]], [p[1] for p in server["occupancy"]], where="post",
                      linestyle="--", label=f"busy slots {server['url']}")
        busy.set_ylabel("busy sandbox slots")
        busy.set_ylim(bottom=0)
        busy.legend(fontsize=7, loc="lower right")
    throughput.set_xlabel("time since start (s)")
    throughput.set_ylabel("candidates / s")
    throughput.set_ylim(bottom=0)
    throughput.legend(fontsize=7)
    latency.set_title(f"{report['completed']} candidates, {report['throughput_cps']:.1f}/s, "
                      f"p99 {report['latency']['candidate'].get('p99', 0):.2f}s")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
