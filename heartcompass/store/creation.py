"""Creating a workspace: `init` from the shipped template (with its first
commit and, asked for, the example person) and `init --from`, a second
device's copy of a remote. Apart from `workspace`, which only finds one,
so that finding a workspace needs neither git nor the commit trail."""

from __future__ import annotations

import os
from pathlib import Path

from heartcompass.errors import WorkspaceNotFound
from heartcompass.resources import shipped_dir
from heartcompass.store import config as config_mod
from heartcompass.store.workspace import DEFAULT_PATH, ENV_HOME, Workspace, is_workspace


def init_target(path: str | Path | None, explicit: str | Path | None = None) -> tuple[Path, str]:
    """Where `init` builds the workspace, and why there: PATH, else
    --workspace, else $HEARTCOMPASS_HOME, else ~/HeartCompass (the order
    every other command finds it in, so the next command finds this one)."""
    for source, given in (("the PATH given", path), ("--workspace", explicit),
                          (f"${ENV_HOME}", os.environ.get(ENV_HOME))):
        if given:
            return Path(given).expanduser(), source
    return DEFAULT_PATH.expanduser(), "the default"


def copy_template(dest: Path) -> list[Path]:
    """Copy the shipped template into dest, never overwriting a file."""
    src = shipped_dir("workspace_template")
    created: list[Path] = []
    dest.mkdir(parents=True, exist_ok=True)
    for item in sorted(src.rglob("*")):  # sorted: each folder comes before what is in it
        if "__pycache__" in item.parts:
            continue
        target = dest / item.relative_to(src)
        if item.is_dir():
            target.mkdir(exist_ok=True)
        elif not target.exists():
            import shutil  # only init copies files: listing people never needs it

            shutil.copyfile(item, target)
            created.append(target)
    return created


def create_workspace(path: Path, force: bool = False, example: bool = False) -> tuple[Workspace, bool]:
    """Build a workspace from the template, git init, first commit.
    Returns (workspace, created); an existing workspace is left as it is."""
    path = Path(path).expanduser()
    if is_workspace(path):  # left as it is; the caller may add_example() and say so
        ws = Workspace(path)
        if ws.git.is_repo() and ws.git.head() is not None:
            return ws, False
        # A first init stopped before its commit (git refused it): finished now, keeping every file.
        _first_commit(ws, copy_template(ws.root))
        if example:
            add_example(ws)
        return ws, True
    if path.exists() and not path.is_dir():
        raise WorkspaceNotFound(f"{path} is a file, not a folder.")
    if path.is_dir() and any(path.iterdir()) and not force:
        raise WorkspaceNotFound(
            f"{path} is not empty and is not a HeartCompass workspace.",
            "Choose an empty or new folder, or add --force to set up a workspace here (no file is overwritten).")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkspaceNotFound(f"{path}: cannot create this folder ({exc.strerror or exc}).",
                                "Choose a folder you can write to, e.g. 'heartcompass init ~/HeartCompass'.") from None
    ws = Workspace(path)
    _first_commit(ws, copy_template(ws.root))
    if example:
        add_example(ws)
    return ws, True


def _first_commit(ws: Workspace, created: list[Path]) -> None:
    from heartcompass.store.audit import Verb, subject

    template = shipped_dir("workspace_template")
    ours = [ws.root / p.relative_to(template) for p in template.rglob("*") if p.is_file() and
            "__pycache__" not in p.parts]
    ws.git.init()
    ws.git.commit([p for p in {*created, *ours} if p.exists()], subject(Verb.INIT, None, "new HeartCompass workspace"))


def clone_workspace(path: Path, url: str) -> tuple[Workspace, str]:
    """A second device: the workspace at git remote url, copied into path
    (a new or empty folder) with `origin` set for sync. Returns it and its
    branch. On any failure the folder is left as it was found."""
    import shutil

    path = Path(path).expanduser()
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise WorkspaceNotFound(f"{path} is not empty; a workspace is copied into a new or empty folder.",
                                "Choose another folder, e.g. 'heartcompass init ~/HeartCompass --from URL'.")
    made = not path.exists()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkspaceNotFound(f"{path}: cannot create this folder ({exc.strerror or exc}).") from None
    try:
        ws = Workspace(path)
        ws.git.init()
        branch = ws.git.adopt("origin", url)
        if not is_workspace(path):
            raise WorkspaceNotFound(f"{url} is a git repository but not a HeartCompass workspace (it has no "
                                    f"{config_mod.FILENAME}); nothing was set up.",
                                    "Give the remote that 'heartcompass sync' pushes to (git remote -v on the "
                                    "first device).")
        return Workspace(path), branch
    except BaseException:
        if made:
            shutil.rmtree(path, ignore_errors=True)
        else:  # it was empty: empty again
            for child in path.iterdir():
                shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink()
        raise


EXAMPLE_SLUG = "alice"
EXAMPLE_LINK_BACK = "close friend since university"  # how the user's profile names her (hers names them so)


def add_example(ws: Workspace) -> bool:
    """Add the shipped example person (Alice), once."""
    dest = ws.people_dir / EXAMPLE_SLUG
    if dest.exists() or (ws.archive_dir / EXAMPLE_SLUG).exists():
        return False
    from heartcompass.store.people import collisions

    if collisions(ws, ["Alice Chen", "小爱"]):  # she is there under another name (renamed)
        return False
    src = shipped_dir("examples") / EXAMPLE_SLUG
    from heartcompass.store.audit import Verb, commit_or_roll_back, subject, write_transaction

    with write_transaction(ws, "init --example"):
        import shutil

        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
        linked = _link_back_to_example(ws)
        commit_or_roll_back(ws, [dest, *linked], subject(Verb.ADD, EXAMPLE_SLUG, "example person"),
                            what=f"people/{EXAMPLE_SLUG}/")
    return True


def _link_back_to_example(ws: Workspace) -> list[Path]:
    """Alice names `me` in her `related`; the user's own profile names her back,
    so the example's link goes both ways (doctor warns about a one-sided one).
    A hand edit of that profile is committed first, on its own; a profile that
    does not parse is left as it is (the link then stays one-sided)."""
    from heartcompass.atomic import write_atomic
    from heartcompass.store.audit import commit_pending
    from heartcompass.errors import HeartCompassError
    from heartcompass.formats import profile as profile_fmt
    from heartcompass.store.people import Person

    me = Person("me", ws.people_dir / "me")
    if not me.profile_path.is_file():
        return []
    try:
        commit_pending(ws, [me])
        prof = me.load_profile()
    except HeartCompassError:
        return []
    if prof.relation != "self" or any(link["person"] == EXAMPLE_SLUG for link in prof.related):
        return []
    prof.set("related", [*(prof.doc.meta.get("related") or []), {"person": EXAMPLE_SLUG, "as": EXAMPLE_LINK_BACK}])
    write_atomic(me.profile_path, profile_fmt.render(prof))
    return [me.profile_path]
