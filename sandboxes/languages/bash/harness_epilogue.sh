echo "{marker}" >&2
