"""Who may support what (memory/proposal/trust.py, issue 29): one test per
rule of the table, named after the promise it keeps, each through the
table and through the check that asks it (apply, the schema, the prompt),
so flipping a rule or the code that reads it fails here."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.memory.proposal import trust
from heartcompass.memory.proposal.apply import apply
from heartcompass.memory.proposal.evidence import reported
from heartcompass.memory.proposal.model import Proposal
from heartcompass.memory.proposal.presentation import present
from heartcompass.memory.proposal.schema import proposal_schema
from heartcompass.memory.proposal.trust import Claim, Source
from heartcompass.memory.proposal.workbench import LogItem, Workbench

DAY = "2026-11-30"
TODAY = dt.date(2026, 12, 1)
# (speaker, tags) of each kind of entry, as the logs write them
SPEAKERS = {Source.USER_CHAT: ("me", []), Source.NOTE: ("note", []), Source.COACH_NOTE: ("note", ["coach"]),
            Source.USER_IMPORT: ("import:me", []), Source.OTHER_IMPORT: ("import:Bob", []),
            Source.GROUP_CONTEXT: ("context:Carol", []), Source.PERSONA: ("persona", []), Source.OTHER: ("mark", [])}
ONLY_TRUSTED = (Claim.EVENT, Claim.FACT, Claim.PROFILE_FIELD, Claim.PROFILE_NOTE, Claim.REMOVAL, Claim.LINK,
                Claim.MENTION, Claim.FOLLOW_UP)


def bench() -> Workbench:
    where = Path("people/alice")
    return Workbench("alice", profile_fmt.new(where / "PROFILE.md", "Alice Chen", "friend"),
                     events_fmt.new(where / "EVENTS.md", "Alice Chen"), memory_fmt.new(where / "MEMORY.md", "Alice Chen"),
                     set(), {"alice"}, TODAY)


def entries(*said: tuple[Source, str]) -> list[LogItem]:
    out = []
    for n, (source, text) in enumerate(said, 1):
        speaker, tags = SPEAKERS[source]
        out.append(LogItem(f"L{n}", DAY, dailylog.Entry(f"20:0{n}:00", speaker, text, list(tags)), n - 1))
    return out


def judged(items: list[LogItem], **statements):
    """The workbench after a proposal of `statements` on `items`, and its verdicts."""
    wb = bench()
    verdicts = apply(wb, Proposal.model_validate({"summary": "consolidated", **statements}), items, [])
    return wb, verdicts


def reasons(verdicts) -> str:
    return " ".join(r for refused in verdicts.refused for r in refused.reasons)


def fact(*ids: str, text: str = "Alice moved to Berlin") -> dict:
    return {"text": text, "evidence": list(ids)}


# -- which entry is which source -------------------------------------------------------
def test_each_speaker_is_the_source_it_says_and_a_coach_note_is_told_apart_from_a_note():
    for source, (speaker, tags) in SPEAKERS.items():
        assert trust.source_of(dailylog.Entry("20:00:00", speaker, "x", list(tags))) is source, speaker


def test_an_unknown_speaker_supports_nothing_but_a_thread():
    assert trust.source_of(dailylog.Entry("20:00:00", "mark", "x")) is Source.OTHER
    assert [c for c in Claim if trust.may_support(Source.OTHER, c)] == [Claim.THREAD]


# -- the rules ---------------------------------------------------------------------------
@pytest.mark.parametrize("claim", ONLY_TRUSTED)
def test_what_the_persona_said_supports_no_fact_event_field_note_link_or_person(claim):
    assert not trust.may_support(Source.PERSONA, claim)
    assert not trust.supported(claim, [Source.PERSONA])
    assert trust.supported(claim, [Source.USER_CHAT, Source.NOTE, Source.OTHER_IMPORT])  # the real ones do


@pytest.mark.parametrize("claim", ONLY_TRUSTED)
def test_real_words_support_a_fact_an_event_a_field_a_note_a_link_and_a_person(claim):
    """The user's chat, a /note, a relayed coach message and both sides of an import: real words of real people."""
    assert all(trust.may_support(s, claim) for s in (Source.USER_CHAT, Source.NOTE, Source.COACH_NOTE,
                                                      Source.USER_IMPORT, Source.OTHER_IMPORT))
    assert not trust.may_support(Source.GROUP_CONTEXT, claim)


