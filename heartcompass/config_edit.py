"""`config set` and `config unset`: heartcompass.toml changed by a command,
one commit each, with a hand edit of the file committed first (config.py
reads and edits the file's text; it stays light for startup, this module
is the part that commits)."""

from __future__ import annotations

from heartcompass.audit import commit_or_roll_back, writing
from heartcompass.workspace import Workspace


def set_config(ws: Workspace, key: str, raw: str):
    """`config set`: a hand edit of heartcompass.toml is committed first."""
    from heartcompass.config import load_for_commit, parse_value, set_value

    parse_value(key, raw)  # refuse before touching anything
    with writing(ws, "config set"):
        if ws.git.status([ws.config_path]):
            load_for_commit(ws.config_path)
            ws.git.commit([ws.config_path], "edit(config): by hand")
        value = set_value(ws.config_path, key, raw)
        ws.reload_config()  # the commit already follows the new setting (git.hooks false: no hooks)
        try:
            return value, commit_or_roll_back(ws, [ws.config_path], f"config: {key} = {value!r}",
                                              what=f"{ws.config_path.name}")
        finally:
            ws.reload_config()


def unset_config(ws: Workspace, key: str):
    """`config unset`: like set_config, the key's line leaves the file."""
    from heartcompass.config import KEYS, load_for_commit, unset_value, valid_keys_text
    from heartcompass.errors import ConfigError

    if key not in KEYS:
        raise ConfigError(f"Unknown setting {key!r}.", valid_keys_text())
    with writing(ws, "config unset"):
        if ws.git.status([ws.config_path]):
            load_for_commit(ws.config_path)
            ws.git.commit([ws.config_path], "edit(config): by hand")
        if not unset_value(ws.config_path, key):
            return False, None
        return True, commit_or_roll_back(ws, [ws.config_path], f"config: unset {key}",
                                         what=f"{ws.config_path.name}")
