"""The JSON schema sent with each proposal request (memory/proposal/schema.py,
issue 29): every constraint is in the schema, tightened to the request, so a
grammar-constrained model cannot cite an entry or a line that does not
exist, write a fact from an untrusted entry, or send a list without end.
Each test reads the schema built for a workbench in memory."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.memory.proposal.schema import (DATE_PATTERN, MAX_ITEMS, UNTIL_PATTERN, compressed_max_items,
                                                 compressed_schema, proposal_schema)
from heartcompass.memory.proposal.workbench import LogItem, Workbench

TODAY = dt.date(2026, 12, 1)
WEIGHTS = [round(n * 0.05, 2) for n in range(21)]
PROFILE = """---
name: Alice
relation: {relation}
---

# Alice

## Likes

- Green tea (log 2026-11-02)
- Hiking (hand)

## Hobbies

- Pottery on Sundays (log 2026-11-02)

## People in their life

- [m1] Sara (daughter): Plays the violin (log 2026-11-02)
"""


def bench(facts: int = 11, relation: str = "friend", hand: set[str] = frozenset(), known=("alice", "bob"),
          chats: int = 1, threads: int = 1, about: int = 1, mentions: bool = True, budget: int = 6000) -> Workbench:
    def lines(prefix: str, n: int) -> str:
        return "".join(f"- {prefix} {i + 1} (log 2026-11-02)\n" for i in range(n))

    memory = (f"---\nbudget_tokens: {budget}\n---\n\n# Memory — Alice\n\n## {memory_fmt.FACTS}\n\n{lines('fact', facts)}"
              f"\n## {memory_fmt.CHATS}\n\n{lines('chat', chats)}\n## {memory_fmt.THREADS}\n\n{lines('thread', threads)}"
              f"\n## {memory_fmt.ABOUT_ME}\n\n{lines('about', about)}")
    profile = PROFILE.format(relation=relation)
    if not mentions:
        profile = profile.split("## People in their life")[0]
    return Workbench("alice", profile_fmt.parse(profile, Path("PROFILE.md")),
                     events_fmt.parse("# Events — Alice\n", Path("EVENTS.md")),
                     memory_fmt.parse(memory, Path("MEMORY.md")), set(hand), set(known), TODAY)


SPEAKERS = ("me", "persona", "import:Bob", "context:Carol", "note", "import:me")


def entries(*speakers: str) -> list[LogItem]:
    return [LogItem(f"L{n}", "2026-11-30", dailylog.Entry(f"20:0{n}:00", who, "hello"), n - 1)
            for n, who in enumerate(speakers, 1)]


def shown_events(n: int) -> list[events_fmt.Event]:
    return [events_fmt.Event(dt.date(2026, 11, i + 1), f"Event {i + 1}", 0.5, "log 2026-11-02") for i in range(n)]


def schema(wb: Workbench | None = None, items=None, events: int = 2) -> dict:
    items = entries(*SPEAKERS) if items is None else items
    return proposal_schema(wb or bench(), items, shown_events(events))["properties"]


def item(props: dict, name: str) -> dict:
    return props[name]["items"]["properties"]


def enum(prop: dict) -> list[str] | None:
    return prop["items"].get("enum")


# -- ids: only those of this request ----------------------------------------------------
def test_each_list_cites_only_the_entries_and_lines_it_may_rest_on_in_order():
    props = schema()
    facts = [f"F{i}" for i in range(1, 10)]  # then L, T and F10, F11: by length, then text
    assert enum(item(props, "new_facts")["evidence"]) == ["L1", "L3", "L5", "L6", "T1"]  # or a thread's plan
    assert enum(item(props, "rewritten_facts")["evidence"]) == [*facts, "L1", "L3", "L5", "L6", "T1", "F10", "F11"]
    assert enum(item(props, "new_chat_notes")["evidence"]) == ["L2", "L4"]  # untrusted: offered, one persona needed
    assert enum(item(props, "rewritten_chat_notes")["evidence"]) == ["C1", "L2", "L4"]
    assert enum(item(props, "new_threads")["evidence"]) == ["L1", "L2", "L3", "L4", "L5", "L6"]
    assert enum(item(props, "rewritten_threads")["evidence"]) == [*facts, "L1", "L2", "L3", "L4", "L5", "L6", "T1",
                                                                  "F10", "F11"]
    assert enum(item(props, "new_about_user")["evidence"]) == ["L1", "L5", "L6"]  # the user's own words only
    assert enum(item(props, "rewritten_about_user")["evidence"]) == ["L1", "L5", "L6", "U1"]
    assert enum(item(props, "profile_notes")["evidence"]) == ["L1", "L3", "L5", "L6"]
    assert enum(item(props, "rewritten_profile_notes")["evidence"]) == [*facts, "L1", "L3", "L5", "L6", "P1", "P2",
                                                                        "P3", "F10", "F11"]
    for name in ("new_events", "removed_profile_notes", "new_links", "new_mentions", "changed_mentions"):
        assert enum(item(props, name)["evidence"]) == ["L1", "L3", "L5", "L6"], name


def test_a_removal_or_a_rewrite_names_only_lines_that_exist():
    props = schema()
    facts = [f"F{i}" for i in range(1, 12)]
    assert enum(props["removed_facts"]) == facts  # F10 after F9: by length, then text
    assert props["removed_facts"]["maxItems"] == MAX_ITEMS
    assert enum(props["removed_chat_notes"]) == ["C1"] and enum(props["closed_threads"]) == ["T1"]
    assert enum(props["removed_about_user"]) == ["U1"] and enum(props["removed_events"]) == ["E1", "E2"]
    assert enum(props["removed_mentions"]) == ["M1"]
    assert item(props, "rewritten_facts")["id"]["enum"] == sorted(facts)
    assert item(props, "rewritten_chat_notes")["id"]["enum"] == ["C1"]
    assert item(props, "rewritten_threads")["id"]["enum"] == ["T1"]
    assert item(props, "rewritten_about_user")["id"]["enum"] == ["U1"]
    assert item(props, "rewritten_profile_notes")["id"]["enum"] == ["P1", "P2", "P3"]
    assert item(props, "removed_profile_notes")["id"]["enum"] == ["P1", "P2", "P3"]
    assert item(props, "changed_events")["id"]["enum"] == ["E1", "E2"]
    assert item(props, "changed_mentions")["id"]["enum"] == ["M1"]
    for name in ("rewritten_facts", "changed_events", "removed_profile_notes", "changed_mentions"):
        assert props[name]["maxItems"] == MAX_ITEMS, name
        assert item(props, name)["id"]["type"] == "string" and props[name]["type"] == "array"


def test_nothing_to_name_means_an_empty_list_not_an_empty_enum():
    """An empty enum is no valid schema: a list with nothing to choose from holds no items."""
    props = schema(bench(facts=0, chats=0, threads=0, about=0, mentions=False), events=0)
    for name in ("removed_facts", "removed_chat_notes", "closed_threads", "removed_about_user", "removed_events",
                 "removed_mentions"):
        assert props[name]["maxItems"] == 0 and props[name]["items"] == {"type": "string"}, name
        assert props[name]["type"] == "array", name
    for name in ("rewritten_facts", "changed_events", "changed_mentions"):
        assert props[name]["maxItems"] == 0, name
        assert item(props, name)["id"]["type"] == "string" and "enum" not in item(props, name)["id"], name
    assert props["new_facts"]["maxItems"] == MAX_ITEMS  # new lines need no line to name


def test_a_list_without_an_entry_it_may_cite_holds_nothing():
    """Only persona entries: no fact, event, field, note, link or mention can be written."""
    props = schema(items=entries("persona"))
    for name in ("new_events", "changed_events", "profile_fields", "profile_notes", "removed_profile_notes",
                 "new_links", "new_mentions", "changed_mentions", "new_about_user"):
        assert props[name]["maxItems"] == 0, name
    assert props["new_chat_notes"]["maxItems"] == MAX_ITEMS and props["new_threads"]["maxItems"] == MAX_ITEMS
    facts = item(props, "new_facts")["evidence"]
    assert facts["maxItems"] == MAX_ITEMS and enum(facts) == ["T1"]  # a past thread's plan may still become one
    nothing = schema(bench(facts=0, chats=0, threads=0, about=0, mentions=False), items=entries("persona"))
    assert item(nothing, "new_facts")["evidence"]["maxItems"] == 0 and enum(item(nothing, "new_facts")["evidence"]) is None


def test_each_statement_cites_at_least_one_entry_but_a_changed_event_may_cite_none():
    props = schema()
    for name in ("new_events", "new_facts", "rewritten_facts", "new_threads", "profile_notes", "new_links",
                 "new_mentions", "removed_profile_notes", "changed_mentions"):
        assert item(props, name)["evidence"]["minItems"] == 1, name
    assert "minItems" not in item(props, "changed_events")["evidence"]  # a weight raised needs no new entry
    fields = props["profile_fields"]["items"]["anyOf"]
    assert all(shape["properties"]["evidence"]["minItems"] == 1 for shape in fields)


def test_the_users_own_person_has_no_lines_about_the_user_they_are_facts():
    props = schema(bench(relation="self"))
    assert props["new_about_user"]["maxItems"] == 0  # no entry to cite: they go to new_facts
    assert enum(item(props, "new_about_user")["evidence"]) is None
    assert enum(item(props, "rewritten_about_user")["evidence"]) == ["U1"]  # old lines may still be merged
    assert props["rewritten_about_user"]["maxItems"] == MAX_ITEMS


# -- the shapes of values ---------------------------------------------------------------
def test_statements_are_short_non_empty_text():
    props = schema()
    assert {k: props["summary"][k] for k in ("type", "minLength", "maxLength")} == {
        "type": "string", "minLength": 1, "maxLength": 200}
    for name in ("new_events", "new_facts", "rewritten_facts", "new_threads", "rewritten_threads", "profile_notes",
                 "rewritten_profile_notes", "new_about_user"):
        text = item(props, name)["text"]
        assert (text["type"], text["minLength"], text["maxLength"]) == ("string", 1, 200), name
        assert text["description"], name  # the model still reads what a line is


def test_an_event_has_a_date_of_the_events_file_and_a_weight_in_steps_of_five_hundredths():
    props = schema()
    new = item(props, "new_events")
    assert new["date"]["pattern"] == DATE_PATTERN and new["date"]["type"] == "string"
    assert "Relative times" in new["date"]["description"]
    assert (new["weight"]["enum"], new["weight"]["minimum"], new["weight"]["maximum"]) == (WEIGHTS, 0, 1)
    assert new["weight"]["type"] == "number" and new["weight"]["description"]
    assert props["new_events"]["maxItems"] == MAX_ITEMS and props["new_events"]["type"] == "array"
    changed = item(props, "changed_events")
    assert changed["weight"]["anyOf"] == [{"type": "number", "minimum": 0, "maximum": 1, "enum": WEIGHTS},
                                          {"type": "null"}]
    assert changed["text"]["anyOf"] == [{"type": "string", "minLength": 1, "maxLength": 200}, {"type": "null"}]
    assert "type" not in changed["text"] and "maxLength" not in changed["text"] and "minLength" not in changed["text"]
    assert changed["text"]["description"].startswith("corrected text")
    assert changed["date"]["anyOf"] == [{"type": "string", "pattern": DATE_PATTERN}, {"type": "null"}]
    assert "type" not in changed["date"] and changed["date"]["description"].startswith("corrected date")


def test_a_thread_ends_on_a_month_or_a_day_or_never():
    props = schema()
    for name in ("new_threads", "rewritten_threads"):
        until = item(props, name)["until"]
        assert until["anyOf"] == [{"type": "string", "pattern": UNTIL_PATTERN}, {"type": "null"}], name
        assert "type" not in until and until["description"].startswith("YYYY-MM-DD or YYYY-MM"), name


def test_each_profile_field_has_the_shape_of_its_value():
    """A relation from the list, an MBTI type, a birthday's date; gender, alias and tag short text."""
    shapes = {shape["properties"]["field"]["enum"][0]: shape for shape in schema()["profile_fields"]["items"]["anyOf"]}
    assert list(shapes) == ["relation", "mbti", "gender", "birthday", "alias", "tag"]
    values = {name: {k: v for k, v in shape["properties"]["value"].items() if k not in ("description", "title")}
              for name, shape in shapes.items()}
    assert values["relation"] == {"type": "string", "enum": list(profile_fmt.RELATIONS)}
    assert values["mbti"] == {"type": "string", "pattern": profile_fmt.MBTI_PATTERN}
    assert values["birthday"] == {"type": "string", "pattern": profile_fmt.BIRTHDAY_PATTERN}
    for name in ("gender", "alias", "tag"):
        assert values[name] == {"type": "string", "minLength": 1, "maxLength": 200}, name
    assert all(shape["properties"]["field"]["type"] == "string" for shape in shapes.values())
    assert "alias and tag" in shapes["tag"]["properties"]["value"]["description"]
    assert all(shape["required"] == ["field", "value", "evidence"] for shape in shapes.values())