def test_a_profile_field_may_not_rest_on_what_the_persona_said():
    wb, verdicts = judged(entries((Source.PERSONA, "I am a climber, you know")),
                          profile_fields=[{"field": "tag", "value": "climber", "evidence": ["L1"]}])
    assert "rests on what the simulated persona said" in reasons(verdicts)
    assert wb.profile.doc.meta["tags"] == []
    wb, verdicts = judged(entries((Source.USER_CHAT, "Alice is a climber")),
                          profile_fields=[{"field": "tag", "value": "climber", "evidence": ["L1"]}])
    assert (verdicts.kept, verdicts.refused) == (1, []) and wb.profile.doc.meta["tags"] == ["climber"]


def test_a_fact_citing_one_persona_entry_and_one_user_entry_is_refused_all_cited_must_be_trusted_not_any():
    assert not trust.supported(Claim.FACT, [Source.PERSONA, Source.USER_CHAT])
    both = entries((Source.PERSONA, "Alice moved to Berlin"), (Source.USER_CHAT, "Alice moved to Berlin last week"))
    wb, verdicts = judged(both, new_facts=[fact("L1", "L2")])
    assert "rests on what the simulated persona said" in reasons(verdicts)
    assert wb.memory.items(memory_fmt.FACTS) == []
    wb, verdicts = judged(both, new_facts=[fact("L2")])  # the user's entry alone: kept
    assert wb.memory.items(memory_fmt.FACTS) == [f"- Alice moved to Berlin (log {DAY})"]


def test_a_coach_saved_note_is_not_the_users_own_words():
    assert not trust.may_support(Source.COACH_NOTE, Claim.ABOUT_ME)
    line = {"text": "The user runs a marathon in May", "evidence": ["L1"]}
    wb, verdicts = judged(entries((Source.COACH_NOTE, "Alice Chen wrote to me: you run a marathon in May")),
                          new_about_user=[line])
    assert "rests only on the user's own entries" in reasons(verdicts)
    assert wb.memory.items(memory_fmt.ABOUT_ME) == []
    wb, verdicts = judged(entries((Source.NOTE, "I run a marathon in May")), new_about_user=[line])
    assert wb.memory.items(memory_fmt.ABOUT_ME) == [f"- The user runs a marathon in May (log {DAY})"]


def test_a_coach_saved_note_is_a_real_conversation_and_may_support_a_fact():
    wb, verdicts = judged(entries((Source.COACH_NOTE, "Alice Chen wrote to me: I moved to Berlin")),
                          new_facts=[fact("L1")])
    assert (verdicts.kept, verdicts.refused) == (1, [])
    assert wb.memory.items(memory_fmt.FACTS) == [f"- Alice moved to Berlin (log {DAY})"]


@pytest.mark.parametrize("source", [Source.USER_CHAT, Source.NOTE, Source.USER_IMPORT])
def test_a_line_about_the_user_rests_on_the_users_own_chat_note_or_side_of_an_import(source):
    wb, verdicts = judged(entries((source, "I run a marathon in May")),
                          new_about_user=[{"text": "The user runs a marathon in May", "evidence": ["L1"]}])
    assert (verdicts.kept, verdicts.refused) == (1, [])
    assert wb.memory.items(memory_fmt.ABOUT_ME) == [f"- The user runs a marathon in May (log {DAY})"]


@pytest.mark.parametrize("source", [Source.OTHER_IMPORT, Source.PERSONA, Source.GROUP_CONTEXT])
def test_a_line_about_the_user_never_rests_on_what_someone_else_said(source):
    assert not trust.may_support(source, Claim.ABOUT_ME)
    wb, verdicts = judged(entries((source, "you run a marathon in May")),
                          new_about_user=[{"text": "The user runs a marathon in May", "evidence": ["L1"]}])
    assert "rests only on the user's own entries" in reasons(verdicts) and verdicts.kept == 0
    assert wb.memory.items(memory_fmt.ABOUT_ME) == []


def test_a_chat_note_needs_one_persona_entry_and_may_cite_the_users_question_with_it():
    assert trust.supported(Claim.CHAT_NOTE, [Source.PERSONA, Source.USER_CHAT])
    assert not trust.supported(Claim.CHAT_NOTE, [Source.USER_CHAT])
    said = entries((Source.USER_CHAT, "what did you do in Berlin?"), (Source.PERSONA, "I hiked all weekend in Berlin"))
    note = {"text": "Said she hiked in Berlin all weekend", "evidence": ["L1", "L2"]}
    wb, verdicts = judged(said, new_chat_notes=[note])
    assert (verdicts.kept, verdicts.refused) == (1, [])
    wb, verdicts = judged(said, new_chat_notes=[{**note, "evidence": ["L1"]}])
    assert "chat notes record what the persona said" in reasons(verdicts)
    assert wb.memory.items(memory_fmt.CHATS) == []


