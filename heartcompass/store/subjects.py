"""Commit subjects: `<verb>(<slug>): <what>` (or `<verb>: <what>` for the
whole workspace), built by `subject` and read back by `parse_subject`, and
the body lines HeartCompass's commits carry (a folder moved by hand, an
undo's "This reverts commit"). The grammar alone: nothing here touches git,
so `lineage` and `audit` can both read it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Verb(str, Enum):
    """Every commit subject's verb. All are HeartCompass's own changes except
    EDIT, the user's hand edits (the gardener never rewrites their lines)."""
    INIT = "init"            # init: new HeartCompass workspace
    ADD = "add"              # add(<slug>): new person | example person | from character card X
    RENAME = "rename"        # rename(<new>): from <old>
    ARCHIVE = "archive"      # archive(<slug>): moved to people/.archive
    UNARCHIVE = "unarchive"  # unarchive(<slug>): back from people/.archive
    RESTORE = "restore"      # restore(<slug>): FILE as of <sha>
    UNDO = "undo"            # undo(<scope of the undone commit>): <its subject>
    CONFIG = "config"        # config: KEY = VALUE | config: unset KEY
    CHAT = "chat"            # chat(<slug>): N messages on DAY
    LOG = "log"              # log(<slug>): chat log DAY (a log left uncommitted)
    GARDEN = "garden"        # garden(<slug>): what changed, from which logs
    TELL = "tell"            # tell(<slug>): what the user told
    IMPORT = "import"        # import(<slug>): N messages from a FORMAT export
    SYNC = "sync"            # no commit of its own today; a workspace's older history may have it
    COACH = "coach"          # coach(<slug>): N messages of a real conversation
    VOICE = "voice"          # voice(<slug>): their lines and rhythm from the logs
    QUOTE = "quote"          # quote(<slug>): “a line kept”
    REVIEW = "review"        # review(<slug>): what the user's Yes changed, e.g. relation friend → dating
    EDIT = "edit"            # edit(<slug or config>): by hand | FILE by hand


BY_HAND = "by hand"  # what a hand edit's commit says: edit(<slug>): by hand
OURS = frozenset(v.value for v in Verb if v is not Verb.EDIT)


@dataclass(frozen=True)
class Subject:
    verb: str          # one of Verb's values for our commits; a user's own commit may use any word
    scope: str | None  # a person's slug, "config", or None for the whole workspace
    what: str

    @property
    def by_hand(self) -> bool:
        """The user's change: `edit(...)`, or a verb that is not ours."""
        return self.verb not in OURS


# A scope is a slug or "config": slugs hold no ':' (slugs.py) but may hold ')'.
_SUBJECT = re.compile(r"(?P<verb>[a-z-]+)(?:\((?P<scope>[^:]+?)\))?: (?P<what>.*)", re.S)


# A commit-msg hook may put a prefix before our subject ("[ABC-1] chat(bob): ..."):
# read past it, but only to one of our own verbs, so a user's "fix: ..." stays theirs.
_PREFIXED = re.compile(r".*?\s(?P<verb>" + "|".join(sorted(Verb._value2member_map_, key=len, reverse=True))
                       + r")(?:\((?P<scope>[^:]+?)\))?: (?P<what>.*)", re.S)


def subject(verb: Verb, scope: str | None, what: str) -> str:
    """`verb(scope): what`, or `verb: what` without a scope. One line, and no
    terminal controls or bidi overrides: `git log` prints it raw."""
    from heartcompass.sanitize import strip_controls

    what = strip_controls(what).replace("\n", " ")
    return f"{verb.value}({scope}): {what}" if scope else f"{verb.value}: {what}"


def parse_subject(text: str) -> Subject | None:
    """`verb(scope): what` or `verb: what` read back; None for any other
    shape (a merge, a free-form message the user committed with git)."""
    m = _SUBJECT.fullmatch(text) or _PREFIXED.fullmatch(text)
    return Subject(m["verb"], m["scope"], m["what"]) if m else None


def is_hand_subject(text: str) -> bool:
    """A commit the user made: `edit(...)` or anything not HeartCompass's own."""
    parsed = parse_subject(text)
    return parsed is None or parsed.by_hand


def scope_of(text: str) -> str:
    parsed = parse_subject(text)
    return parsed.scope if parsed and parsed.scope else "workspace"


MOVED_FROM = "Moved by hand from "  # a hand edit's body line: the person's folder was moved (lineage follows it)
REVERTS_PREFIX = "This reverts commit "  # an undo's body, as git revert writes it
_REVERTS = re.compile(re.escape(REVERTS_PREFIX) + r"([0-9a-f]{40})")


def reverted_by(body: str) -> list[str]:
    """The commits an undo's message body says it takes back."""
    return _REVERTS.findall(body)
