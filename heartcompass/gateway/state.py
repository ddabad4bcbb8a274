"""What `serve` remembers between runs, per channel, in
.heartcompass/serve/<channel>.json (local state, never committed): the
update offset (Telegram), the message ids already handled (so a message
delivered again after a restart is not handled twice), who each app chat is
talking to, the owner's chats (for the morning digest), the strangers
already refused (one refusal each) and the chats whose last messages are
not answered yet (for the next serve, when this one is killed: recovery.py).

Two files, so that a message costs one small append rather than a whole
file replaced (a rename over a file is nearly an fsync on ext4): each
handled message id, with the offset, is appended to <channel>.tail
(one line, one write, no fsync), and <channel>.json, the whole state, is
replaced (temp file, rename) when something else changes (who a chat talks
to, a stranger refused) and, fsynced, once per quiet moment: the gateway's
worker calls make_durable() at most every DURABLE_EVERY seconds, and at stop; then
the tail starts afresh. Loading reads the json, then replays the tail.

What a crash does: killed at any point, the process leaves whole files (a
torn last tail line is skipped), and what it wrote is in the kernel: a
message handled before the crash is not handled again after it. A message
is logged before it is marked handled, so nothing is ever lost; and just
before it is logged, <channel>.held says so (`Held`: which day log, its
size then, a fingerprint of the text; one small file overwritten per
message, no fsync, apart from the json and the tail so that replacing them
never drops it). Killed between the log's append and the mark, the message
comes back once from the app: the next serve reads that log from that size
(recovery.settle) and, finding the line, marks it handled without logging
it twice. A power cut can bring back only the updates of the last seconds
before it (not yet fsynced). A broken json is set aside and state starts
afresh (it only saves work: the logs are the truth)."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path

from heartcompass.atomic import write_atomic

SEEN_KEEP = 5000      # message ids remembered: far more than an app ever redelivers
REFUSED_KEEP = 500    # strangers remembered as refused
TAIL_KEEP = 1000      # tail lines at most: then the json is replaced (a worker that never rests)
HELD_BYTES = 1024     # <channel>.held's size: a record and the spaces after it


def fingerprint(text: str) -> str:
    """A message's text as the state keeps it: the text itself stays in the log only."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Held:
    """An owner's message about to be logged (one at a time: deliveries take turns)."""
    id: str           # the message id: handled once it is in `seen`
    chat: str         # the app chat, answered by the next serve when the line is there
    slug: str         # the person whose day log it goes to
    log: str          # that day log, relative to the workspace
    size: int         # the log's size before the append: the line, if written, is after it
    fingerprint: str  # fingerprint(text) of the text logged

    @classmethod
    def from_dict(cls, data: dict) -> Held:
        return cls(str(data["id"]), str(data["chat"]), str(data["slug"]), str(data["log"]), int(data["size"]),
                   str(data["fingerprint"]))