def test_a_merge_of_chat_notes_citing_no_entry_is_judged_by_its_lines():
    """One persona entry is enough for a chat note; with no entry at all (a rewrite merging chat notes) there
    is nothing to refuse on trust: the lines it cites decide."""
    assert trust.supported(Claim.CHAT_NOTE, [])
    wb = bench()
    wb.memory.sections[memory_fmt.CHATS] = ["- Said she hikes in Berlin (log 2026-11-01)",
                                            "- Said she hikes every weekend (log 2026-11-02)"]
    merged = {"id": "C1", "text": "Said she hikes in Berlin every weekend", "evidence": ["C1", "C2"]}
    verdicts = apply(wb, Proposal.model_validate({"summary": "merged", "rewritten_chat_notes": [merged]}), [], [])
    assert (verdicts.kept, verdicts.refused) == (1, [])
    assert wb.memory.items(memory_fmt.CHATS)[0] == "- Said she hikes in Berlin every weekend (log 2026-11-02)"


def test_a_fact_never_rests_on_an_open_thread_alone_only_on_a_past_ones_plan():
    assert trust.trusted_only(Claim.FACT) and not trust.trusted_only(Claim.THREAD)
    assert not trust.trusted_only(Claim.CHAT_NOTE)
    wb = bench()
    wb.memory.sections[memory_fmt.THREADS] = ["- Moving to Berlin in January (until 2027-01) (log 2026-11-01)",
                                              "- Visit Berlin in October (until 2026-10) (log 2026-09-01)"]
    open_one = {"summary": "s", "new_facts": [{"text": "Alice moved to Berlin", "evidence": ["T1"]}]}
    verdicts = apply(wb, Proposal.model_validate(open_one), [], [])
    assert "rests only on open threads (T1)" in reasons(verdicts) and wb.memory.items(memory_fmt.FACTS) == []
    past = {"summary": "s", "new_facts": [{"text": "Alice visited Berlin in October", "evidence": ["T2"]}]}
    verdicts = apply(wb, Proposal.model_validate(past), [], [])
    assert (verdicts.kept, verdicts.refused) == (1, []) and len(wb.memory.items(memory_fmt.FACTS)) == 1


def test_a_thread_the_persona_raised_is_kept_as_a_chat_note_and_one_the_user_raised_as_a_thread():
    assert trust.may_support(Source.PERSONA, Claim.THREAD) and not trust.may_support(Source.PERSONA, Claim.FOLLOW_UP)
    thread = {"text": "Ask how the Berlin job interview went", "evidence": ["L1"]}
    wb, _ = judged(entries((Source.PERSONA, "my Berlin job interview is on Friday")), new_threads=[thread])
    assert (wb.memory.items(memory_fmt.THREADS), len(wb.memory.items(memory_fmt.CHATS))) == ([], 1)
    wb, _ = judged(entries((Source.USER_CHAT, "her Berlin job interview is on Friday")), new_threads=[thread])
    assert (len(wb.memory.items(memory_fmt.THREADS)), wb.memory.items(memory_fmt.CHATS)) == (1, [])


def test_a_group_members_context_line_supports_no_fact():
    wb, verdicts = judged(entries((Source.GROUP_CONTEXT, "Alice moved to Berlin")), new_facts=[fact("L1")])
    assert "rests on what the simulated persona said" in reasons(verdicts)
    assert wb.memory.items(memory_fmt.FACTS) == []


def test_a_fact_only_someone_else_wrote_reads_as_what_they_said():
    assert trust.hearsay([Source.OTHER_IMPORT]) and not trust.hearsay([Source.OTHER_IMPORT, Source.USER_IMPORT])
    assert not trust.hearsay([])
    theirs = entries((Source.OTHER_IMPORT, "I moved to Berlin"), (Source.USER_IMPORT, "you moved to Berlin!"))
    assert reported("Moved to Berlin", theirs[:1]) == "Moved to Berlin, Bob said"
    assert reported("Moved to Berlin", theirs) == "Moved to Berlin"  # the user says it too


def test_a_note_may_be_kept_as_written_but_a_chat_message_is_not_pasted():
    text = "Alice starts her new job at the Berlin office in January"
    wb, verdicts = judged(entries((Source.NOTE, text)), new_facts=[fact("L1", text=text)])
    assert wb.memory.items(memory_fmt.FACTS) == [f"- {text} (log {DAY})"]
    wb, verdicts = judged(entries((Source.USER_CHAT, text)), new_facts=[fact("L1", text=text)])
    assert "copies a log message word for word" in reasons(verdicts) and wb.memory.items(memory_fmt.FACTS) == []


