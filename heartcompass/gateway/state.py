"""What `serve` remembers between runs, per channel, in
.heartcompass/serve/<channel>.json (local state, never committed): the
update offset (Telegram), the message ids already handled (so a message
delivered again after a restart is not handled twice), who each app chat is
talking to, the owner's chats (for the morning digest) and the strangers
already refused (one refusal each).

The file is replaced whole (temp file, rename) after every handled message,
so a crash of the process leaves the old or the new state, never half of
one, and the kernel keeps the new one: a message handled before the crash
is not handled again after it. (Killed between the log's append and this
write, one message comes back once: the log is written first, so nothing
is ever lost.) The fsync, which only a power cut needs, is paid once per
quiet moment (the gateway's worker calls sync() at most every SYNC_EVERY
seconds, and at stop), not once per message: a power cut can bring back
only the updates of those last seconds. A broken file is set aside and
state starts afresh (it only saves work: the logs are the truth)."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path

from heartcompass.atomic import write_atomic

SEEN_KEEP = 5000      # message ids remembered: far more than an app ever redelivers
REFUSED_KEEP = 500    # strangers remembered as refused


class ChannelState:
    def __init__(self, path: Path):
        self.path = path
        self._mu = threading.Lock()
        self._write_mu = threading.Lock()  # one write at a time, so the newest state lands last
        self._written = ""                 # the text last written, and the text last fsynced
        self._durable = ""
        self.offset = 0
        self.seen: OrderedDict[str, None] = OrderedDict()
        self.chats: dict[str, str] = {}       # app chat id -> person slug
        self.owner_chats: dict[str, str] = {}  # sender id -> their private chat id (digest)
        self.refused: OrderedDict[str, None] = OrderedDict()
        self.digest_day = ""                   # the last day the digest went out
        self._load()

    def _load(self) -> None:
        try:
            raw = self.path.read_text(encoding="utf-8")
            data = json.loads(raw)
            offset = int(data.get("offset", 0))
            seen = [str(i) for i in data.get("seen", [])]
            chats = {str(k): str(v) for k, v in dict(data.get("chats", {})).items()}
            owners = {str(k): str(v) for k, v in dict(data.get("owner_chats", {})).items()}
            refused = [str(i) for i in data.get("refused", [])]
            digest_day = str(data.get("digest_day", ""))
        except FileNotFoundError:
            return
        except (OSError, ValueError, TypeError, AttributeError):
            # Not ours to trust any more: keep it for a look, and start afresh.
            try:
                self.path.replace(self.path.with_suffix(".broken"))
            except OSError:
                pass
            return
        self.offset, self.chats, self.owner_chats, self.digest_day = offset, chats, owners, digest_day
        self._written = raw  # maybe never fsynced (a crash of the last serve): the first sync() does it
        self.seen = OrderedDict.fromkeys(seen[-SEEN_KEEP:])
        self.refused = OrderedDict.fromkeys(refused[-REFUSED_KEEP:])

    def save(self, durable: bool = False) -> None:
        """Replace the file with the state now (durable: fsynced too)."""
        with self._write_mu:
            with self._mu:
                data = {"offset": self.offset, "seen": list(self.seen), "chats": self.chats,
                        "owner_chats": self.owner_chats, "refused": list(self.refused),
                        "digest_day": self.digest_day}
                text = json.dumps(data, ensure_ascii=False)
            if text == self._written and (not durable or text == self._durable):
                return
            write_atomic(self.path, text, durable=durable)
            self._written = text
            if durable:
                self._durable = text

    def unsynced(self) -> bool:
        """Written since the last fsync (sync() has work to do)."""
        return self._written != self._durable

    def sync(self) -> None:
        self.save(durable=True)

    def is_seen(self, message_id: str) -> bool:
        return message_id in self.seen

    def mark_seen(self, message_id: str) -> None:
        with self._mu:
            self.seen[message_id] = None
            while len(self.seen) > SEEN_KEEP:
                self.seen.popitem(last=False)

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
