"""Bugs the type checker (mypy, see pyproject.toml) found: each is a value
that may be None, or of another type, on a path no test had taken."""

from __future__ import annotations

from conftest import Runner
from waits import DEADLINE
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


def test_a_profile_removed_after_the_listing_is_a_format_error_naming_it(example_ws):
    """read_person parsed None as PROFILE.md's text (a TypeError deep in
    the YAML reader) when the file went away after the person was listed."""
    import pytest

    from heartcompass.errors import FormatError
    from heartcompass.memory.proposal.workbench import read_person
    from heartcompass.store.people import list_people

    person = next(p for p in list_people(example_ws) if p.slug == "alice")
    person.profile_path.unlink()
    with pytest.raises(FormatError) as caught:
        read_person(person)
    assert caught.value.path == person.profile_path and "missing" in caught.value.message
    assert "person archive alice" in (caught.value.hint or "")


def test_an_error_chain_that_loops_is_described_not_followed_forever():
    """_root_cause stopped only at an error that was its own cause: A caused
    by B caused by A went round for ever (the chat or garden then hung)."""
    import threading

    from heartcompass.llm.failures import describe_error

    outer, inner = RuntimeError("outer"), ConnectionRefusedError(111, "Connection refused")
    outer.__cause__, inner.__cause__ = inner, outer
    said: list[str] = []
    worker = threading.Thread(target=lambda: said.append(describe_error(outer)), daemon=True)
    worker.start()
    worker.join(DEADLINE)  # a loop in the cause chain would never end
    assert said and said[0].startswith("Could not connect to the model endpoint"), said
