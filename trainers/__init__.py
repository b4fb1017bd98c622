"""TRL adapters: benchmark Problems -> `datasets.Dataset`, the train/held-out split, reward functions, the
held-out eval callback, the GRPO script.

Problems, their loaders and prompts are the problem layer's (`benchmarks`); the reward server is reached only
through `reward_server.client`; torch/trl/datasets come from the `[train]` extra.
"""
