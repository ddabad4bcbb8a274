"""The JSON schema sent with each request, tightened to it: every
constraint in the schema, not only in the descriptions (list sizes,
lengths, weights, dates, and the enums of the ids actually shown), so a
grammar-constrained model cannot cite an entry or a line that does not
exist, or write a fact from an untrusted entry."""

from __future__ import annotations

from typing import Any

from heartcompass.formats import events as events_fmt, profile as profile_fmt
from heartcompass.memory.proposal.model import CITES, CITES_NEW, MAX_TEXT, Compressed, Proposal
from heartcompass.memory.proposal.trust import SUPPORTS, Claim, source_of
from heartcompass.memory.proposal.workbench import SECTION_IDS, LogItem, Workbench

DATE_PATTERN = r"^~?[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"  # a day, a month, a year, ~ about then (formats/events.py)
UNTIL_PATTERN = r"^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$"
MAX_ITEMS = 20  # per list: a proposal is a handful of small changes
# A grammar can hold a number to a list of values, not to a range: weights in steps of 0.05.
WEIGHT = {"type": "number", "minimum": 0, "maximum": 1, "enum": [round(n * 0.05, 2) for n in range(21)]}


def _ids(values) -> dict:
    """An array of ids from this request only; none to choose from means no
    items (an empty enum is not a valid schema)."""
    values = sorted(set(values), key=lambda v: (len(v), v))
    if not values:
        return {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    return {"type": "array", "items": {"type": "string", "enum": values}, "maxItems": MAX_ITEMS}


def _statement() -> dict:
    return {"type": "string", "minLength": 1, "maxLength": MAX_TEXT}


def proposal_schema(wb: Workbench, items: list[LogItem], events_shown: list[events_fmt.Event]) -> dict:
    """Proposal's JSON schema with every constraint in it, not only in the
    descriptions, so a grammar-constrained model cannot cite an entry or a
    line that does not exist, or write a fact from an untrusted entry."""
    from heartcompass.llm.structured import inline_schema

    spec = inline_schema(Proposal)
    props = spec["properties"]
    def offered(claim: Claim) -> list[str]:
        """The entries a statement of this claim may cite (trust.SUPPORTS)."""
        return [i.id for i in items if SUPPORTS[claim].may_cite(source_of(i.entry))]

    # the user's own person: all of it is about the user, and goes to Facts
    users = offered(Claim.ABOUT_ME) if wb.profile.relation != "self" else []
    line_ids = {p: [f"{p}{n + 1}" for n in range(len(wb.memory.items(t)))] for p, t in SECTION_IDS}
    line_ids["P"] = [f"P{n + 1}" for n in range(len(wb.profile.notes()))]

    def citing(key: str, entries: list[str], new: bool = False) -> list[str]:
        """The entries and the existing lines a statement of this kind may rest on (model.CITES)."""
        return [*entries, *(i for prefix in (CITES_NEW if new else CITES)[key] for i in line_ids[prefix])]
    event_ids = [f"E{n + 1}" for n in range(len(events_shown))]

    def listing(item: dict, evidence: list[str], ids: list[str] | None = None, need_evidence=True) -> dict:
        item = {**item, "properties": dict(item["properties"])}
        if "text" in item["properties"]:
            item["properties"]["text"] = {**item["properties"]["text"], **_statement()}
        if "evidence" in item["properties"]:
            ev = _ids(evidence)
            if need_evidence and evidence:
                ev["minItems"] = 1
            item["properties"]["evidence"] = {**item["properties"]["evidence"], **ev}
        if ids is not None:
            choice = {"type": "string", "enum": sorted(ids)} if ids else {"type": "string"}
            item["properties"]["id"] = {**item["properties"]["id"], **choice}
        room = evidence if ids is None else (evidence and ids)
        return {"type": "array", "items": item, "maxItems": MAX_ITEMS if room else 0}

    def each(name: str) -> dict:
        return props[name]["items"]

    props["summary"] = {**props["summary"], **_statement()}
    new_event = listing(each("new_events"), offered(Claim.EVENT))
    new_event["items"]["properties"]["date"] = {**new_event["items"]["properties"]["date"], "type": "string",
                                                "pattern": DATE_PATTERN}
    new_event["items"]["properties"]["weight"] = {**new_event["items"]["properties"]["weight"], **WEIGHT}
    props["new_events"] = {**props["new_events"], **new_event}
    changed = listing(each("changed_events"), offered(Claim.EVENT), event_ids, need_evidence=False)
    weight = changed["items"]["properties"]["weight"]
    changed["items"]["properties"]["weight"] = {**weight, "anyOf": [WEIGHT, {"type": "null"}]}
    text = changed["items"]["properties"]["text"]
    changed["items"]["properties"]["text"] = {k: v for k, v in text.items() if k not in ("type", "minLength",
                                                                                           "maxLength")}
    changed["items"]["properties"]["text"]["anyOf"] = [_statement(), {"type": "null"}]
    date = changed["items"]["properties"]["date"]  # Optional: its anyOf (string or null) replaced, no type of its own
    changed["items"]["properties"]["date"] = {**date, "anyOf": [{"type": "string", "pattern": DATE_PATTERN},
                                                                {"type": "null"}]}
    props["changed_events"] = {**props["changed_events"], **changed}
    props["removed_events"] = {**props["removed_events"], **_ids(event_ids)}
    for key, prefix, entries in (("facts", "F", offered(Claim.FACT)), ("chat_notes", "C", offered(Claim.CHAT_NOTE)),
                                 ("threads", "T", offered(Claim.THREAD)), ("about_user", "U", users)):
        props[f"new_{key}"] = {**props[f"new_{key}"], **listing(each(f"new_{key}"), citing(key, entries, new=True))}
        props[f"rewritten_{key}"] = {**props[f"rewritten_{key}"],
                                     **listing(each(f"rewritten_{key}"), citing(key, entries), line_ids[prefix])}
    for key in ("new_threads", "rewritten_threads"):
        until = props[key]["items"]["properties"]["until"]
        props[key]["items"]["properties"]["until"] = {
            **until, "anyOf": [{"type": "string", "pattern": UNTIL_PATTERN}, {"type": "null"}]}
    props["removed_facts"] = {**props["removed_facts"], **_ids(line_ids["F"])}
    props["removed_chat_notes"] = {**props["removed_chat_notes"], **_ids(line_ids["C"])}
    props["closed_threads"] = {**props["closed_threads"], **_ids(line_ids["T"])}
    props["removed_about_user"] = {**props["removed_about_user"], **_ids(line_ids["U"])}
    fields = listing(each("profile_fields"), offered(Claim.PROFILE_FIELD))
    fields["items"] = _one_shape_per_field(fields["items"])
    props["profile_fields"] = {**props["profile_fields"], **fields}
    notes = listing(each("profile_notes"), citing("profile_notes", offered(Claim.PROFILE_NOTE), new=True))
    sections = sorted({*profile_fmt.BODY_SECTIONS, *wb.profile.sections()})
    notes["items"]["properties"]["section"] = {**notes["items"]["properties"]["section"], "enum": sections}
    props["profile_notes"] = {**props["profile_notes"], **notes}
    props["rewritten_profile_notes"] = {**props["rewritten_profile_notes"],
                                        **listing(each("rewritten_profile_notes"),
                                                  citing("profile_notes", offered(Claim.PROFILE_NOTE)), line_ids["P"])}
    props["removed_profile_notes"] = {**props["removed_profile_notes"],
                                      **listing(each("removed_profile_notes"), offered(Claim.REMOVAL), line_ids["P"])}
    others = sorted(wb.known_slugs - {wb.slug})
    links = listing(each("new_links"), offered(Claim.LINK) if others else [])
    links["items"]["properties"]["person"] = {**links["items"]["properties"]["person"],
                                              **({"enum": others} if others else {})}
    links["items"]["properties"]["relation_words"] = {**links["items"]["properties"]["relation_words"],
                                                      "maxLength": 60}
    props["new_links"] = {**props["new_links"], **links}
    from heartcompass.memory.proposal.mentions import ids as mention_ids

    shown = mention_ids(wb)
    new_mentions = listing(each("new_mentions"), offered(Claim.MENTION))
    for key in ("name", "role"):
        new_mentions["items"]["properties"][key] = {**new_mentions["items"]["properties"][key], "minLength": 1,
                                                    "maxLength": 60}
    for key in ("aliases", "notes"):
        prop = new_mentions["items"]["properties"][key]
        new_mentions["items"]["properties"][key] = {**prop, "items": {"type": "string", "minLength": 1,
                                                                      "maxLength": 60 if key == "aliases" else
                                                                      MAX_TEXT}, "maxItems": 6}
    props["new_mentions"] = {**props["new_mentions"], **new_mentions}
    props["changed_mentions"] = {**props["changed_mentions"],
                                 **listing(each("changed_mentions"), offered(Claim.MENTION), shown)}
    props["removed_mentions"] = {**props["removed_mentions"], **_ids(shown)}
    return spec


def _one_shape_per_field(item: dict) -> dict:
    """A profile field's value, constrained by which field it is: a relation
    from the list, an MBTI type, a date; a grammar then cannot write an
    `mbti` of '}\n{' that the checks would only reject afterwards."""
    values: dict[str, dict[str, Any]] = {
        "relation": {"type": "string", "enum": list(profile_fmt.RELATIONS)},
        "mbti": {"type": "string", "pattern": profile_fmt.MBTI_PATTERN},
        "birthday": {"type": "string", "pattern": profile_fmt.BIRTHDAY_PATTERN}}
    return {"anyOf": [{**item, "properties": {**item["properties"], "field": {"type": "string", "enum": [name]},
                                               "value": {**item["properties"]["value"],
                                                         **values.get(name, _statement())}}}
                      for name in item["properties"]["field"]["enum"]]}


def compressed_schema(wb: Workbench) -> dict:
    """Compressed's schema: each section's lines cite ids of that section's
    lines only (not the user's own, which are kept as they are)."""
    from heartcompass.llm.structured import inline_schema

    spec = inline_schema(Compressed)
    budget = wb.memory.budget_tokens
    for (prefix, title), name in zip(SECTION_IDS, ("facts", "chat_notes", "threads", "about_user")):
        if name == "about_user":  # Optional: left out (not null) to leave the section as it is
            prop = spec["properties"][name]
            array = next(b for b in prop["anyOf"] if b.get("type") == "array")
            spec["properties"][name] = {**{k: v for k, v in prop.items() if k not in ("anyOf", "default")}, **array}
        ids = [f"{prefix}{n + 1}" for n, line in enumerate(wb.memory.items(title)) if not wb.is_protected(line)]
        kept = spec["properties"][name]["items"]
        kept = {**kept, "properties": {**kept["properties"], "text": {**kept["properties"]["text"], **_statement()},
                                       "lines": {**kept["properties"]["lines"], **_ids(ids),
                                                 **({"minItems": 1} if ids else {})}}}
        spec["properties"][name] = {**spec["properties"][name], "items": kept,
                                    "maxItems": min(len(ids), compressed_max_items(budget))}
    return spec


def compressed_max_items(budget_tokens: int) -> int:
    return max(5, budget_tokens // 8)