def test_a_relayed_coach_message_is_not_restated_near_verbatim():
    relayed = "Alice Chen wrote to me: moved to Berlin!"
    wb, verdicts = judged(entries((Source.COACH_NOTE, relayed)), new_facts=[fact("L1", text="Moved to Berlin")])
    assert "copies a log message" in reasons(verdicts) and wb.memory.items(memory_fmt.FACTS) == []
    wb, verdicts = judged(entries((Source.NOTE, relayed)), new_facts=[fact("L1", text="Moved to Berlin")])
    assert wb.memory.items(memory_fmt.FACTS) == [f"- Moved to Berlin (log {DAY})"]


# -- what the model is offered and shown -------------------------------------------------
def test_the_schema_offers_each_list_only_the_entries_the_table_lets_it_cite():
    wb = bench()
    wb.known_slugs.add("bob")  # someone to link to
    items = entries(*((s, "x") for s in SPEAKERS))  # L1..L8 in SPEAKERS' order
    ids = {s: f"L{n}" for n, s in enumerate(SPEAKERS, 1)}
    props = proposal_schema(wb, items, [])["properties"]

    def cited(key: str) -> set[str]:
        item = props[key]["items"]
        item = item["anyOf"][0] if "anyOf" in item else item  # a profile field: one shape per field
        return set(item["properties"]["evidence"]["items"]["enum"])

    assert cited("new_facts") == {ids[s] for s in trust.TRUSTED}
    assert cited("new_about_user") == {ids[s] for s in (Source.USER_CHAT, Source.NOTE, Source.USER_IMPORT)}
    assert cited("new_chat_notes") == {ids[s] for s in (Source.PERSONA, Source.GROUP_CONTEXT, Source.OTHER)}
    assert cited("new_threads") == set(ids.values())
    for key in ("new_events", "profile_fields", "profile_notes", "new_links", "new_mentions"):
        assert cited(key) == cited("new_facts"), key


def test_the_model_is_shown_which_entries_are_the_users_trusted_or_untrusted():
    assert set(trust.SHOWN_AS) == set(Source)
    shown = present(bench(), entries((Source.USER_CHAT, "hi"), (Source.PERSONA, "hello"), (Source.NOTE, "a note"),
                                     (Source.GROUP_CONTEXT, "lol")), [])
    assert "L1 [2026-11-30 20:01 · me · trusted: the user] hi" in shown
    assert "L2 [2026-11-30 20:02 · persona · UNTRUSTED: said by the simulated persona] hello" in shown
    assert "L3 [2026-11-30 20:03 · note · trusted] a note" in shown
    assert "· context:Carol · context only:" in shown


# -- the lines already in the files: which may support a statement, which are the user's ---------
FACTS = ["- Works at a bakery (log 2026-11-01)", "- Lives in Berlin (hand)", "- Lives in Berlin (told)",
         "- Lives in Berlin (import)"]


def rewritten(*cited: str):
    """F1 rewritten to say where the bakery is, citing (besides itself) only the lines `cited`."""
    wb = bench()
    wb.memory.sections[memory_fmt.FACTS] = list(FACTS)
    change = {"id": "F1", "text": "Works at a bakery in Berlin", "evidence": ["F1", *cited]}
    verdicts = apply(wb, Proposal.model_validate({"summary": "s", "rewritten_facts": [change]}), [], [])
    return wb.memory.items(memory_fmt.FACTS)[0], verdicts


def test_each_closing_marker_is_the_mark_it_says():
    assert [trust.mark_of(line) for line in FACTS] == [trust.Mark.LOG, trust.Mark.HAND, trust.Mark.TOLD,
                                                       trust.Mark.IMPORT]
    assert trust.marker(FACTS[0]) == (trust.Mark.LOG, "log 2026-11-01")
    assert trust.mark_of("- Lives in Berlin") is None and trust.mark_of("- (told) it") is None
    assert trust.mark_of("- Lives in Berlin (told)  ") is trust.Mark.TOLD  # a hand edit's trailing spaces


def test_a_statement_never_rests_on_a_hand_written_line_alone():
    assert trust.Mark.HAND not in trust.LINES_SUPPORT
    wb = bench()
    wb.memory.sections[memory_fmt.FACTS] = ["- Lives in Berlin (hand)", "- Works at a bakery (hand)"]
    change = {"id": "F1", "text": "Lives in Berlin and works at a bakery", "evidence": ["F1", "F2"]}
    verdicts = apply(wb, Proposal.model_validate({"summary": "s", "rewritten_facts": [change]}), [], [],
                     asking=False)
    assert reasons(verdicts) == ("facts F1: rests only on lines the user wrote by hand; cite the new "
                                 "entries too")
    assert wb.memory.items(memory_fmt.FACTS) == ["- Lives in Berlin (hand)", "- Works at a bakery (hand)"]


