"""Does the persona write like the person? Held-out rhythm, with and without VOICE.md.

    python benchmarks/voice.py [EXPORT.txt --them NAME --me NAME] [--base-url URL --model M] [--turns N]

An export (WhatsApp .txt; without one, a synthetic chat in which "Alice"
answers in bursts of short lines) is split 80/20 by date. The first 80% is
imported into a throwaway workspace, which learns VOICE.md from it. For each
held-out moment where the user wrote and the person answered, the persona is
asked to answer the same message, once with VOICE.md and once without. A
reply "fits" when both its message count and its median length fall within
the interquartile range of the person's real replies in the held-out part.

Printed: the share of fitting replies with and without voice, and their
ratio. The default model is a stub that only follows the shape hint it is
given (the harness check); the numbers that matter come from a real model:
pass --base-url (and a key in the environment) to measure one."""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heartcompass.intake import importers
from heartcompass.memory import voice  # noqa: E402
from heartcompass.talk.chat import ChatSession  # noqa: E402
from heartcompass.memory.context import SEPARATOR  # noqa: E402
from heartcompass.errors import HeartCompassError  # noqa: E402
from heartcompass.store.people import create  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402


def synthetic_export(days: int = 60, seed: int = 7) -> str:
    rng = random.Random(seed)
    theirs = ["haha yes", "omg", "wait what", "lol ok", "noo 😭", "same", "ok ok", "on my way", "ugh mondays",
              "tell me more", "love that", "hmm maybe", "good night!!", "morning ☀️", "sure thing"]
    mine = ["how was your day?", "did you see the news?", "want to get dinner?", "I finally finished it",
            "guess who I met today", "are you free later?"]
    lines, start = [], dt.datetime(2026, 1, 1, 9, 0)
    for d in range(days):
        t = start + dt.timedelta(days=d)
        for _ in range(rng.randint(2, 4)):
            t += dt.timedelta(minutes=rng.randint(20, 180))
            lines.append(f"{t:%d/%m/%Y, %H:%M} - Lei: {rng.choice(mine)}")
            for _ in range(rng.choice([1, 2, 2, 3, 3, 4])):
                t += dt.timedelta(seconds=40)
                lines.append(f"{t:%d/%m/%Y, %H:%M} - Alice: {rng.choice(theirs)}")
    return "\n".join(lines) + "\n"


class ShapeFollower:
    """A stub model: answers in the shape the prompt's rhythm line asks for,
    else in a chatbot's default shape (one long message)."""

    def stream(self, messages):
        system = messages[0].content
        m = re.search(r"usually (?:1 message|1–(\d+) messages) in a row, about (\d+) \w+ each", system)
        if not m:
            yield type("Chunk", (), {"content": "That sounds really interesting, I would love to hear more "
                                                "about it and how you are feeling about everything today!"})()
            return
        count, words = int(m.group(1) or 1), int(m.group(2))
        parts = [" ".join(["yeah"] * max(1, words)) for _ in range(max(1, (count + 1) // 2 + 1))]
        yield type("Chunk", (), {"content": f"\n{SEPARATOR}\n".join(parts)})()


def moments(messages, me: str):
    """(what the user wrote, the person's real replies) for each exchange."""
    out, i = [], 0
    while i < len(messages):
        if messages[i].speaker == me:
            j = i
            while j + 1 < len(messages) and messages[j + 1].speaker == me:
                j += 1
            k = j + 1
            while k < len(messages) and messages[k].speaker != me:
                k += 1
            if k > j + 1:
                out.append(("\n".join(m.text for m in messages[i:j + 1]), [m.text for m in messages[j + 1:k]]))
            i = k
        else:
            i += 1
    return out


def iqr(values):
    values = sorted(values)
    return values[len(values) // 4], values[(3 * len(values)) // 4]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("export", nargs="?", help="A WhatsApp .txt export (default: a synthetic chat).")
    ap.add_argument("--them", default="Alice", help="Their name as the export writes it (default: Alice).")
    ap.add_argument("--me", default="Lei", help="Your name as the export writes it (default: Lei).")
    ap.add_argument("--base-url")
    ap.add_argument("--model", default="gpt-4o-mini")
    ap.add_argument("--turns", type=int, default=30)
    args = ap.parse_args()
    text = Path(args.export).read_text(encoding="utf-8") if args.export else synthetic_export()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "export.txt"
            path.write_text(text, encoding="utf-8")
            export = importers.parse("whatsapp", importers.Source(path), importers.Context(dt.date.today()))
            messages = sorted(export.messages(), key=lambda m: m.when)
    except HeartCompassError as exc:
        ap.error(f"{exc.message} (this benchmark reads a WhatsApp .txt export).")
    speakers = sorted({m.speaker for m in messages})
    missing = [f"--{flag} {name!r}" for flag, name in (("them", args.them), ("me", args.me)) if name not in speakers]
    if missing:  # else an empty hold-out set, and a traceback far from the cause
        ap.error(f"{' and '.join(missing)}: no such speaker in the export. Speakers found: {', '.join(speakers)}. "
                 "Name both with --them NAME --me NAME.")
    days = sorted({m.when.date() for m in messages})
    cut = days[int(len(days) * 0.8)]
    train = [m for m in messages if m.when.date() < cut]
    test = moments([m for m in messages if m.when.date() >= cut], args.me)[:args.turns]
    if not test:
        ap.error(f"the last 20% of the chat's days have no message from {args.me!r} answered by {args.them!r}; "
                 "use a longer export.")
    real_counts = [len(r) for _, r in test]
    real_lengths = [statistics.median(voice.length_of(t, voice.is_cjk(t)) for t in r) for _, r in test]
    (c_lo, c_hi), (l_lo, l_hi) = iqr(real_counts), iqr(real_lengths)

    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        person = create(ws, args.them, "friend")
        importers.to_logs(person.dir, [importers.Line(m.when, importers.label(m, m.speaker == args.me), m.text)
                                       for m in train if not m.placeholder])
        voice.refresh(person.dir, [args.them])
        if args.base_url:
            from heartcompass.llm import providers as llm

            import os

            os.environ["HEARTCOMPASS_LLM_BASE_URL"] = args.base_url  # the documented overrides
            model = llm.make_chat_model(ws, llm.settings(ws, args.model))
        else:
            model = ShapeFollower()
        results = {}
        for label in ("with voice", "without voice"):
            if label == "without voice":
                voice.path_of(person.dir).unlink()
            fits = 0
            for i, (said, _) in enumerate(test):
                session = ChatSession(ws, person, model, time_source=lambda i=i: dt.datetime(2030, 1, 1, 10, 0) +
                                      dt.timedelta(minutes=i))
                session.fresh_after = 0
                replies = [e.text for e in session.send(said) if e.kind == "message"]
                if not replies:
                    continue
                length = statistics.median(voice.length_of(t, voice.is_cjk(t)) for t in replies)
                fits += c_lo <= len(replies) <= c_hi and l_lo <= length <= l_hi
            results[label] = fits / max(1, len(test))
    print(f"held-out exchanges: {len(test)}; real replies: {c_lo}–{c_hi} messages, median length "
          f"{l_lo}–{l_hi} (interquartile)")
    print(f"model: {args.model + ' at ' + args.base_url if args.base_url else 'stub that follows the shape hint'}")
    for label, share in results.items():
        print(f"  {label:14} {share:.0%} of replies fit the real rhythm")
    base = results["without voice"]
    print(f"  ratio          {results['with voice'] / base:.2f}x" if base else "  ratio          (no fit without voice)")


if __name__ == "__main__":
    main()
