"""Text from a model or a file, made safe to show in a terminal.

A persona's reply, a coach's advice or a hand-edited file may contain escape
sequences: OSC (`ESC ] 0;title BEL` retitles the window, OSC 52 writes the
clipboard), CSI (`ESC [2J` clears the screen), or bare control characters
(a carriage return that overwrites what was printed). They are removed
before printing; the log keeps the text verbatim. No terminal library here:
the CLI calls this, then escapes rich markup."""

from __future__ import annotations

import re

# ESC-introduced sequences, their 8-bit C1 forms (CSI 0x9b, OSC 0x9d, DCS 0x90,
# SOS/PM/APC), then any other control character except newline and tab.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"                       # CSI ... final byte
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/SOS/PM/APC ... ST
    r"|\x1b[ -/]*[0-~]?"                                       # other ESC sequences
)
_COMPLETE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b(?![\[\]PX^_])[ -/]*[0-~]"
)
_INTRODUCER = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
_HELD_MAX = 4096  # an escape sequence never closed is dropped, not held forever
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def strip_controls(text: str) -> str:
    """text without terminal control sequences or control characters (newlines
    and tabs stay; a lone carriage return becomes a newline, CRLF one newline)."""
    if not text:
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


class StreamStripper:
    """strip_controls for text that arrives in pieces (a streamed reply): a
    sequence cut between two pieces is held back until it is complete, so
    neither its control bytes nor its payload reach the terminal."""

    def __init__(self) -> None:
        self.held = ""

    def feed(self, text: str) -> str:
        data = self.held + text
        self.held = ""
        starts = [m.start() for m in _INTRODUCER.finditer(data)]
        if starts and not _COMPLETE.match(data, starts[-1]):
            # the last sequence may still be going on: wait for its end
            data, self.held = data[:starts[-1]], data[starts[-1]:]
            if len(self.held) > _HELD_MAX:
                self.held = ""
        return strip_controls(data)

    def flush(self) -> str:
        """The end of a message: an unfinished sequence is dropped."""
        self.held = ""
        return ""
