"""`config set` and `config unset`: heartcompass.toml changed by a command,
one commit each, with a hand edit of the file committed first. config.py
reads and edits the file's text and stays light for startup; this module
is the part that commits."""

from __future__ import annotations

from heartcompass.store.audit import BY_HAND, Verb, commit_or_roll_back, subject, write_transaction
from heartcompass.store.config import KEYS, load_for_commit, parse_value, set_value, unset_value, valid_keys_text
from heartcompass.errors import ConfigError
from heartcompass.store.workspace import Workspace


def commit_hand_edit(ws: Workspace, strict: bool = True) -> bool:
    """Commit a hand edit of heartcompass.toml on its own (`edit(config): by
    hand`), refusing one that carries a credential. False: none pending.
    strict=False: a bad value is committed as the user wrote it (config
    set/unset, about to fix it, keep the user's bytes and ours apart)."""
    if not ws.git.status([ws.config_path]):
        return False
    load_for_commit(ws.config_path, strict)  # never commit (or push) a credential put in by hand
    ws.git.commit([ws.config_path], subject(Verb.EDIT, "config", BY_HAND))
    return True


def set_config(ws: Workspace, key: str, raw: str):
    """`config set`: a hand edit of heartcompass.toml is committed first."""
    parse_value(key, raw)  # refuse before touching anything
    with write_transaction(ws, "config set"):
        commit_hand_edit(ws, strict=False)
        value = set_value(ws.config_path, key, raw)
        try:  # the commit follows the new setting by itself: git.hooks is read from the file
            return value, commit_or_roll_back(ws, [ws.config_path], subject(Verb.CONFIG, None, f"{key} = {value!r}"),
                                              what=f"{ws.config_path.name}")
        finally:
            ws.reload_config()  # what runs next reads the file as it is now: changed, or put back


def unset_config(ws: Workspace, key: str):
    """`config unset`: like set_config, the key's line leaves the file."""
    if key not in KEYS:
        raise ConfigError(f"Unknown setting {key!r}.", valid_keys_text(key))
    with write_transaction(ws, "config unset"):
        commit_hand_edit(ws, strict=False)
        if not unset_value(ws.config_path, key):
            return False, None
        try:
            return True, commit_or_roll_back(ws, [ws.config_path], subject(Verb.CONFIG, None, f"unset {key}"),
                                             what=f"{ws.config_path.name}")
        finally:
            ws.reload_config()  # as set_config's
