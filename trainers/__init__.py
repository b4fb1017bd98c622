"""TRL adapters: reward functions, benchmark datasets -> prompts, held-out eval callback, the GRPO script.

Talks to the reward server only through `reward_server.client`; torch/trl/datasets come from the `[train]` extra.
"""
