"""The one problem model: a `Problem` type, one loader per benchmark, prompts, and Problem -> reward.v1 Candidate.

Eval (`reward_server.evaluation`) and training (`trainers`) both load their problems here and grade them
through `Problem.candidate`, so eval grades exactly what training grades. This package imports nothing of
ours but the generated protobuf; language names for prompts come in through `benchmarks.prompts`' protocols.
"""
