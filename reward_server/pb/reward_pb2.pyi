from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Priority(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRIORITY_UNSPECIFIED: _ClassVar[Priority]
    TRAINING: _ClassVar[Priority]
    EVAL: _ClassVar[Priority]
    BACKGROUND: _ClassVar[Priority]

class Extraction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXTRACTION_NONE: _ClassVar[Extraction]
    FIRST_BLOCK: _ClassVar[Extraction]
    LAST_BLOCK: _ClassVar[Extraction]

class Comparator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPARATOR_UNSPECIFIED: _ClassVar[Comparator]
    EXACT: _ClassVar[Comparator]
    LENIENT: _ClassVar[Comparator]
    LCB: _ClassVar[Comparator]

class Verdict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VERDICT_UNSPECIFIED: _ClassVar[Verdict]
    PASS: _ClassVar[Verdict]
    WRONG_ANSWER: _ClassVar[Verdict]
    COMPILE_ERROR: _ClassVar[Verdict]
    RUNTIME_ERROR: _ClassVar[Verdict]
    TIMEOUT: _ClassVar[Verdict]
    MEMORY_LIMIT: _ClassVar[Verdict]
    OUTPUT_LIMIT: _ClassVar[Verdict]
    NO_CODE: _ClassVar[Verdict]
    NO_VERDICT: _ClassVar[Verdict]
    EXITED_EARLY: _ClassVar[Verdict]
    BAD_COUNTEREXAMPLE: _ClassVar[Verdict]
    INFRA_UNPINNED_LANGUAGE: _ClassVar[Verdict]
    INFRA_UNKNOWN_LANGUAGE: _ClassVar[Verdict]
    INFRA_SANDBOX_ERROR: _ClassVar[Verdict]
    INFRA_OVERLOADED: _ClassVar[Verdict]
    INFRA_DEADLINE: _ClassVar[Verdict]
    INFRA_CHECKER_ERROR: _ClassVar[Verdict]
    INFRA_UNSUPPORTED_TEST: _ClassVar[Verdict]
PRIORITY_UNSPECIFIED: Priority
TRAINING: Priority
EVAL: Priority
BACKGROUND: Priority
EXTRACTION_NONE: Extraction
FIRST_BLOCK: Extraction
LAST_BLOCK: Extraction
COMPARATOR_UNSPECIFIED: Comparator
EXACT: Comparator
LENIENT: Comparator
LCB: Comparator
VERDICT_UNSPECIFIED: Verdict
PASS: Verdict
WRONG_ANSWER: Verdict
COMPILE_ERROR: Verdict
RUNTIME_ERROR: Verdict
TIMEOUT: Verdict
MEMORY_LIMIT: Verdict
OUTPUT_LIMIT: Verdict
NO_CODE: Verdict
NO_VERDICT: Verdict
EXITED_EARLY: Verdict
BAD_COUNTEREXAMPLE: Verdict
INFRA_UNPINNED_LANGUAGE: Verdict
INFRA_UNKNOWN_LANGUAGE: Verdict
INFRA_SANDBOX_ERROR: Verdict
INFRA_OVERLOADED: Verdict
INFRA_DEADLINE: Verdict
INFRA_CHECKER_ERROR: Verdict
INFRA_UNSUPPORTED_TEST: Verdict

class ScoreRequest(_message.Message):
    __slots__ = ("candidates", "priority", "caller")
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    candidates: _containers.RepeatedCompositeFieldContainer[Candidate]
    priority: Priority
    caller: str
    def __init__(self, candidates: _Optional[_Iterable[_Union[Candidate, _Mapping]]] = ..., priority: _Optional[_Union[Priority, str]] = ..., caller: _Optional[str] = ...) -> None: ...

class ScoreResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[ScoreResult]
    def __init__(self, results: _Optional[_Iterable[_Union[ScoreResult, _Mapping]]] = ...) -> None: ...

class Candidate(_message.Message):
    __slots__ = ("id", "code", "equation")
    ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    EQUATION_FIELD_NUMBER: _ClassVar[int]
    id: str
    code: CodeTask
    equation: EquationTask
    def __init__(self, id: _Optional[str] = ..., code: _Optional[_Union[CodeTask, _Mapping]] = ..., equation: _Optional[_Union[EquationTask, _Mapping]] = ...) -> None: ...

class IOTest(_message.Message):
    __slots__ = ("stdin", "expected_stdout")
    STDIN_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_STDOUT_FIELD_NUMBER: _ClassVar[int]
    stdin: str
    expected_stdout: str
    def __init__(self, stdin: _Optional[str] = ..., expected_stdout: _Optional[str] = ...) -> None: ...

class CodeTask(_message.Message):
    __slots__ = ("language", "completion", "extraction", "prompt", "stop_tokens", "tests", "io_tests", "comparator", "timeout_s", "memory_mb", "run_all_tests", "function_name", "checker")
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_FIELD_NUMBER: _ClassVar[int]
    EXTRACTION_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    STOP_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TESTS_FIELD_NUMBER: _ClassVar[int]
    IO_TESTS_FIELD_NUMBER: _ClassVar[int]
    COMPARATOR_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    MEMORY_MB_FIELD_NUMBER: _ClassVar[int]
    RUN_ALL_TESTS_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_NAME_FIELD_NUMBER: _ClassVar[int]
    CHECKER_FIELD_NUMBER: _ClassVar[int]
    language: str
    completion: str
    extraction: Extraction
    prompt: str
    stop_tokens: _containers.RepeatedScalarFieldContainer[str]
    tests: str
    io_tests: _containers.RepeatedCompositeFieldContainer[IOTest]
    comparator: Comparator
    timeout_s: float
    memory_mb: int
    run_all_tests: bool
    function_name: str
    checker: Checker
    def __init__(self, language: _Optional[str] = ..., completion: _Optional[str] = ..., extraction: _Optional[_Union[Extraction, str]] = ..., prompt: _Optional[str] = ..., stop_tokens: _Optional[_Iterable[str]] = ..., tests: _Optional[str] = ..., io_tests: _Optional[_Iterable[_Union[IOTest, _Mapping]]] = ..., comparator: _Optional[_Union[Comparator, str]] = ..., timeout_s: _Optional[float] = ..., memory_mb: _Optional[int] = ..., run_all_tests: _Optional[bool] = ..., function_name: _Optional[str] = ..., checker: _Optional[_Union[Checker, _Mapping]] = ...) -> None: ...

class Checker(_message.Message):
    __slots__ = ("language", "source")
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    language: str
    source: str
    def __init__(self, language: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class EquationTask(_message.Message):
    __slots__ = ("response", "expected", "equation1", "equation2", "require_counterexample")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    EQUATION1_FIELD_NUMBER: _ClassVar[int]
    EQUATION2_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_COUNTEREXAMPLE_FIELD_NUMBER: _ClassVar[int]
    response: str
    expected: bool
    equation1: str
    equation2: str
    require_counterexample: bool
    def __init__(self, response: _Optional[str] = ..., expected: _Optional[bool] = ..., equation1: _Optional[str] = ..., equation2: _Optional[str] = ..., require_counterexample: _Optional[bool] = ...) -> None: ...

class TestOutcome(_message.Message):
    __slots__ = ("index", "verdict", "elapsed_s", "detail", "cpu_s", "peak_memory_mb")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_S_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    CPU_S_FIELD_NUMBER: _ClassVar[int]
    PEAK_MEMORY_MB_FIELD_NUMBER: _ClassVar[int]
    index: int
    verdict: Verdict
    elapsed_s: float
    detail: str
    cpu_s: float
    peak_memory_mb: float
    def __init__(self, index: _Optional[int] = ..., verdict: _Optional[_Union[Verdict, str]] = ..., elapsed_s: _Optional[float] = ..., detail: _Optional[str] = ..., cpu_s: _Optional[float] = ..., peak_memory_mb: _Optional[float] = ...) -> None: ...

class ScoreResult(_message.Message):
    __slots__ = ("id", "verdict", "reward", "detail", "tests", "sandbox", "elapsed_s", "extracted", "index")
    ID_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    TESTS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_S_FIELD_NUMBER: _ClassVar[int]
    EXTRACTED_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    id: str
    verdict: Verdict
    reward: float
    detail: str
    tests: _containers.RepeatedCompositeFieldContainer[TestOutcome]
    sandbox: str
    elapsed_s: float
    extracted: str
    index: int
    def __init__(self, id: _Optional[str] = ..., verdict: _Optional[_Union[Verdict, str]] = ..., reward: _Optional[float] = ..., detail: _Optional[str] = ..., tests: _Optional[_Iterable[_Union[TestOutcome, _Mapping]]] = ..., sandbox: _Optional[str] = ..., elapsed_s: _Optional[float] = ..., extracted: _Optional[str] = ..., index: _Optional[int] = ...) -> None: ...

class ListLanguagesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Language(_message.Message):
    __slots__ = ("key", "aliases", "version", "sandbox", "ready", "reason")
    KEY_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    key: str
    aliases: _containers.RepeatedScalarFieldContainer[str]
    version: str
    sandbox: str
    ready: bool
    reason: str
    def __init__(self, key: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., version: _Optional[str] = ..., sandbox: _Optional[str] = ..., ready: _Optional[bool] = ..., reason: _Optional[str] = ...) -> None: ...

class ListLanguagesResponse(_message.Message):
    __slots__ = ("backend", "languages", "limits", "weaker_limits")
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    WEAKER_LIMITS_FIELD_NUMBER: _ClassVar[int]
    backend: str
    languages: _containers.RepeatedCompositeFieldContainer[Language]
    limits: str
    weaker_limits: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, backend: _Optional[str] = ..., languages: _Optional[_Iterable[_Union[Language, _Mapping]]] = ..., limits: _Optional[str] = ..., weaker_limits: _Optional[_Iterable[str]] = ...) -> None: ...
