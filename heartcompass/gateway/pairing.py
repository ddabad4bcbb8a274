"""The one-time code of `serve --pair`, against a stranger who guesses it.

The code pairs the first account that sends it, within LIFETIME seconds of
the start, and only from a private chat. Every text of the code's shape
that is not the code is a wrong guess: a sender has PER_SENDER of them
(after that even the right code from that account is not looked at), and
all senders together IN_ALL (then the code is withdrawn). The operator's
terminal is told of each wrong guess, so someone guessing is seen."""

from __future__ import annotations

import hmac
from typing import Callable

PREFIX = "pair-"
PER_SENDER = 3
IN_ALL = 20
LIFETIME = 600.0  # seconds: the owner sends it right after starting serve --pair


class Pairing:
    def __init__(self, code: str | None, monotonic: Callable[[], float], *, lifetime: float = LIFETIME,
                 per_sender: int = PER_SENDER, in_all: int = IN_ALL):
        self.code = code
        self.monotonic = monotonic
        self.expires = monotonic() + lifetime
        self.lifetime, self.per_sender, self.in_all = lifetime, per_sender, in_all
        self.wrong: dict[str, int] = {}
        self.wrong_in_all = 0

    def attempt(self, sender: str, text: str) -> tuple[bool, str | None]:
        """(paired?, what the operator should be told, if anything)."""
        guess = text.strip().casefold()
        if self.code is None or not guess.startswith(PREFIX):
            return False, None
        if self.monotonic() >= self.expires:
            self.code = None
            return False, (f"the pairing code expired ({self.lifetime / 60:g} minutes unused) before sender "
                           f"{sender} sent one; run `heartcompass serve --pair` again for a new code")
        if self.wrong.get(sender, 0) >= self.per_sender:
            return False, None  # told already; this account's guesses are not looked at any more
        if hmac.compare_digest(guess.encode(), self.code.casefold().encode()):
            self.code = None  # one time only
            return True, None
        self.wrong[sender] = self.wrong.get(sender, 0) + 1
        self.wrong_in_all += 1
        if self.wrong_in_all >= self.in_all:
            self.code = None
            return False, (f"{self.in_all} wrong pairing codes in all (the last from sender {sender}): someone "
                           "is guessing, so the code is withdrawn; run `heartcompass serve --pair` again")
        told = f"a wrong pairing code from sender {sender} ({self.wrong[sender]} of {self.per_sender} for them"
        if self.wrong[sender] >= self.per_sender:
            told += ", so their codes are no longer looked at"
        return False, told + f"; {self.wrong_in_all} of {self.in_all} in all): someone may be guessing"
