import sys

print("{marker}", file=sys.stderr, flush=True)
