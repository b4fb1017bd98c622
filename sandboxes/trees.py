"""Looking through and removing the trees programs leave in their workspaces, whatever their shape.

A program chooses the shape of what it leaves: a chain of directories thousands deep (shutil.rmtree recurses, and
a path through it is longer than PATH_MAX), directories it made unreadable or unwritable (chmod 000), names of odd
bytes. So a walk holds one directory open at a time, goes by names relative to it (never a full path), and climbs
back through `..` checked against the directory it came down from; the removal makes each directory its owner's to
empty before it empties it. Neither crosses into another filesystem: a mount inside the tree is left alone (for the
removal, an error).

Only for trees nothing runs in any more (the slot's or container's processes are killed first): a directory's mode
is changed by name, which a process renaming things meanwhile could race.

Standard library only: the docker image's runner imports it too.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OWNER_ALL = stat.S_IRWXU


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove `path` and everything under it (nothing to do where it does not exist). Raises OSError where something
    cannot be removed: what could be is gone by then."""
    path = os.path.abspath(path)
    parent = os.open(os.path.dirname(path), _DIRECTORY)
    try:
        name = os.path.basename(path)
        try:
            found = os.lstat(name, dir_fd=parent)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(found.st_mode):
            top = _open_directory(parent, name, found.st_dev)
            try:
                _empty(top)
            finally:
                os.close(top)
            os.rmdir(name, dir_fd=parent)
        else:
            os.unlink(name, dir_fd=parent)
    finally:
        os.close(parent)


def empty_tree(path: str | os.PathLike[str]) -> None:
    """Remove everything under the directory `path`, which stays. Raises OSError as remove_tree does."""
    top = os.open(path, _DIRECTORY)
    try:
        _owners(top)
        _empty(top)
    finally:
        os.close(top)


def has_file_at_least(path: str | os.PathLike[str], size: int) -> bool:
    """Whether a file of at least `size` bytes is anywhere under the directory `path` (a run's file-size limit hit);
    the tree is only looked at, never changed: a directory its owner made unreadable is not looked into."""
    try:
        top = os.open(path, _DIRECTORY)
    except OSError:
        return False
    device = os.fstat(top).st_dev

    def files_below(fd: int) -> list[str]:
        directories = []
        with os.scandir(fd) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    directories.append(entry.name)
                elif entry.stat(follow_symlinks=False).st_size >= size:
                    raise _Found
        return directories

    def readable(fd: int, name: str) -> int | None:
        try:
            below = os.open(name, _DIRECTORY, dir_fd=fd)
        except OSError:
            return None
        if os.fstat(below).st_dev != device:
            os.close(below)
            return None
        return below

    try:
        _walk(top, files_below, readable, lambda fd, name: None)
    except _Found:
        return True
    finally:
        os.close(top)
    return False


class _Found(Exception):
    """What has_file_at_least looks for is there: the walk can stop."""


def _empty(top: int) -> None:
    """Empty the directory open as `top` (already its owner's to empty). What cannot be removed is skipped, the rest
    removed, then the first failure raised."""
    device = os.fstat(top).st_dev
    failures: list[OSError] = []

    def owned(fd: int, name: str) -> int | None:
        try:
            return _open_directory(fd, name, device)
        except OSError as e:
            _keep_first(failures, e)
            return None

    def removed(fd: int, name: str) -> None:
        try:
            os.rmdir(name, dir_fd=fd)
        except OSError as e:
            _keep_first(failures, e)

    _walk(top, lambda fd: _remove_files(fd, failures), owned, removed)
    if failures:
        raise failures[0]


def _walk(top: int, enter: Callable[[int], list[str]], descend: Callable[[int, str], int | None],
          leave: Callable[[int, str], None]) -> None:
    """Depth first under the directory open as `top`, one directory open at a time: `enter(fd)` handles a directory's
    entries and names the subdirectories to walk, `descend(fd, name)` opens one (None: not walked), `leave(fd, name)`
    follows its walk, in its parent. The way back up is `..`, checked against the directory it came down from."""
    here = os.dup(top)
    # the levels above `here`: each one's (device, inode), the name `here` has in it, the directories left to walk
    above: list[tuple[tuple[int, int], str, list[str]]] = []
    try:
        left = enter(here)
        while True:
            if left:
                name = left.pop()
                below = descend(here, name)
                if below is None:
                    continue
                above.append((_identity(here), name, left))
                os.close(here)
                here = below
                left = enter(here)
                continue
            if not above:
                return
            identity, name, left = above.pop()
            parent = os.open("..", _DIRECTORY, dir_fd=here)
            os.close(here)
            here = parent
            if _identity(here) != identity:
                raise OSError(errno.ESTALE, "the tree moved while it was walked")
            leave(here, name)
    finally:
        os.close(here)


def _open_directory(parent: int, name: str, device: int) -> int:
    """The directory `name` in `parent`, open and its owner's to empty; a mount (another device) is refused."""
    try:
        fd = os.open(name, _DIRECTORY, dir_fd=parent)
    except PermissionError:      # chmod 000: its owner (or root) may give the mode back first
        os.chmod(name, _OWNER_ALL, dir_fd=parent)
        fd = os.open(name, _DIRECTORY, dir_fd=parent)
    try:
        if os.fstat(fd).st_dev != device:
            raise OSError(errno.EXDEV, "a mount inside the tree, left alone", name)
        _owners(fd)
    except OSError:
        os.close(fd)
        raise
    return fd


def _owners(fd: int) -> None:
    """Make the directory open as `fd` readable, writable and searchable by its owner (we are it, or root)."""
    mode = os.fstat(fd).st_mode
    if mode & _OWNER_ALL != _OWNER_ALL:
        os.fchmod(fd, stat.S_IMODE(mode) | _OWNER_ALL)


def _remove_files(fd: int, failures: list[OSError]) -> list[str]:
    """Unlink every entry of the directory open as `fd` but its subdirectories, whose names it returns; what cannot
    be unlinked is noted in `failures`."""
    with os.scandir(fd) as scan:
        entries = list(scan)
    directories = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            directories.append(entry.name)
            continue
        try:
            os.unlink(entry.name, dir_fd=fd)
        except FileNotFoundError:
            pass
        except OSError as e:
            _keep_first(failures, e)
    return directories


def _keep_first(failures: list[OSError], failure: OSError) -> None:
    """Note a failure: the first one is what is raised, and a tree may hold millions of the same."""
    if not failures:
        failures.append(failure)


def _identity(fd: int) -> tuple[int, int]:
    found = os.fstat(fd)
    return found.st_dev, found.st_ino
