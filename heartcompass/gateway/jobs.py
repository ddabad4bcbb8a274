"""The gateway's work: an app chat and the person it talks to
(`Conversation`), and a `Job` the worker thread does for it. Apart from
`core` (which runs the jobs) so that `commands` can queue one without
importing the module that imports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heartcompass.talk.burst import Burst
    from heartcompass.talk.chat import ChatSession


@dataclass
class Conversation:
    """One app chat and the person it talks to."""
    channel: str
    chat: str
    session: ChatSession | None = None
    burst: Burst | None = None
    refused_commit: bool = False   # git refused a commit: said once, retried until it works
    retry_at: float = 0.0


@dataclass
class Job:
    kind: str            # "reply", "retry", "tell", "answer" (an offer's or question's Yes/No), "review", "commit", "durable" (fsync)
    conv: Conversation
    session: ChatSession | None = None
    arg: Any = None
