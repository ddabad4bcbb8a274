"""The workspace: finding it and the paths inside it (creating one is `creation`)."""

from __future__ import annotations

import errno
import os
import stat
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from heartcompass.store import config as config_mod
from heartcompass.errors import WorkspaceNotFound

if TYPE_CHECKING:
    from heartcompass.store.gitrepo import WorkspaceGit

ENV_HOME = "HEARTCOMPASS_HOME"
DEFAULT_PATH = Path("~/HeartCompass")
NOT_FOUND_HINT = "Create one with 'heartcompass init [PATH]', or point to it with --workspace PATH or $HEARTCOMPASS_HOME."


class Workspace:
    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self._state_ok = False  # .heartcompass was checked (not a link) and made

    @property
    def config_path(self) -> Path:
        return self.root / config_mod.FILENAME

    @property
    def people_dir(self) -> Path:
        return self.root / "people"

    @property
    def archive_dir(self) -> Path:
        return self.people_dir / ".archive"

    @property
    def state_dir(self) -> Path:
        path = self.root / ".heartcompass"
        if self._state_ok:  # checked before: a folder still (one lstat; a link put there is not)
            try:
                if stat.S_ISDIR(os.lstat(path).st_mode):
                    return path
            except OSError:
                pass
        from heartcompass import paths

        try:
            paths.ensure_folder(paths.check(path))  # locks, journals, run logs: never outside
        except OSError as exc:  # a read-only workspace: reading goes on; a write says which file
            if not isinstance(exc, PermissionError) and exc.errno != errno.EROFS:
                raise
            from heartcompass.atomic import cache_not_saved

            cache_not_saved(path, exc)
            return path
        self._state_ok = True
        return path

    @property
    def prompts_dir(self) -> Path:
        return self.root / "prompts"

    @cached_property
    def config(self) -> config_mod.Config:
        return config_mod.load(self.config_path)

    def reload_config(self) -> None:
        self.__dict__.pop("config", None)

    @cached_property
    def git(self) -> WorkspaceGit:
        # Imported here: gitpython costs startup time that --help and
        # `person list` must not pay.
        from heartcompass.store.gitrepo import WorkspaceGit

        # Leniently: `config set` commits a file that may still hold another bad
        # value; an unreadable git.hooks is its default, no hooks.
        return WorkspaceGit(self.root, hooks=lambda: bool(config_mod.load(self.config_path, strict=False)
                                                           .get("git.hooks")))

    def rel(self, path: Path) -> str:
        # Lexically first: a path through a link (refused elsewhere) must still
        # be nameable in a message, not crash with "is not in the subpath".
        absolute = Path(os.path.abspath(path))
        if absolute == self.root or self.root in absolute.parents:
            return absolute.relative_to(self.root).as_posix()
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def is_workspace(path: Path) -> bool:
    return (path / config_mod.FILENAME).is_file()


def discover(explicit: str | Path | None = None, cwd: Path | None = None) -> Workspace:
    """--workspace, else $HEARTCOMPASS_HOME, else walk up from cwd, else ~/HeartCompass."""
    for label, given in (("--workspace", explicit), (f"${ENV_HOME}", os.environ.get(ENV_HOME))):
        if given:
            path = Path(given).expanduser()
            if not is_workspace(path):
                raise WorkspaceNotFound(f"{label} {path} is not a HeartCompass workspace (no {config_mod.FILENAME}).",
                                        NOT_FOUND_HINT)
            return Workspace(path)
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_workspace(folder):
            return Workspace(folder)
    default = DEFAULT_PATH.expanduser()
    if is_workspace(default):  # where a plain `heartcompass init` puts it
        return Workspace(default)
    raise WorkspaceNotFound("No HeartCompass workspace here or in any parent folder.", NOT_FOUND_HINT)


def keep_rejected(ws: Workspace, slug: str, filename: str, text: str) -> Path:
    """Keep the user's text that we could not take (an edit that did not
    validate, a log a stopped sync must not touch) under
    .heartcompass/rejected/ (git-ignored, so never committed): their
    typing is never lost, whatever they do next."""
    from heartcompass.atomic import write_atomic
    from heartcompass.store import clock

    folder = ws.state_dir / "rejected"
    folder.mkdir(exist_ok=True)
    stamp = clock.now(ws).strftime("%Y%m%d-%H%M%S")
    path = folder / f"{slug}-{filename}.{stamp}"
    n = 1
    while path.exists():  # two rejections in one second: keep both
        n += 1
        path = folder / f"{slug}-{filename}.{stamp}-{n}"
    write_atomic(path, text)
    return path
