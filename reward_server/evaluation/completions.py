"""Where completions come from: a JSONL file, MultiPL-E per-problem .json.gz files, or a model.

Models are sampled through an OpenAI-compatible HTTP endpoint (e.g. `vllm serve`, `transformers serve`) with
the `openai` client, or a vLLM engine in this process (imported only when asked for). Generated completions
are appended to a JSONL file as each problem finishes, so an interrupted run resumes without sampling a
finished problem again.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import gzip
import json
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import openai

from benchmarks import multipl_e
from benchmarks.problem import Problem, ProblemFormatError
from sandboxes.languages import LanguageTable

log = logging.getLogger(__name__)

CompletionMap = dict[str, list[str]]   # problem id -> completions, in sample order
MULTIPL_E_SUFFIX = ".json.gz"
MULTIPL_E_RESULTS_SUFFIX = ".results.json.gz"
# The openai client's retries of a failed request (its default is 2): a local server restarting or a hosted
# one rate-limiting gets about 15 s of backoff before eval gives up.
RETRIES = 5


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
    table = LanguageTable.load()
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            row = json.load(stream)
        try:
            problem = multipl_e.problem(row, table, benchmark=directory.name)
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


def _not_the_api(url: str, what: str, excerpt: object) -> GenerationError:
    return GenerationError(f"{url}: {what} (not an OpenAI-compatible API? --endpoint is the base URL, "
                           f"e.g. http://host:8000/v1): {str(excerpt)[:300]}")


def _choice_text(choice: Any, chat: bool) -> Any:
    if not chat:
        return getattr(choice, "text", None)
    message = getattr(choice, "message", None)
    if message is None:
        return None
    return getattr(message, "content", None) or ""   # null content (e.g. a refusal): an empty answer


def _choice_texts(url: str, answer: Any, chat: bool) -> list[str]:
    """The choices' texts in index order. The client does not validate answers (a 200 that is not JSON comes
    back as its text), so what a non-OpenAI answer lacks is named here."""
    choices = getattr(answer, "choices", None)
    if not isinstance(choices, list):
        raise _not_the_api(url, "no 'choices' list in the answer", answer)
    texts = [_choice_text(choice, chat) for choice in sorted(choices, key=lambda c: getattr(c, "index", 0) or 0)]
    if not all(isinstance(text, str) for text in texts):
        field = "message.content" if chat else "text"
        raise GenerationError(f"{url}: a choice has no string '{field}': {str(choices)[:300]}")
    return texts


class EndpointGenerator:
    """Samples from an OpenAI-compatible server with the `openai` client: function-style prompts are
    continued (/completions, with the problem's stop tokens); io and equational prompts are asked as a chat
    (/chat/completions). The client retries 408, 409, 429 and 5xx answers, timeouts and broken connections
    (`RETRIES` times, exponential backoff or the server's Retry-After) and reuses connections.

    Many servers return fewer choices than `n` asks for (some ignore it): the rest is asked for again, in
    requests no larger than the smallest answer seen so far, all within `concurrency` requests in flight
    (one thread each, its retries included).
    """

    def __init__(self, base_url: str, model: str, sampling: Sampling, *, concurrency: int = 8) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.sampling = sampling
        self.concurrency = concurrency
        self._per_request = sampling.n   # lowered to what the server actually returns
        for transport in ("httpx", "httpx2"):   # the client's HTTP library (by openai version) logs every request
            logging.getLogger(transport).setLevel(logging.WARNING)

    def _client(self) -> openai.OpenAI:
        # A local server needs no key, but the client refuses to start without one; it sends whichever it has.
        return openai.OpenAI(base_url=self.base_url, api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY",
                             max_retries=RETRIES)

    def _sample(self, client: openai.OpenAI, problem: Problem, n: int) -> list[str]:
        common: dict[str, Any] = {"model": self.model, "n": n, "temperature": self.sampling.temperature,
                                  "top_p": self.sampling.top_p, "max_tokens": self.sampling.max_tokens}
        chat = problem.kind != "function"
        url = f"{self.base_url}/chat/completions" if chat else f"{self.base_url}/completions"
        try:
            if chat:
                answer = client.chat.completions.create(messages=problem.chat, **common)
            else:
                answer = client.completions.create(prompt=problem.code_prompt, stop=list(problem.stop_tokens),
                                                   **common)
        except openai.APIStatusError as exc:
            if exc.status_code in (404, 405):
                raise _not_the_api(url, f"HTTP {exc.status_code}", exc.message) from None
            raise GenerationError(f"{url}: HTTP {exc.status_code}: {exc.message}") from None
        except openai.APIError as exc:   # no connection or no answer in time, after the client's retries
            cause = f" ({exc.__cause__!r})" if exc.__cause__ else ""
            raise GenerationError(f"{url}: {exc.message}{cause}") from None
        texts = _choice_texts(url, answer, chat)
        if not texts:
            raise GenerationError(f"{url}: asked for {n} choice(s) for {problem.id}, got none")
        return texts[:n]

    def generate(self, problems: Sequence[Problem], on_done: Callable[[Problem, list[str]], None]) -> None:
        """Calls `on_done` once per problem with its n samples, as each problem completes."""
        got: dict[str, list[str]] = {problem.id: [] for problem in problems}
        owed = collections.deque((problem, self.sampling.n) for problem in problems)   # choices not yet asked for
        with self._client() as client, concurrent.futures.ThreadPoolExecutor(self.concurrency) as executor:
            running: dict[concurrent.futures.Future[list[str]], tuple[Problem, int]] = {}
            while owed or running:
                while owed and len(running) < self.concurrency:
                    problem, count = owed.popleft()
                    asked = min(count, self._per_request)
                    if count > asked:
                        owed.appendleft((problem, count - asked))
                    running[executor.submit(self._sample, client, problem, asked)] = (problem, asked)
                done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    problem, asked = running.pop(future)
                    texts = future.result()
                    got[problem.id] += texts
                    if len(texts) < asked:
                        if len(texts) < self._per_request:
                            log.info("%s returns %d choice(s) per request when asked for %d: asking again",
                                     self.base_url, len(texts), asked)
                            self._per_request = len(texts)
                        owed.appendleft((problem, asked - len(texts)))
                    elif len(got[problem.id]) == self.sampling.n:
                        on_done(problem, got.pop(problem.id))


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
            outputs = self.engine.generate([p.code_prompt for p in plain], [self._params(p) for p in plain])
            for problem, output in zip(plain, outputs, strict=True):
                on_done(problem, [o.text for o in output.outputs])
        if chat:
            outputs = self.engine.chat([p.chat for p in chat],
                                       [self._params(p) for p in chat])
            for problem, output in zip(chat, outputs, strict=True):
                on_done(problem, [o.text for o in output.outputs])
