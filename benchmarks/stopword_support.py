"""Which stop words may support a line: LoCoMo's annotated answers against
the turns they cite (each a statement a human found supported), and against
the turns of another question (a statement with no support).

    python benchmarks/stopword_support.py FILE.json [FILE.json ...]

FILE: LoCoMo conversations (the v2 files: one conversation object with its
`qa` list, or data/locomo10.json). Prints, for the support check's stop
words as they are (the maintained list less words.CONTENT_WORDS) and for the
maintained list whole: the share of answers that share a content word with
their own turns (higher: fewer correct lines refused) and with another
question's turns (lower: fewer wrong lines let through), and the words that
made the difference. Answers that are only dates or numbers are compared by
value (numbers.py) as the check does. Category 5 (adversarial) is left out."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from heartcompass.memory.proposal import evidence, words  # noqa: E402

Pair = tuple[str, str, str]  # answer, the turns it cites, the two speakers' names


def pairs_of(path: Path) -> list[Pair]:
    data = json.loads(path.read_text(encoding="utf-8"))
    samples = data if isinstance(data, list) else [data]
    found = []
    for sample in samples:
        talk = sample.get("conversation", sample)
        turns = {t["dia_id"]: t["text"] for key, value in talk.items()
                 if key.startswith("session_") and isinstance(value, list) for t in value}
        names = f"{talk['speaker_a']} {talk['speaker_b']}"
        for qa in sample.get("qa", []):
            cited = [turns[e] for e in qa.get("evidence", []) if e in turns]
            answer = str(qa.get("answer", "")).strip()
            if cited and answer and qa.get("category") != 5:
                found.append((answer, " ".join(cited), names))
    return found


def shared(answer: str, turns: str, names: str) -> set[str]:
    """What the support check would find in common (Checker.supported's rule)."""
    said, said_numbers = evidence.lexical(answer)
    have, have_numbers = evidence.lexical(turns)
    common = (said - evidence.lexical(names)[0]) & have
    return common | {f"#{n}" for n in said_numbers & have_numbers}


def measure(pairs: list[Pair]) -> tuple[float, float, Counter, Counter]:
    others = [(a, pairs[(i * 7919 + 13) % len(pairs)][1], n) for i, (a, _, n) in enumerate(pairs)]
    own, chance = [shared(*p) for p in pairs], [shared(*p) for p in others]
    return (sum(map(bool, own)) / len(pairs), sum(map(bool, chance)) / len(pairs),
            Counter(w for s in own for w in s), Counter(w for s in chance for w in s))


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    pairs = [p for name in argv for p in pairs_of(Path(name))]
    ours = measure(pairs)
    words.stop_words.cache_clear()
    with mock.patch.object(words, "CONTENT_WORDS", frozenset()):
        whole = measure(pairs)
    words.stop_words.cache_clear()
    print(f"{len(pairs)} answers from {len(argv)} file(s)")
    print(f"supported by their own turns:   {ours[0]:.3f} (maintained list whole: {whole[0]:.3f}, "
          f"ratio {ours[0] / whole[0]:.3f}; goal: above 1)")
    print(f"supported by another question's: {ours[1]:.3f} (maintained list whole: {whole[1]:.3f}, "
          f"ratio {ours[1] / max(whole[1], 1e-9):.3f}; goal: at most 1.1)")
    gained = {evidence._stem(w) for w in words.CONTENT_WORDS}
    print("content words in common, own turns / another's:",
          ", ".join(f"{w} {ours[2][w]}/{ours[3][w]}" for w in sorted(gained, key=lambda w: -ours[2][w])
                    if ours[2][w] or ours[3][w]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
