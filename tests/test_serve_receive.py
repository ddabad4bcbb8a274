"""A channel's `receive` never does git work while holding the gateway's
condition (gateway/core.py `_cv`): the worker waits on that condition, so a
commit there (or the 30 s wait for the workspace lock before one) would
stall every answer and the SIGTERM commit. Opening a chat's session (its
commit of what was pending), /switch, /quote and a pairing's config commit
all happen on the receiving thread, outside it."""

from __future__ import annotations

import git
from serve_helpers import Recording, log_entries

from heartcompass.gateway.core import Gateway, Incoming
from heartcompass.gateway.state import state_for
from heartcompass.store.config_edit import set_config
from heartcompass.store.gitplain import PlainGit
from heartcompass.store.lock import FileLock


def _watch_git_work(monkeypatch, gw: Gateway) -> list[tuple[str, bool]]:
    """Every git command (through GitPython, or plain git's quick look) and every lock taken, with whether
    this thread held the condition then."""
    seen: list[tuple[str, bool]] = []
    real_execute, real_acquire, real_plain = git.cmd.Git.execute, FileLock.acquire, PlainGit.run

    def execute(self, command, *args, **kwargs):
        seen.append((" ".join(str(c) for c in command if not str(c).startswith("-"))[:60], gw._cv._is_owned()))
        return real_execute(self, command, *args, **kwargs)

    def plain(self, *args, **kwargs):
        seen.append((" ".join(["git", *(a for a in args if not a.startswith("-"))])[:60], gw._cv._is_owned()))
        return real_plain(self, *args, **kwargs)

    def acquire(self):
        seen.append((f"lock {self.path.name}", gw._cv._is_owned()))
        return real_acquire(self)

    monkeypatch.setattr(git.cmd.Git, "execute", execute)
    monkeypatch.setattr(PlainGit, "run", plain)
    monkeypatch.setattr(FileLock, "acquire", acquire)
    return seen


def test_receive_commits_and_waits_for_the_lock_outside_the_workers_condition(example_ws, monkeypatch):
    set_config(example_ws, "telegram.allowed_users", "42")
    profile = example_ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\nLoves 抹茶.\n", encoding="utf-8")  # pending hand edit
    state = state_for(example_ws.state_dir, "telegram")
    state.chats["42"] = "alice"
    channel = Recording()
    gw = Gateway(example_ws, {"telegram": channel}, {"telegram": state}, make_model=lambda: None, quiet=60,
                 delays=(0.0, 0.0), pair_code="pair-123456")
    seen = _watch_git_work(monkeypatch, gw)
    head = example_ws.git.head()

    gw.receive(Incoming("telegram", "42", "42", "m1", text="hello 你好"))       # opens the session: commit_before
    opened = len(seen)
    gw.receive(Incoming("telegram", "42", "42", "m2", text="/quote see you there!"))
    quoted = len(seen)
    gw.receive(Incoming("telegram", "42", "42", "m3", text="/switch alice"))
    switched = len(seen)
    gw.receive(Incoming("telegram", "99", "99", "m4", text="pair-123456"))     # a new owner: config committed

    assert 0 < opened < quoted < switched < len(seen), seen                  # each did git work
    assert any(what.startswith("lock lock") for what, _ in seen[:opened]), seen
    assert [what for what, held in seen if held] == []                       # none of it with the condition held
    assert example_ws.git.head() != head                                     # the hand edit, quote, config: committed
    assert "99" in example_ws.config.get("telegram.allowed_users")
    assert "see you there!" in (example_ws.people_dir / "alice" / "VOICE.md").read_text(encoding="utf-8")
    assert "hello 你好" in [e.text for e in log_entries(example_ws, "alice") if e.speaker == "me"]
    assert not gw.idle()  # its burst, flushed by /switch, waits for the worker
