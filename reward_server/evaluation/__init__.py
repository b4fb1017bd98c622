"""Eval client: pass@k of a model's completions on benchmark problems, graded by the reward server."""