def test_a_profile_note_goes_to_a_known_section_or_one_the_profile_has():
    props = schema()
    section = item(props, "profile_notes")["section"]
    assert section["enum"] == sorted({*profile_fmt.BODY_SECTIONS, "Hobbies", "People in their life"})
    assert section["description"].startswith("PROFILE.md section")
    assert props["profile_notes"]["maxItems"] == MAX_ITEMS


def test_a_link_names_another_known_person_in_a_few_words():
    props = schema()
    link = item(props, "new_links")
    assert link["person"]["enum"] == ["bob"] and link["person"]["type"] == "string"
    assert link["relation_words"]["maxLength"] == 60 and link["relation_words"]["type"] == "string"
    assert props["new_links"]["maxItems"] == MAX_ITEMS
    alone = schema(bench(known=("alice",)))
    assert "enum" not in item(alone, "new_links")["person"] and alone["new_links"]["maxItems"] == 0
    assert enum(item(alone, "new_links")["evidence"]) is None


def test_a_mention_has_a_short_name_role_a_few_aliases_and_notes():
    props = schema()
    mention = item(props, "new_mentions")
    for key in ("name", "role"):
        assert (mention[key]["type"], mention[key]["minLength"], mention[key]["maxLength"]) == ("string", 1, 60), key
    assert mention["aliases"]["items"] == {"type": "string", "minLength": 1, "maxLength": 60}
    assert mention["notes"]["items"] == {"type": "string", "minLength": 1, "maxLength": 200}
    assert mention["aliases"]["maxItems"] == 6 and mention["notes"]["maxItems"] == 6
    assert mention["aliases"]["type"] == "array" and mention["notes"]["description"]
    assert props["new_mentions"]["maxItems"] == MAX_ITEMS


