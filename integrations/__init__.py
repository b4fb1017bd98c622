"""Training frameworks beyond TRL (trainers/): one module per framework, each importing its framework lazily
(only when the framework loads it), plus what they share (`batching`: one Score call for many concurrent
per-sample calls). docs/integrations.md says how each framework is pointed at the server."""
