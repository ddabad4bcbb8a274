"""git's tree objects, read and written in-process (a part of gitrepo.py's
commit_contents and blob_ids): the bytes of a tree are `<mode> <name>\\0`
and a 20-byte id per entry, sorted as git sorts them. Imports no git: the
caller reads and stores objects."""

from __future__ import annotations

from typing import Callable

FOLDER = 0o040000
Entries = dict[str, tuple[int, bytes]]  # name -> (mode, id)


def entries(data: bytes) -> Entries:
    """{name: (mode, id)} of a tree object's bytes."""
    found: Entries = {}
    i = 0
    while i < len(data):
        space = data.index(b" ", i)
        nul = data.index(b"\0", space)
        found[data[space + 1:nul].decode("utf-8", "surrogateescape")] = (int(data[i:space], 8),
                                                                         data[nul + 1:nul + 21])
        i = nul + 21
    return found


def tree_with(read: Callable[[bytes], Entries], tree: bytes | None, changes: dict[tuple[str, ...], bytes],
              store: Callable[[str, bytes], bytes], prefix: str = "") -> tuple[bytes, Entries]:
    """(id of `tree` with these paths' blobs replaced, {path: (mode, blob)}).
    read(id) gives a tree's entries; store(kind, data) writes an object and
    gives its id."""
    here = read(tree) if tree is not None else {}
    blobs: Entries = {}
    below: dict[str, dict[tuple[str, ...], bytes]] = {}
    for parts, sha in changes.items():
        if len(parts) == 1:
            mode = here.get(parts[0], (0o100644, b""))[0]
            mode = mode if mode in (0o100644, 0o100755) else 0o100644
            here[parts[0]] = (mode, sha)
            blobs[prefix + parts[0]] = (mode, sha)
        else:
            below.setdefault(parts[0], {})[parts[1:]] = sha
    for name, sub in below.items():
        old = here.get(name)
        sha, found = tree_with(read, old[1] if old and old[0] == FOLDER else None, sub, store, f"{prefix}{name}/")
        here[name] = (FOLDER, sha)
        blobs.update(found)
    names = sorted(here, key=lambda n: n.encode("utf-8", "surrogateescape") + (
        b"/" if here[n][0] == FOLDER else b""))  # git's order: a folder sorts as "name/"
    data = b"".join(f"{here[n][0]:o} ".encode() + n.encode("utf-8", "surrogateescape") + b"\0" + here[n][1]
                    for n in names)
    return store("tree", data), blobs
