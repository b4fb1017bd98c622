printf '%s\n' '{marker}' >&2
