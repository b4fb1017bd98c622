"""Where completions come from: a JSONL file, MultiPL-E per-problem .json.gz files, or a model.

Models are sampled through an OpenAI-compatible HTTP endpoint (e.g. `vllm serve`) or a vLLM engine in
this process (imported only when asked for). Generated completions are appended to a JSONL file as each
problem finishes, so an interrupted run resumes without sampling a finished problem again.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import gzip
import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from reward_server.evaluation.problems import Problem, ProblemFormatError, problem_from_multipl_e

CompletionMap = dict[str, list[str]]   # problem id -> completions, in sample order
MULTIPL_E_SUFFIX = ".json.gz"
MULTIPL_E_RESULTS_SUFFIX = ".results.json.gz"


class GenerationError(RuntimeError):
    """The model endpoint or engine did not return the completions asked for."""


@dataclasses.dataclass(frozen=True)
class Sampling:
    n: int
    temperature: float
    top_p: float
    max_tokens: int


def read_completions_jsonl(path: Path) -> CompletionMap:
    """Rows {"problem_id": ..., "completion": ...} (HumanEval's "task_id" is accepted); order = sample order."""
    completions: CompletionMap = {}
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            problem_id = row.get("problem_id", row.get("task_id"))
            if not isinstance(problem_id, str) or not isinstance(row.get("completion"), str):
                raise ProblemFormatError(f"{path}:{number}: need string 'problem_id' and 'completion'")
            completions.setdefault(problem_id, []).append(row["completion"])
    return completions


def append_completions(path: Path, problem_id: str, texts: Sequence[str]) -> None:
    with path.open("a", encoding="utf-8") as stream:
        for text in texts:
            stream.write(json.dumps({"problem_id": problem_id, "completion": text}) + "\n")


def multipl_e_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir()
                  if p.name.endswith(MULTIPL_E_SUFFIX) and not p.name.endswith(MULTIPL_E_RESULTS_SUFFIX))


def read_multipl_e_dir(directory: Path) -> tuple[list[Problem], CompletionMap]:
    """A MultiPL-E completions directory: one <name>.json.gz per problem holding the problem and its samples."""
    problems, completions = [], {}
    files = multipl_e_files(directory)
    if not files:
        raise ProblemFormatError(f"{directory}: no MultiPL-E *{MULTIPL_E_SUFFIX} files")
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            row = json.load(stream)
        try:
            problem = problem_from_multipl_e(row, directory.name)
        except KeyError as exc:
            raise ProblemFormatError(f"{path}: missing field {exc}") from None
        problems.append(problem)
        completions[problem.id] = list(row.get("completions", []))
    return problems, completions


def read_completions(path: Path) -> tuple[list[Problem], CompletionMap]:
    """Completions from a file or a MultiPL-E directory; the problems too when the source carries them."""
    if path.is_dir():
        return read_multipl_e_dir(path)
    return [], read_completions_jsonl(path)


def _post_json(url: str, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    if key := os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        raise GenerationError(f"{url}: HTTP {exc.code}: {exc.read()[:500].decode('utf-8', 'replace')}") from None
    except (urllib.error.URLError, TimeoutError) as exc:
        raise GenerationError(f"{url}: {exc}") from None


class EndpointGenerator:
    """Samples from an OpenAI-compatible server: function-style prompts are continued (/completions,
    with the problem's stop tokens); io and equational prompts are asked as a chat (/chat/completions)."""

    def __init__(self, base_url: str, model: str, sampling: Sampling, *, concurrency: int = 8,
                 timeout_s: float = 600.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.sampling = sampling
        self.concurrency = concurrency
        self.timeout_s = timeout_s

    def _sample(self, problem: Problem) -> list[str]:
        body: dict[str, Any] = {"model": self.model, "n": self.sampling.n, "temperature": self.sampling.temperature,
                                "top_p": self.sampling.top_p, "max_tokens": self.sampling.max_tokens}
        if problem.kind == "function":
            url, field = f"{self.base_url}/completions", "text"
            body |= {"prompt": problem.prompt, "stop": list(problem.stop_tokens)}
        else:
            url, field = f"{self.base_url}/chat/completions", "message"
            body["messages"] = problem.chat
        choices = sorted(_post_json(url, body, self.timeout_s).get("choices", []), key=lambda c: c["index"])
        if len(choices) != self.sampling.n:
            raise GenerationError(f"{url}: asked for {self.sampling.n} choices for {problem.id}, got {len(choices)}")
        return [c[field] if field == "text" else c[field]["content"] for c in choices]

    def generate(self, problems: Sequence[Problem], on_done: Callable[[Problem, list[str]], None]) -> None:
        with concurrent.futures.ThreadPoolExecutor(self.concurrency) as executor:
            futures = {executor.submit(self._sample, problem): problem for problem in problems}
            for future in concurrent.futures.as_completed(futures):
                on_done(futures[future], future.result())


class VLLMGenerator:
    """Samples with a vLLM engine in this process (the optional `vllm` extra)."""

    def __init__(self, model: str, sampling: Sampling) -> None:
        try:
            import vllm
        except ImportError as exc:
            raise GenerationError("--model without --endpoint needs vLLM: pip install 'reward-server[vllm]'") \
                from exc
        self._vllm = vllm
        self.sampling = sampling
        self.engine = vllm.LLM(model=model)

    def _params(self, problem: Problem) -> Any:
        return self._vllm.SamplingParams(n=self.sampling.n, temperature=self.sampling.temperature,
                                         top_p=self.sampling.top_p, max_tokens=self.sampling.max_tokens,
                                         stop=list(problem.stop_tokens) or None)

    def generate(self, problems: Sequence[Problem], on_done: Callable[[Problem, list[str]], None]) -> None:
        plain = [p for p in problems if p.kind == "function"]
        chat = [p for p in problems if p.kind != "function"]
        if plain:
            outputs = self.engine.generate([p.prompt for p in plain], [self._params(p) for p in plain])
            for problem, output in zip(plain, outputs, strict=True):
                on_done(problem, [o.text for o in output.outputs])
        if chat:
            outputs = self.engine.chat([p.chat for p in chat],
                                       [self._params(p) for p in chat])
            for problem, output in zip(chat, outputs, strict=True):
                on_done(problem, [o.text for o in output.outputs])