# -- the compression's schema -----------------------------------------------------------
def test_a_compressed_line_cites_lines_of_its_own_section_never_the_users_hand_written_ones():
    hand = "- fact 2 (log 2026-11-02)"
    spec = compressed_schema(bench(facts=11, hand={hand}, budget=80))
    facts = spec["properties"]["facts"]
    ids = ["F1", *(f"F{i}" for i in range(3, 12))]
    assert facts["items"]["properties"]["lines"]["items"]["enum"] == ids
    assert facts["items"]["properties"]["lines"]["minItems"] == 1
    assert facts["items"]["properties"]["lines"]["maxItems"] == MAX_ITEMS
    assert facts["maxItems"] == 10  # at most one a line: min(10 ids, 80 // 8)
    text = facts["items"]["properties"]["text"]
    assert (text["type"], text["minLength"], text["maxLength"]) == ("string", 1, 200)
    assert spec["properties"]["chat_notes"]["items"]["properties"]["lines"]["items"]["enum"] == ["C1"]
    assert spec["properties"]["chat_notes"]["maxItems"] == 1
    assert compressed_schema(bench(facts=11, budget=16))["properties"]["facts"]["maxItems"] == 5  # at least five


def test_about_me_may_be_left_out_of_a_compression_but_never_sent_as_null():
    spec = compressed_schema(bench())
    about = spec["properties"]["about_user"]
    assert about["type"] == "array" and "anyOf" not in about and "default" not in about
    assert about["items"]["properties"]["lines"]["items"]["enum"] == ["U1"]
    assert "about_user" not in spec["required"] and about["maxItems"] == 1


def test_a_section_with_no_line_to_cite_compresses_to_nothing():
    spec = compressed_schema(bench(facts=0))
    lines = spec["properties"]["facts"]["items"]["properties"]["lines"]
    assert spec["properties"]["facts"]["maxItems"] == 0 and lines["maxItems"] == 0 and "minItems" not in lines


def test_a_compression_holds_at_least_five_lines_and_one_per_eight_tokens_of_budget():
    assert compressed_max_items(0) == 5 and compressed_max_items(47) == 5
    assert compressed_max_items(48) == 6 and compressed_max_items(800) == 100


def test_a_list_with_no_entry_to_cite_does_not_ask_for_one():
    """minItems 1 over an empty choice would be a schema no answer can meet."""
    props = schema(bench(facts=0, chats=0, threads=0, about=0, mentions=False), items=entries("persona"), events=0)
    for name in ("new_events", "new_facts", "profile_notes", "new_links", "new_mentions"):
        evidence = item(props, name)["evidence"]
        assert "minItems" not in evidence and evidence["maxItems"] == 0, name