def test_a_statement_resting_on_a_told_line_is_told_and_on_an_imported_one_unverified():
    line, verdicts = rewritten("F3")
    assert (verdicts.refused, line) == ([], "- Works at a bakery in Berlin (log 2026-11-01)")  # its own line's day
    assert trust.Mark.TOLD in trust.LINES_SUPPORT
    line, verdicts = rewritten("F4")
    assert (verdicts.refused, line) == ([], "- Works at a bakery in Berlin (import)")
    assert trust.UNVERIFIED == {trust.Mark.IMPORT}


def test_a_merge_of_told_lines_alone_stays_told():
    wb = bench()
    wb.memory.sections[memory_fmt.FACTS] = ["- Lives in Berlin (told)", "- Works at a bakery (told)"]
    change = {"id": "F1", "text": "Lives in Berlin and works at a bakery", "evidence": ["F1", "F2"]}
    verdicts = apply(wb, Proposal.model_validate({"summary": "s", "rewritten_facts": [change]}), [], [],
                     asking=False)  # `tell`: the user confirms its diff
    assert verdicts.refused == []
    assert wb.memory.items(memory_fmt.FACTS)[0] == "- Lives in Berlin and works at a bakery (told)"


def test_the_gardener_asks_before_it_changes_a_line_the_user_wrote_or_told():
    from heartcompass.memory.proposal.asking import whose

    wb = bench()
    assert set(trust.THE_USERS) == {trust.Mark.HAND, trust.Mark.TOLD}
    assert [whose(wb, line) for line in FACTS] == ["", "you wrote this line by hand", "you told this", ""]
    wb.protected.add(FACTS[0])  # git blame says the user wrote it, whatever its marker
    assert whose(wb, FACTS[0]) == "you wrote this line by hand" and wb.is_protected(FACTS[0])
    assert wb.is_protected(FACTS[1]) and not wb.is_protected(FACTS[2])


def test_a_compression_may_not_drop_a_told_line_but_may_merge_the_gardeners():
    from heartcompass.memory.proposal.compression import check_compression
    from heartcompass.memory.proposal.model import Compressed

    wb = bench()
    wb.memory.sections[memory_fmt.FACTS] = ["- Lives in Berlin (told)", "- Works at a bakery (log 2026-11-01)",
                                            "- Bakes bread at the bakery (log 2026-11-01)"]
    merged = {"text": "Works at a bakery, baking bread", "lines": ["F2", "F3"]}
    problems, _ = check_compression(wb, Compressed.model_validate({"summary": "s", "facts": [merged],
                                                                   "chat_notes": [], "threads": []}), 20)
    assert problems == ["compression dropped a line the user told (F1): '- Lives in Berlin (told)'"]
    kept = {"text": "Lives in Berlin", "lines": ["F1"]}
    problems, cleaned = check_compression(wb, Compressed.model_validate({"summary": "s", "facts": [kept, merged],
                                                                         "chat_notes": [], "threads": []}), 20)
    assert problems == [] and cleaned[memory_fmt.FACTS] == ["- Lives in Berlin (told)",
                                                           "- Works at a bakery, baking bread (log 2026-11-01)"]


def test_removing_a_line_the_user_told_asks_and_one_the_gardener_wrote_goes():
    wb = bench()
    wb.memory.sections[memory_fmt.FACTS] = ["- Lives in Berlin (told)", "- Works at a bakery (log 2026-11-01)"]
    verdicts = apply(wb, Proposal.model_validate({"summary": "s", "removed_facts": ["F1", "F2"]}), [], [])
    assert [(q.kind, q.reason) for q in verdicts.asked] == [("removal", "you told this")]
    assert wb.memory.items(memory_fmt.FACTS) == ["- Lives in Berlin (told)"]
    wb.memory.sections[memory_fmt.FACTS] = ["- Lives in Berlin (told)"]
    apply(wb, Proposal.model_validate({"summary": "s", "removed_facts": ["F1"]}), [], [], asking=False)  # `tell`
    assert wb.memory.items(memory_fmt.FACTS) == ["- Lives in Berlin (told)"]
    assert wb.memory.items(memory_fmt.THREADS) == ['- You told me "Lives in Berlin"; does it still hold? (log)']
