"""Running this repository's Python as `nobody`, from a root test: the one recipe the non-root tests share."""

from __future__ import annotations

import pathlib
import site


def as_nobody(repo: pathlib.Path, view: pathlib.Path, *python_args: str) -> list[str]:
    """The argv (to run as root) that runs `python3 PYTHON_ARGS...` as `nobody`: in a private mount namespace the
    repository is bound at `view` (an empty directory anyone may enter), since its own path may pass through
    directories only root may enter, and the system's python3 runs in it with this environment's packages."""
    packages = ":".join(str(view / pathlib.Path(path).relative_to(repo)) for path in site.getsitepackages())
    script = ('repo="$1" view="$2"; shift 2; mount --bind "$repo" "$view" && cd "$view" && '
              'exec setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH=/usr/bin:/bin HOME=/tmp '
              f'PYTHONPATH="$view:{packages}" PYTHONUNBUFFERED=1 /usr/bin/python3 "$@"')
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", str(repo), str(view),
            *python_args]