class ChannelState:
    def __init__(self, path: Path):
        self.path = path
        self.tail = path.with_suffix(".tail")
        self._old_tail = path.with_suffix(".journal")  # its name before 2026-12, replayed too
        self._mu = threading.Lock()
        self._write_mu = threading.Lock()  # one write at a time, so the newest state lands last
        self.offset = 0
        self.seen: OrderedDict[str, None] = OrderedDict()
        self.chats: dict[str, str] = {}       # app chat id -> person slug
        self.owner_chats: dict[str, str] = {}  # sender id -> their private chat id (digest)
        self.refused: OrderedDict[str, None] = OrderedDict()
        self.digest_day = ""                   # the last day the digest went out
        self.unanswered: dict[str, str] = {}   # app chat id -> person slug: a burst logged, not answered yet
        self._fresh: list[str] = []   # ids handled since the last write
        self._rest = ""               # what the json last held besides the ids and the offset
        self._offset_written = 0
        self._not_durable = False     # written since the last fsync
        self._tail_lines = 0          # lines in the tail
        self._load()
        self.held_path = path.with_suffix(".held")  # the message being logged (hold)

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            offset = int(data.get("offset", 0))
            seen = [str(i) for i in data.get("seen", [])]
            chats = {str(k): str(v) for k, v in dict(data.get("chats", {})).items()}
            owners = {str(k): str(v) for k, v in dict(data.get("owner_chats", {})).items()}
            refused = [str(i) for i in data.get("refused", [])]
            digest_day = str(data.get("digest_day", ""))
            unanswered = {str(k): str(v) for k, v in dict(data.get("unanswered", {})).items()}
        except FileNotFoundError:
            offset, seen, chats, owners, refused, digest_day, unanswered = 0, [], {}, {}, [], "", {}
        except (OSError, ValueError, TypeError, AttributeError):
            # Not ours to trust any more: keep it for a look, and start afresh.
            try:
                self.path.replace(self.path.with_suffix(".broken"))
            except OSError:
                pass
            offset, seen, chats, owners, refused, digest_day, unanswered = 0, [], {}, {}, [], "", {}
        self.offset, self.chats, self.owner_chats, self.digest_day = offset, chats, owners, digest_day
        self.unanswered = unanswered
        self.seen = OrderedDict.fromkeys(seen[-SEEN_KEEP:])
        self.refused = OrderedDict.fromkeys(refused[-REFUSED_KEEP:])
        self._rest, self._offset_written = self._rest_text(), offset
        self._not_durable = self.path.exists()  # maybe never fsynced (the last serve was killed): once, to be sure
        for line in self._read_tail(self._old_tail) + self._read_tail(self.tail):
            self._tail_lines += 1
            if "id" in line:
                self.mark_seen(str(line["id"]))
            self.offset = self._offset_written = int(line.get("offset", self.offset))
            self._not_durable = True  # the first make_durable() puts it in the json, for good
        self._fresh = []

    def _read_tail(self, path: Path) -> list[dict]:
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            return []
        lines = []
        for raw in text.split("\n"):
            try:
                line = json.loads(raw)
                if isinstance(line, dict):
                    int(line.get("offset", 0))
                    lines.append(line)
            except (ValueError, TypeError):  # a torn last line (killed mid-write), or not ours: skipped
                continue
        return lines

    def _rest_text(self) -> str:
        return json.dumps({"chats": self.chats, "owner_chats": self.owner_chats, "refused": list(self.refused),
                           "digest_day": self.digest_day, "unanswered": self.unanswered}, ensure_ascii=False,
                          sort_keys=True)

    def save(self, durable: bool = False) -> None:
        """Write what changed: handled ids appended to the tail, anything
        else by replacing the json (durable: the json, fsynced, whatever changed)."""
        with self._write_mu:
            with self._mu:
                rest, fresh, offset = self._rest_text(), self._fresh, self.offset
                self._fresh = []
                whole = (rest != self._rest or self._tail_lines + len(fresh) > TAIL_KEEP
                         or durable and (self._not_durable or bool(fresh) or offset != self._offset_written))
                text = json.dumps({"offset": offset, "seen": list(self.seen), "chats": self.chats,
                                   "owner_chats": self.owner_chats, "refused": list(self.refused),
                                   "digest_day": self.digest_day, "unanswered": self.unanswered},
                                  ensure_ascii=False) if whole else ""
            try:
                if whole:
                    write_atomic(self.path, text, durable=durable)
                    self.tail.unlink(missing_ok=True)  # all in the json now
                    self._old_tail.unlink(missing_ok=True)
                    self._rest, self._tail_lines = rest, 0
                elif fresh or offset != self._offset_written:
                    lines = [{"id": i, "offset": offset} for i in fresh] or [{"offset": offset}]
                    self._append(lines)
                    self._tail_lines += len(lines)
                else:
                    return
            except BaseException:
                with self._mu:
                    self._fresh = (fresh + self._fresh)[-SEEN_KEEP:]  # written next time
                raise
            self._offset_written = offset
            self._not_durable = not durable

    def _append(self, lines: list[dict]) -> None:
        from heartcompass import paths
        from heartcompass.atomic import write_refusals_named

        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        with write_refusals_named(paths.check(self.tail)):
            self.tail.parent.mkdir(parents=True, exist_ok=True)
            fd = paths.open_regular(self.tail, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, data)  # one write: a crash keeps it whole or not at all
            finally:
                os.close(fd)

    def not_durable(self) -> bool:
        """Written, or handled, since the last fsync (make_durable() has work to do)."""
        return self._not_durable or bool(self._fresh)

    def make_durable(self) -> None:
        """Everything in the json, fsynced: a power cut loses none of it."""
        self.save(durable=True)

    def is_seen(self, message_id: str) -> bool:
        return message_id in self.seen

    def mark_seen(self, message_id: str) -> None:
        with self._mu:
            self.seen[message_id] = None
            self._fresh.append(message_id)
            while len(self.seen) > SEEN_KEEP:
                self.seen.popitem(last=False)

    def hold(self, held: Held) -> None:
        """Say the message is being logged, before it is: <channel>.held
        overwritten in place (one write, no fsync; padded with spaces, never
        truncated: a truncation costs ten times the write). Killed mid-write,
        it is not read back, and the log was not written yet either: its
        redelivery logs it."""
        from heartcompass import paths
        from heartcompass.atomic import write_refusals_named

        data = json.dumps(asdict(held), ensure_ascii=False).encode("utf-8")
        with write_refusals_named(paths.check(self.held_path)):
            self.held_path.parent.mkdir(parents=True, exist_ok=True)
            fd = paths.open_regular(self.held_path, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.pwrite(fd, data.ljust(max(HELD_BYTES, os.fstat(fd).st_size)), 0)
            finally:
                os.close(fd)

    def interrupted(self) -> Held | None:
        """The message the last serve was logging when it was killed (not marked handled), if any."""
        try:
            held = Held.from_dict(json.loads(self.held_path.read_bytes().decode("utf-8")))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):  # none, or torn: the log has not it
            return None
        return None if held.id in self.seen else held

    def let_go(self) -> None:
        """The held message was never logged: forgotten (its redelivery logs it)."""
        self.held_path.unlink(missing_ok=True)

    def await_answer(self, chat: str, slug: str) -> None:
        """The chat's burst is logged and not answered yet (written with the next save)."""
        with self._mu:
            self.unanswered[chat] = slug

    def answered(self, chat: str) -> bool:
        """The chat's burst is answered (or said to be unanswerable); True when it was waiting."""
        with self._mu:
            return self.unanswered.pop(chat, None) is not None

    def unanswered_chats(self) -> list[tuple[str, str]]:
        with self._mu:
            return list(self.unanswered.items())

    def refuse_once(self, sender: str) -> bool:
        """True the first time this stranger is seen (they get the one refusal)."""
        with self._mu:
            if sender in self.refused:
                return False
            self.refused[sender] = None
            while len(self.refused) > REFUSED_KEEP:
                self.refused.popitem(last=False)
            return True


def state_for(state_dir: Path, channel: str) -> ChannelState:
    return ChannelState(state_dir / "serve" / f"{channel}.json")
