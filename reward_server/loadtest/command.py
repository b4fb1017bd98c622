"""`reward-server loadtest`: drive one or several reward servers with a workload mix and report.

Closed loop by default (--concurrency batches always in flight); --rate R sends R batches per second
whatever the latency (open loop). Prints a table, writes the JSON report and a PNG plot beside it, and
with --compare flags regressions against a saved report (exit status 1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from reward_server.cli_types import positive_int, positive_ints
from reward_server.client import AsyncRewardClient, ServerUnavailable
from reward_server.commands import connection
from reward_server.loadtest.driver import Driver, Limits
from reward_server.loadtest.plot import write_plot
from reward_server.loadtest.report import build_report, compare, format_table
from reward_server.loadtest.scrape import ServerWatch, metrics_url, watch
from reward_server.loadtest.workload import OUTCOMES, Mix, Workload, WorkloadError, parse_weights


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("loadtest", help="load-test reward servers and report throughput and latency",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    connection.add_arguments(p)
    p.add_argument("--duration", type=float, required=True, help="seconds to keep sending")
    p.add_argument("--count", type=int, default=None, help="stop after sending this many candidates")
    p.add_argument("--report", type=Path, required=True, help="JSON report path (the plot goes beside it)")
    loop = p.add_mutually_exclusive_group()
    loop.add_argument("--concurrency", type=positive_int, default=4, help="closed loop: batches in flight")
    loop.add_argument("--rate", type=float, default=None, help="open loop: batches per second")
    p.add_argument("--languages", default="python", help="weights, e.g. python=3,cpp=1 (server keys or aliases)")
    p.add_argument("--mix", default="pass=0.6,fail=0.3,timeout=0.1", help="shares of pass, fail, timeout")
    p.add_argument("--equation-share", type=float, default=0.0, help="fraction of equational candidates")
    p.add_argument("--batch-sizes", type=positive_ints, default=(16,), help="comma-separated; each batch draws one")
    p.add_argument("--timeout-s", type=float, default=1.0, help="limit for the timing-out programs")
    p.add_argument("--metrics", default=None,
                   help="the servers' metrics endpoints, HOST:PORT or URL, comma-separated (pool utilisation)")
    p.add_argument("--compare", type=Path, default=None, help="a saved report to flag regressions against")
    p.add_argument("--tolerance", type=float, default=0.10, help="allowed relative worsening for --compare")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)


async def _run(args: argparse.Namespace, mix: Mix) -> tuple[dict, object]:
    client = await AsyncRewardClient.connect(args.server, **connection.client_options(args))
    try:
        workload = Workload(mix, await client.languages(), seed=args.seed)
        limits = Limits(duration_s=args.duration, count=args.count, concurrency=args.concurrency, rate=args.rate)
        watches = [ServerWatch(metrics_url(a)) for a in (args.metrics or "").split(",") if a.strip()]
        stop = asyncio.Event()
        started = time.monotonic()
        watchers = [asyncio.create_task(watch(w, started, stop)) for w in watches]
        try:
            run_log = await Driver(client, workload, limits).run(started)
        finally:
            stop.set()
            await asyncio.gather(*watchers)
    finally:
        await client.close()
    config = {"servers": client.addresses, "limits": vars(limits), "mix": mix.describe(), "seed": args.seed}
    return build_report(run_log, config=config, servers=[w.summary() for w in watches]), run_log


@connection.reporting("loadtest")
def run(args: argparse.Namespace) -> int:
    try:
        mix = Mix(languages=parse_weights(args.languages),
                  outcomes=parse_weights(args.mix, allowed=OUTCOMES),
                  equation_share=args.equation_share, batch_sizes=args.batch_sizes, timeout_s=args.timeout_s)
        baseline = json.loads(args.compare.read_text()) if args.compare else None
        report, run_log = asyncio.run(_run(args, mix))
    except (WorkloadError, ServerUnavailable, OSError, json.JSONDecodeError) as exc:
        print(f"reward-server loadtest: {exc}", file=sys.stderr)
        return 2
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, indent=2) + "\n")
    plot = args.report.with_suffix(".png")
    write_plot(run_log, report, plot)
    print(format_table(report))
    print(f"wrote {args.report} and {plot}")
    if baseline is None:
        return 0
    regressions = compare(report, baseline, args.tolerance)
    for regression in regressions:
        print(regression)
    print(f"{len(regressions)} regression(s) against {args.compare}")
    return 1 if regressions else 0
