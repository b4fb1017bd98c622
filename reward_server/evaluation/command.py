"""`reward-server eval`: pass@k of a model on benchmark problems, scored by the reward server.

Problems come from our JSONL format (--problems), a named benchmark (--benchmark) or a MultiPL-E
completions directory (which carries its problems). Completions come from a file or directory
(--completions), an OpenAI-compatible endpoint (--endpoint + --model; --endpoint defaults to
$OPENAI_BASE_URL, the key is $OPENAI_API_KEY) or vLLM in-process (--model, with neither).
Everything lands in --output: results.jsonl, summary.json, passk.png, and with --multipl-e-results the
MultiPL-E .results.json.gz layout. Re-running with the same --output resumes.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from benchmarks import problem_jsonl
from benchmarks.problem import Problem, ProblemFormatError
from reward_server.cli_types import positive_int, positive_ints
from reward_server.client import RewardClient
from reward_server.commands import connection
from reward_server.evaluation.benchmarks import NAMES, BenchmarkError, BenchmarkOptions, load_benchmark
from reward_server.evaluation.chart import write_chart
from reward_server.evaluation.completions import (
    EndpointGenerator,
    GenerationError,
    Sampling,
    VLLMGenerator,
    append_completions,
    read_completions,
    read_completions_jsonl,
)
from reward_server.evaluation.results import ResultStore, drop_torn_tail, write_multipl_e_results
from reward_server.evaluation.runner import latest, pending_work, score
from reward_server.evaluation.selfcheck import run_self_check
from reward_server.evaluation.summary import format_table, summarize

log = logging.getLogger(__name__)

DEFAULT_KS = (1, 10, 100)


def _ks(text: str) -> list[int]:
    return sorted(set(positive_ints(text)))


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("eval", help="pass@k of completions on benchmark problems; --self-check",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    connection.add_arguments(p)
    p.add_argument("--self-check", action="store_true",
                   help="grade known-good and known-bad programs in every ready language; exit 1 on any mismatch")
    p.add_argument("--self-check-limit", type=int, default=None,
                   help="HumanEval problems in the self-check (default: all 164)")
    p.add_argument("--self-check-languages", default=None,
                   help="comma-separated languages to self-check (default: every ready one)")
    problems = p.add_mutually_exclusive_group()
    problems.add_argument("--problems", type=Path, help="JSONL of problems (benchmarks/FORMAT.md)")
    problems.add_argument("--benchmark", choices=NAMES,
                          help="humaneval (built in) or a benchmark read from --benchmark-source")
    p.add_argument("--benchmark-source", help="file (.jsonl/.json) or hub NAME[:CONFIG] for --benchmark")
    p.add_argument("--lcb-languages", default="python", help="comma-separated languages for lcb-* benchmarks")
    p.add_argument("--sair-template", type=Path, help="prompt template for --benchmark sair")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--completions", type=Path,
                        help="JSONL of {problem_id, completion}, or a MultiPL-E directory of <name>.json.gz")
    source.add_argument("--endpoint", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 "
                        "(default: $OPENAI_BASE_URL; a key, if the server wants one: $OPENAI_API_KEY)")
    p.add_argument("--model", help="model name at --endpoint, or a model for vLLM in-process without it")
    p.add_argument("-n", type=positive_int, default=1,
                   help="samples per problem when generating (a server that returns fewer is asked again)")
    p.add_argument("--temperature", type=float, default=0.2)
    p.add_argument("--top-p", type=float, default=0.95)
    p.add_argument("--max-tokens", type=int, default=1024)
    p.add_argument("--concurrency", type=positive_int, default=8,
                   help="requests in flight to --endpoint, retries and asks for missing samples included")
    p.add_argument("-k", type=_ks, default=None, help="comma-separated k values (default 1,10,100 up to n)")
    p.add_argument("--output", type=Path, help="directory for results, summary and chart (resumable)")
    p.add_argument("--multipl-e-results", action="store_true",
                   help="also write MultiPL-E <name>.results.json.gz files under OUTPUT/multipl-e")
    p.add_argument("--batch-size", type=int, default=256, help="candidates per request")
    p.add_argument("--timeout", type=float, default=None, help="deadline per batch, seconds")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def _load_problems(args: argparse.Namespace) -> tuple[list[Problem], list[Problem]]:
    """(problems from --problems/--benchmark, problems carried by --completions)."""
    options = BenchmarkOptions(args.benchmark_source, tuple(args.lcb_languages.split(",")), args.sair_template)
    given = (problem_jsonl.load(args.problems) if args.problems
             else load_benchmark(args.benchmark, options) if args.benchmark else [])
    carried = []
    if args.completions is not None and args.completions.is_dir():
        carried, _ = read_completions(args.completions)
    return given, carried


def _completions(args: argparse.Namespace, problems: list[Problem]):
    if args.completions is not None:
        return read_completions(args.completions)[1]
    sampling = Sampling(args.n, args.temperature, args.top_p, args.max_tokens)
    path = args.output / "completions.jsonl"
    drop_torn_tail(path)
    have = read_completions_jsonl(path) if path.exists() else {}
    todo = [p for p in problems if len(have.get(p.id, [])) < args.n]
    if todo:
        log.info("sampling %d completion(s) for each of %d problem(s)", args.n, len(todo))
        generator = (EndpointGenerator(args.endpoint, args.model, sampling, concurrency=args.concurrency)
                     if args.endpoint else VLLMGenerator(args.model, sampling))
        generator.generate(todo, lambda problem, texts: append_completions(path, problem.id, texts))
    # a problem cut short by an interruption was sampled again in full: its last n samples are the set
    return {pid: texts[-args.n:] for pid, texts in read_completions_jsonl(path).items()}


def _validate(args: argparse.Namespace) -> str | None:
    if args.self_check:
        return None
    if args.output is None:
        return "--output is required"
    if args.endpoint and not args.model:
        return "--endpoint needs --model (the served model name; --endpoint defaults to $OPENAI_BASE_URL)"
    if args.completions is None and not args.model:
        return "give --completions, or --model (with --endpoint for an HTTP server)"
    if args.completions is None and not (args.problems or args.benchmark):
        return "generating completions needs --problems or --benchmark"
    if not (args.problems or args.benchmark or (args.completions and args.completions.is_dir())):
        return "give --problems or --benchmark (a completions file carries no problems)"
    return None


@connection.reporting("eval")
def run(args: argparse.Namespace) -> int:
    if args.endpoint is None and args.completions is None:   # what the openai client's users already export
        args.endpoint = os.environ.get("OPENAI_BASE_URL") or None
    if error := _validate(args):
        print(f"reward-server eval: {error}", file=sys.stderr)
        return 2
    if args.self_check:
        with RewardClient(args.server, timeout_s=args.timeout, **connection.client_options(args)) as client:
            only = args.self_check_languages.split(",") if args.self_check_languages else None
            return run_self_check(client, humaneval_limit=args.self_check_limit, only=only)
    try:
        given, carried = _load_problems(args)
        problems = given or carried
        args.output.mkdir(parents=True, exist_ok=True)
        completions = _completions(args, problems)
    except (ProblemFormatError, BenchmarkError, GenerationError, OSError) as exc:
        print(f"reward-server eval: {exc}", file=sys.stderr)
        return 2
    known = {p.id for p in problems}
    if unknown := sorted(set(completions) - known):
        log.warning("%d completion problem id(s) match no problem and are ignored, e.g. %s", len(unknown),
                    unknown[0])
    if missing := [p.id for p in problems if not completions.get(p.id)]:
        log.warning("%d problem(s) have no completions, e.g. %s", len(missing), missing[0])

    store = ResultStore(args.output / "results.jsonl")
    work = pending_work(problems, completions, latest(store.load()))
    log.info("%d completion(s) to score", len(work))
    with RewardClient(args.server, timeout_s=args.timeout, **connection.client_options(args)) as client:
        score(client, work, store, batch_size=args.batch_size, progress=not args.no_progress)

    records = [r for r in latest(store.load()).values() if r.problem_id in known]
    most = max((len(completions.get(p.id, [])) for p in problems), default=0)
    ks = args.k or [k for k in DEFAULT_KS if k <= most] or [1]
    summary = summarize(records, ks)
    summary["config"] = {"server": args.server, "problems": str(args.problems or args.benchmark or args.completions),
                         "benchmark_source": args.benchmark_source,
                         "completions": str(args.completions) if args.completions else None,
                         "endpoint": args.endpoint, "model": args.model,
                         "sampling": None if args.completions else {
                             "n": args.n, "temperature": args.temperature, "top_p": args.top_p,
                             "max_tokens": args.max_tokens}}
    (args.output / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    write_chart(summary, args.output / "passk.png")
    if args.multipl_e_results:
        write_multipl_e_results(args.output / "multipl-e", problems, records)
    print(format_table(summary))
    print(f"wrote {args.output}/summary.json, results.jsonl, passk.png")
    return 0
