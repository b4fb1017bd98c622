"""Sandboxed execution of untrusted programs: the language table, backends and the pool.

Knows nothing of gRPC or grading: callers hand it source text and stdin and get run results back.
"""
