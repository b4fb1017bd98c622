"""Where completions come from: a JSONL file, MultiPL-E per-problem .json.gz files, or a model.

Models are sampled through an OpenAI-compatible HTTP endpoint (e.g. `vllm serve`, `transformers serve`) or
a vLLM engine in this process (imported only when asked for). Generated completions are appended to a JSONL
file as each problem finishes, so an interrupted run resumes without sampling a finished problem again.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import gzip
import http.client
import itertools
import json
import logging
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import multipl_e
from benchmarks.problem import Problem, ProblemFormatError
from sandboxes.languages import LanguageTable

log = logging.getLogger(__name__)

CompletionMap = dict[str, list[str]]   # problem id -> completions, in sample order
MULTIPL_E_SUFFIX = ".json.gz"
MULTIPL_E_RESULTS_SUFFIX = ".results.json.gz"
# Retries of a request to an OpenAI-compatible endpoint (429, 5xx, a broken connection): attempts in all,
# and the backoff before the second one, doubling up to the cap (a server's Retry-After is used instead).
ATTEMPTS = 6
BACKOFF_S = 0.5
MAX_BACKOFF_S = 30.0


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


class _Transient(Exception):
    """A failure worth retrying: the server is busy or restarting, or the connection broke mid-answer."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def _retry_after(value: str | None) -> float | None:
    try:
        return min(max(float(value), 0.0), MAX_BACKOFF_S) if value is not None else None
    except ValueError:
        return None   # an HTTP date: use our own backoff


def _post_once(url: str, body: dict[str, Any], timeout_s: float) -> Any:
    headers = {"Content-Type": "application/json"}
    if key := os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            data = response.read()
    except urllib.error.HTTPError as exc:
        text = exc.read()[:500].decode("utf-8", "replace")
        if exc.code == 429 or exc.code >= 500:
            raise _Transient(f"HTTP {exc.code}: {text}", _retry_after(exc.headers.get("Retry-After"))) from None
        hint = " (not an OpenAI-compatible API? --endpoint is the base URL, e.g. http://host:8000/v1)" \
            if exc.code in (404, 405) else ""
        raise GenerationError(f"{url}: HTTP {exc.code}{hint}: {text}") from None
    except (http.client.IncompleteRead, ConnectionError) as exc:   # a torn answer, a reset
        raise _Transient(f"connection broken: {exc!r}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, ConnectionError):
            raise _Transient(f"cannot connect: {exc.reason}") from None
        raise GenerationError(f"{url}: {exc.reason}") from None
    except TimeoutError:
        raise GenerationError(f"{url}: no answer within {timeout_s:g}s") from None
    try:
        return json.loads(data)
    except ValueError:
        excerpt = data[:200].decode("utf-8", "replace")
        raise GenerationError(f"{url}: the answer is not JSON (not an OpenAI-compatible API?): {excerpt!r}") from None


def _post_json(url: str, body: dict[str, Any], timeout_s: float) -> Any:
    """POST with retries: 429 and 5xx answers and broken connections are retried with exponential backoff
    (or the server's Retry-After); any other failure is a GenerationError at once."""
    for attempt in itertools.count(1):
        try:
            return _post_once(url, body, timeout_s)
        except _Transient as exc:
            if attempt == ATTEMPTS:
                raise GenerationError(f"{url}: {exc} (gave up after {ATTEMPTS} attempts)") from None
            delay = exc.retry_after_s
            if delay is None:
                delay = min(BACKOFF_S * 2 ** (attempt - 1), MAX_BACKOFF_S) * random.uniform(0.5, 1.0)
            log.warning("%s: %s; retrying in %.1fs (attempt %d of %d)", url, exc, delay, attempt + 1, ATTEMPTS)
            time.sleep(delay)


def _choice_text(choice: dict[str, Any], chat: bool) -> Any:
    if not chat:
        return choice.get("text")
    message = choice.get("message")
    if not isinstance(message, dict):
        return None
    return message.get("content") or ""   # null content (e.g. a refusal): an empty answer


def _choice_texts(url: str, answer: Any, chat: bool) -> list[str]:
    """The choices' texts in index order; a GenerationError names what a non-OpenAI answer lacks."""
    choices = answer.get("choices") if isinstance(answer, dict) else None
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        raise GenerationError(f"{url}: no 'choices' list in the answer (not an OpenAI-compatible API?): "
                              f"{json.dumps(answer)[:300]}")
    texts = [_choice_text(choice, chat) for choice in sorted(choices, key=lambda c: c.get("index") or 0)]
    if not all(isinstance(text, str) for text in texts):
        field = "message.content" if chat else "text"
        raise GenerationError(f"{url}: a choice has no string '{field}': {json.dumps(choices)[:300]}")
    return texts


class EndpointGenerator:
    """Samples from an OpenAI-compatible server: function-style prompts are continued (/completions,
    with the problem's stop tokens); io and equational prompts are asked as a chat (/chat/completions).

    Many servers return fewer choices than `n` asks for (some ignore it): the rest is asked for again, in
    requests no larger than the smallest answer seen so far, all within `concurrency` requests in flight.
    """

    def __init__(self, base_url: str, model: str, sampling: Sampling, *, concurrency: int = 8,
                 timeout_s: float = 600.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.sampling = sampling
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self._per_request = sampling.n   # lowered to what the server actually returns

    def _sample(self, problem: Problem, n: int) -> list[str]:
        body: dict[str, Any] = {"model": self.model, "n": n, "temperature": self.sampling.temperature,
                                "top_p": self.sampling.top_p, "max_tokens": self.sampling.max_tokens}
        if problem.kind == "function":
            url = f"{self.base_url}/completions"
            body |= {"prompt": problem.code_prompt, "stop": list(problem.stop_tokens)}
        else:
            url = f"{self.base_url}/chat/completions"
            body["messages"] = problem.chat
        texts = _choice_texts(url, _post_json(url, body, self.timeout_s), chat=problem.kind != "function")
        if not texts:
            raise GenerationError(f"{url}: asked for {n} choice(s) for {problem.id}, got none")
        return texts[:n]

    def generate(self, problems: Sequence[Problem], on_done: Callable[[Problem, list[str]], None]) -> None:
        """Calls `on_done` once per problem with its n samples, as each problem completes."""
        got: dict[str, list[str]] = {problem.id: [] for problem in problems}
        owed = collections.deque((problem, self.sampling.n) for problem in problems)   # choices not yet asked for
        with concurrent.futures.ThreadPoolExecutor(self.concurrency) as executor:
            running: dict[concurrent.futures.Future[list[str]], tuple[Problem, int]] = {}
            while owed or running:
                while owed and len(running) < self.concurrency:
                    problem, count = owed.popleft()
                    asked = min(count, self._per_request)
                    if count > asked:
                        owed.appendleft((problem, count - asked))
                    running[executor.submit(self._sample, problem, asked)] = (problem, asked)
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
