"""Bugs the type checker (mypy, see pyproject.toml) found: each is a value
that may be None, or of another type, on a path no test had taken."""

from __future__ import annotations

from conftest import Runner
from garden_helpers import consolidated, proposal, say


def files(ws):
    return {p.name: p.read_bytes() for p in (ws.people_dir / "alice").glob("*.md")}


def test_an_empty_mbti_from_the_model_is_refused_not_a_crash(alice: Runner, fake_llm):
    """normalize_mbti('') is None, which the evidence check took for text."""
    say(alice.ws, "alice", "me", "她说她是 ENFP, she says she is an ENFP")
    bad = proposal(profile_fields=[{"field": "mbti", "value": " ", "evidence": ["L1"]}])
    fake_llm.enqueue(bad, bad)
    before = files(alice.ws)
    result = alice("garden", ok=False)
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "Traceback" not in out, out
    assert "profile field mbti: empty" in out and "not the JSON" not in out, out
    assert files(alice.ws) == before and consolidated(alice.ws) == {}
