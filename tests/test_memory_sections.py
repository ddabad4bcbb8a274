"""A MEMORY.md whose required section was renamed by hand: named with its
line and the fix, never rewritten, and the gardener skips only that person."""

from __future__ import annotations

import datetime as dt

from conftest import Runner, git, subjects
from heartcompass.store import audit
from heartcompass.formats import dailylog


def _note(ws, slug: str, text: str) -> None:
    day = dt.date(2026, 12, 1)
    dailylog.append(dailylog.log_path(ws.people_dir / slug, day), dailylog.Entry("20:00:00", "note", text, []), day)


def test_garden_skips_a_person_whose_facts_heading_was_renamed(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    example_cli("person", "add", "Bob", "--relation", "friend", "--yes")
    _note(ws, "alice", "She adopted a cat called Miso")
    _note(ws, "bob", "Bob started running")
    memory = ws.people_dir / "alice" / "MEMORY.md"
    renamed = memory.read_text(encoding="utf-8").replace("## Facts", "## Known facts")
    memory.write_text(renamed, encoding="utf-8")
    before = subjects(ws)
    fake_llm.enqueue({"summary": "running", "new_facts": [{"text": "Started running", "evidence": ["L1"]}]})
    result = example_cli("garden", ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "MEMORY.md:7:" in result.output and "'## Facts' is missing" in result.output, result.output
    assert memory.read_text(encoding="utf-8") == renamed  # never rewritten, still the user's pending edit
    made = [s for s in subjects(ws) if s not in before]
    assert "garden(bob): memory updated from 2026-12-01 log" in made and not [s for s in made if "alice" in s]
    assert "MEMORY.md" in git(ws, "status", "--porcelain", "people/alice")
    assert "Started running" in (ws.people_dir / "bob" / "MEMORY.md").read_text(encoding="utf-8")
    assert len(fake_llm.purposes) == 1  # alice was not sent to the model


def test_watch_and_doctor_name_the_renamed_section(example_cli: Runner):
    ws = example_cli.ws
    memory = ws.people_dir / "alice" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8").replace("## Open threads", "## Follow-ups"),
                      encoding="utf-8")
    from heartcompass.store.people import resolve

    sha, invalid = audit.commit_valid_edits(ws, resolve(ws, "alice"))
    assert sha is None and len(invalid) == 1 and "'## Open threads' is missing" in invalid[0].message
    doctor = example_cli("doctor", ok=False).output
    assert "✗ files" in doctor and "MEMORY.md:17:" in doctor and "Follow-ups" in doctor
