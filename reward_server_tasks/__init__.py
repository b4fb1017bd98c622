"""The verifiers taskset `reward-server-tasks`: verifiers imports a taskset by a top-level module name and takes
its classes from `__all__`; they live in integrations/verifiers.py."""

from integrations.verifiers import ProblemData, ProblemsConfig, ProblemsTaskset, ProblemTask, ServerTaskConfig

__all__ = ["ProblemData", "ProblemTask", "ProblemsConfig", "ProblemsTaskset", "ServerTaskConfig"]
