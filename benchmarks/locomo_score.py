"""Scores for benchmarks/locomo.py: token F1, the judge's label, and the
tables by category and by side.

The judge's rubric (prompts/locomo/judge.md) is the generous CORRECT/WRONG
one published with the Mem0 evaluation, in our own words: ACCURACY_PROMPT in
mem0ai/mem0, evaluation/metrics/llm_judge.py, used for the LoCoMo results of
Chhikara et al., "Mem0: Building Production-Ready AI Agents with Scalable
Long-Term Memory" (2025, arXiv:2504.19413). J is the share judged CORRECT.

Token F1 is SQuAD's: lower case, no punctuation or articles (a, an, the),
then the overlap of the two bags of tokens. Chinese and other CJK text has
no spaces, so each of its characters is a token."""

from __future__ import annotations

import json
import re
import statistics
import string
import unicodedata
from collections import Counter

SIDES = ("heartcompass", "full")
SIDE_TITLES = {"heartcompass": "HeartCompass", "full": "full context"}
_LABEL_JSON = re.compile(r'"label"\s*:\s*"(CORRECT|WRONG)"', re.I)
_LABEL_WORD = re.compile(r"\b(CORRECT|WRONG)\b")
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af])")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def tokens(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", str(text)).lower()
    text = "".join(" " if ch in string.punctuation or unicodedata.category(ch).startswith("P") else ch
                   for ch in text)
    text = _ARTICLES.sub(" ", text)
    return _CJK.sub(r" \1 ", text).split()


def f1(prediction: str, gold: str) -> float:
    pred, ref = tokens(prediction), tokens(gold)
    if not pred or not ref:
        return float(pred == ref)
    same = sum((Counter(pred) & Counter(ref)).values())
    if not same:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def label_of(text: str) -> str | None:
    """CORRECT or WRONG from the judge's answer: its JSON label, else the
    last bare label word; None when it gave neither (or both, unlabelled)."""
    found = _LABEL_JSON.findall(text)
    if found:
        return found[-1].upper()
    words = {w.upper() for w in _LABEL_WORD.findall(text)}
    return words.pop() if len(words) == 1 else None


# -- the tables ----------------------------------------------------------------
def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def side_stats(rows: list[dict], side: str) -> dict:
    """J, F1, prompt tokens and latency for one side over some questions."""
    done = [r[side] for r in rows if r.get(side, {}).get("label")]
    tokens_seen = [a["prompt_tokens"] for a in done if a.get("prompt_tokens") is not None]
    return {"n": len(done), "J": _mean([float(a["label"] == "CORRECT") for a in done]),
            "F1": _mean([a["f1"] for a in done]), "prompt_tokens": _mean(tokens_seen),
            "latency_s": _mean([a["latency_s"] for a in done])}


def summary(rows: list[dict], names: dict[str, str]) -> dict:
    """Per category, per side of the relationship, and overall; each with
    both sides of the comparison. names: side key -> a label for it."""
    groups: dict[str, list[dict]] = {"all": rows}
    for cat, title in sorted({(r["category"], r["category_name"]) for r in rows}):
        groups[f"category {cat} ({title})"] = [r for r in rows if r["category"] == cat]
    for side in ("person", "user", "both", "unknown"):
        mine = [r for r in rows if r["side"] == side]
        if mine:
            groups[names.get(side, side)] = mine
    for others, title in ((True, "names someone else"), (False, "only the two speakers")):
        mine = [r for r in rows if bool(r.get("others")) == others]
        if mine and len(mine) < len(rows):  # their share of the questions, and their J apart
            groups[f"{title} ({len(mine) / len(rows):.0%} of the questions)"] = mine
    return {group: {s: side_stats(mine, s) for s in SIDES} | {"questions": len(mine)}
            for group, mine in groups.items()}


def _cell(value, kind: str) -> str:
    if value is None:
        return "—"
    if kind == "pct":
        return f"{value:.0%}"
    if kind == "f1":
        return f"{value:.2f}"
    if kind == "tokens":
        return f"{value:,.0f}"
    return f"{value:.1f}s"


def table(stats: dict) -> list[str]:
    """The summary as aligned text lines: HeartCompass and full context side by side."""
    head = ["", "n", "J HC", "J full", "J ratio", "F1 HC", "F1 full", "tokens HC", "tokens full", "latency HC",
            "latency full"]
    rows = []
    for group, s in stats.items():
        hc, full = s["heartcompass"], s["full"]
        ratio = (f"{hc['J'] / full['J']:.2f}x" if hc["J"] is not None and full["J"] else "—")
        rows.append([group, str(s["questions"]), _cell(hc["J"], "pct"), _cell(full["J"], "pct"), ratio,
                     _cell(hc["F1"], "f1"), _cell(full["F1"], "f1"), _cell(hc["prompt_tokens"], "tokens"),
                     _cell(full["prompt_tokens"], "tokens"), _cell(hc["latency_s"], "s"),
                     _cell(full["latency_s"], "s")])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in [head, *rows]]


def target_line(stats: dict, names: dict[str, str]) -> str:
    """The issue's target: J on the prompt at least 95% of full context's on
    both sides, at no more than 5,000 prompt tokens."""
    parts, met = [], True
    for side in ("person", "user"):
        s = stats.get(names.get(side, side))
        if not s:
            continue
        hc, full = s["heartcompass"]["J"], s["full"]["J"]
        if hc is None or not full:
            parts.append(f"{names[side]}: —")
            met = False
            continue
        parts.append(f"{names[side]}: {hc / full:.2f}x")
        met &= hc / full >= 0.95
    tokens = stats["all"]["heartcompass"]["prompt_tokens"]
    if tokens is not None:
        parts.append(f"prompt {tokens:,.0f} tokens")
        met &= tokens <= 5000
    return (f"target (J at least 0.95x full context's on both sides, at most 5,000 prompt tokens): "
            f"{'; '.join(parts) or '—'} → {'met' if met and parts else 'not met'}")


def dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)
