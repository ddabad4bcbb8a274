"""Character cards (the V2 spec SillyTavern and similar persona-chat apps
use, and the older flat V1): export a person as one, create a person from
one. JSON files, and PNG cards with the JSON in a `chara` text chunk."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heartcompass.atomic import write_atomic
from heartcompass.errors import FormatError
from heartcompass.intake.card_png import (AVATAR, FIX as _FIX, MAX_CARD_FILE, MAX_CARD_TEXT, CardError,  # noqa: F401
                                          avatar_of, card_avatar as _avatar, png_text)
from heartcompass.formats import memory as memory_fmt
from heartcompass.formats.profile import RELATIONS
from heartcompass.formats.sources import unforged, without_source
from heartcompass.sanitize import clean_text
from heartcompass.store.people import Person
from heartcompass.language import FUNCTION_WORDS, HAN

if TYPE_CHECKING:
    from heartcompass.store.workspace import Workspace

V2 = "chara_card_v2"
V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
CARD_INFO = ("creator", "creator_notes", "character_version")  # kept in PROFILE.md's `card:`, written back on export
# The card's scenario line, one phrase per relation ("is {{user}}'s dating" is not English).
RELATION_PHRASES = {
    "self": "{name} is {{{{user}}}}'s own voice, a partner for reflection",
    "family": "{name} is family to {{{{user}}}}",
    "friend": "{name} is {{{{user}}}}'s friend",
    "dating": "{name} and {{{{user}}}} are dating",
    "ambiguous": "{name} and {{{{user}}}} are more than friends, though neither has said so",
    "tension": "{name} and {{{{user}}}} are on tense terms",
    "broken_up": "{name} is {{{{user}}}}'s ex: they used to date and have broken up",
    "failed": "{name} and {{{{user}}}} tried to get close, and it did not work out",
    "stranger": "{name} and {{{{user}}}} barely know each other",
}


def _quotes(text: str) -> list[str]:
    return [q.strip() for q in re.findall(r"[\"“「](.+?)[\"”」]", text) if q.strip()]


_STOPWORDS = FUNCTION_WORDS | frozenset("""
after before being doing down get got having most much one only other out over same says since through together
under until want wants went while
""".split())  # all else too common to name a card entry
# Chinese function characters split a run of Han characters into keyword-sized pieces.
_CJK_BREAK = re.compile(r"[的了是在和与跟我你他她它们也就不要会很把被给对从到说着过个这那有又还而及或吗呢吧啊去]+")
_CJK_RUN = re.compile(f"[{HAN}]+")


def _keys(text: str, name: str) -> list[str]:
    """Trigger words for a lorebook entry: the name plus up to three keywords
    (names and long content words; short pieces of Chinese text), never clauses."""
    text = without_source(text.rstrip())  # our source marker is no keyword
    found: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", text):
        low = word.lower()
        if low not in _STOPWORDS and word.casefold() != name.casefold() and low not in (f.lower() for f in found):
            found.append(word)
    # Proper nouns first (a capital not at the start of the text), then the longest words.
    first = text.lstrip()[:len(found[0])] if found else ""
    latin = sorted(found, key=lambda w: (not (w[0].isupper() and w != first), -len(w)))
    cjk = []
    for run in _CJK_RUN.findall(text):
        for piece in _CJK_BREAK.split(run):
            if len(piece) >= 2 and piece not in cjk and piece not in name:
                cjk.append(piece[:4])
    return [name, *(latin + cjk)[:3]]


def export_card(person: Person) -> dict[str, Any]:
    prof, evs, mem = person.load_profile(), person.load_events(), person.load_memory()
    sec = prof.sections()
    name = prof.name
    talk = sec.get("How they talk", "")
    lines = _voice_lines(person) or _quotes(talk)  # their real words first (VOICE.md)
    # "How they talk" is kept whole here (the example lines below only carry its quotes), labelled so
    # import-card puts every section back in its place.
    description = "\n\n".join(f"{h}: {t}" for h, t in sec.items() if t and h != "Personality")
    book = []
    for i, line in enumerate(mem.items(memory_fmt.FACTS)):
        content = line[2:] if line.startswith("- ") else line
        book.append({"keys": _keys(content, name), "content": content, "enabled": True, "insertion_order": i,
                     "id": i, "comment": "fact", "extensions": {}})
    for j, event in enumerate(evs.sorted_events()[:50]):
        book.append({"keys": _keys(event.text, name), "content": f"{event.when}: {event.text}", "enabled": True,
                     "insertion_order": len(book), "id": len(book), "comment": f"event w{event.effective_weight}",
                     "extensions": {}})
    card = prof.doc.meta["card"] if isinstance(prof.doc.meta.get("card"), dict) else {}  # the card they came from
    info = {k: str(v) for k, v in card.items() if k in CARD_INFO and v}
    extensions = dict(prof.doc.meta.get("card_extensions") or {})
    extensions["heartcompass"] = {"slug": person.slug, "relation": prof.relation, "mbti": prof.mbti,
                                  "aliases": prof.aliases, "gender": prof.gender, "birthday": prof.birthday}
    return {"spec": V2, "spec_version": "2.0", "data": {
        "name": name,
        "description": description,
        "personality": sec.get("Personality", ""),
        "scenario": f"{RELATION_PHRASES.get(prof.relation, '{name} knows {{{{user}}}}').format(name=name)}. "
                    f"{name} is chatting with {{{{user}}}} by text.",
        "first_mes": next((line for line in lines if len(line.split()) >= 3), lines[0] if lines else "Hey {{user}}!"),
        "mes_example": ("<START>\n" + "".join(f"{{{{char}}}}: {line}\n" for line in lines)) if lines else (
            f"<START>\n{{{{char}}}}: {talk}\n" if talk else ""),
        "creator_notes": info.get("creator_notes", "Exported from HeartCompass. Facts and events are in the "
                                                   "character book."),
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": lines[1:4],
        "character_book": {"name": f"{name} — HeartCompass", "entries": book, "extensions": {}},
        "tags": prof.tags, "creator": info.get("creator", "HeartCompass"),
        "character_version": info.get("character_version", "1"), "extensions": extensions,
    }}




def read_card(path: Path) -> dict[str, Any]:
    """The card's fields as V2 `data`, from a V1 or V2 card (JSON or PNG)."""
    from heartcompass.intake.limits import read_limited

    raw = read_limited(path, MAX_CARD_FILE, "character card")
    text = png_text(raw, path) if raw.startswith(b"\x89PNG\r\n\x1a\n") else raw.decode("utf-8-sig", "replace")
    try:
        card = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CardError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}).",
                        "A character card is a JSON file (or a PNG with one inside).") from None
    except RecursionError:
        raise CardError(f"{path}: the card's JSON is nested too deeply.", _FIX) from None
    if not isinstance(card, dict):
        raise CardError(f"{path}: a character card is a JSON object.")
    if card.get("spec") in (V2, "chara_card_v3"):
        data = card.get("data")
        if not isinstance(data, dict):
            raise CardError(f"{path}: a {card['spec']} card needs a 'data' object.")
    elif "spec" in card:
        raise CardError(f"{path}: unknown card spec {card['spec']!r}.", "Supported: V1 and chara_card_v2 (and v3).")
    else:
        data = card  # V1: the fields at the top level
        _refuse_non_card(data, path)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CardError(f"{path}: the card has no 'name'.")
    for key in V1_FIELDS[1:]:
        if data.get(key) is not None and not isinstance(data.get(key), str):
            raise CardError(f"{path}: '{key}' must be text.")
    _check_shapes(data, path)
    return data


def _refuse_non_card(data: dict[str, Any], path: Path) -> None:
    """A V1 card is its fields at the top level: a JSON object with a 'name'
    and nothing of a character (a chat export, a config file) is not one."""
    if isinstance(data.get("messages"), list) or isinstance(data.get("chats"), (dict, list)):
        raise CardError(f"{path}: this is a chat export (it has 'messages'), not a character card; nothing was "
                        "imported.", f"Import a chat with: heartcompass import NAME {path.name}")
    if not any(data.get(k) for k in V1_FIELDS[1:]):
        raise CardError(f"{path}: not a character card: a card has 'spec': 'chara_card_v2' with a 'data' object, "
                        f"or (V1) some of {', '.join(V1_FIELDS[1:])} beside its 'name'; this file has none of "
                        "them. Nothing was imported.", _FIX)


def _check_shapes(data: dict[str, Any], path: Path) -> None:
    """The nested parts person_fields walks: the wrong shape is a clear error, not a crash."""
    book = data.get("character_book")
    if book is not None:
        if not isinstance(book, dict):
            raise CardError(f"{path}: 'character_book' must be an object with an 'entries' list, "
                            f"not {'a list' if isinstance(book, list) else type(book).__name__}.", _FIX)
        if book.get("entries") is not None and not isinstance(book.get("entries"), list):
            raise CardError(f"{path}: 'character_book.entries' must be a list.", _FIX)
    if data.get("extensions") is not None and not isinstance(data.get("extensions"), dict):
        raise CardError(f"{path}: 'extensions' must be an object.", _FIX)
    ours = (data.get("extensions") or {}).get("heartcompass")
    if ours is not None and not isinstance(ours, dict):
        raise CardError(f"{path}: 'extensions.heartcompass' must be an object.", _FIX)
    for key in ("tags", "alternate_greetings"):
        if data.get(key) is not None and not isinstance(data.get(key), (list, str)):
            raise CardError(f"{path}: '{key}' must be a list of text.", _FIX)


def _birthday(value: Any) -> str | None:
    """YYYY-MM-DD or MM-DD, as PROFILE.md writes it; anything else is dropped."""
    text = _text_or_none(value)
    return text if text and re.fullmatch(r"(\d{4}-)?\d{2}-\d{2}", text) else None


def _text_or_none(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _names(value: Any) -> list[str]:
    """Aliases or tags: a list of text, or one text with commas (never split into letters)."""
    if isinstance(value, str):
        value = re.split(r"[,，、;；]", value)
    if not isinstance(value, list):
        return []
    return [v.strip() for v in value if isinstance(v, str) and v.strip()]


def _voice_lines(person: Person) -> list[str]:
    from heartcompass.formats import voice as voice_fmt

    path = person.dir / voice_fmt.FILENAME
    return [line.text for line in voice_fmt.load(path).lines(voice_fmt.THEIRS)] if path.exists() else []


def example_lines(data: dict[str, Any], user: str = "me") -> list[str]:
    """The character's own lines, VOICE.md material: each paragraph of
    first_mes (their greeting) and each {{char}} line of mes_example, whole,
    the placeholders resolved to the names; what {{user}} says stays out."""
    name = str(data.get("name") or "")
    first = without_user_turns(str(data.get("first_mes") or ""), dialogue=False)
    lines = [p for p in re.split(r"\n\s*\n", _breaks(first).replace("<START>", ""))]
    lines += [m.group(1) for m in re.finditer(r"(?m)^(?:\{\{char\}\}|<bot>):\s*(.+)$",
                                              _breaks(str(data.get("mes_example") or "")), re.I)]
    seen, out = set(), []
    for line in lines:
        line = _one_line(resolve(line, name, user)).strip('"“”')
        if line and line.casefold() not in seen:
            seen.add(line.casefold())
            out.append(line)
    return out


# -- card text made safe for our files ----------------------------------------------
# Characters str.splitlines() breaks on besides \n and \r: in a card they would start a
# heading or a list item in PROFILE.md or MEMORY.md (issue 23). Invisible characters go (sanitize.clean_text).
_LINE_BREAKS = re.compile("[\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e]|\r\n?")


def _breaks(text: str) -> str:
    return _LINE_BREAKS.sub("\n", text)


def _one_line(text: str) -> str:
    """Card text for one line of a file (a fact, an event, a voice line)."""
    text = " ".join(clean_text(_breaks(text)).split())
    return unforged(text).lstrip("#").strip()


def _block(text: str) -> str:
    """Card text for a PROFILE.md section: paragraphs kept, no heading or marker of its own."""
    text = clean_text(_breaks(text))
    return "\n".join(unforged(re.sub(r"^\s*#+\s*", "", line)).rstrip() for line in text.split("\n")).strip()


def resolve(text: str, name: str, user: str) -> str:
    """A card's placeholders as the names: {{char}} (V1 <BOT>) and {{user}} (V1 <USER>)."""
    text = re.sub(r"\{\{char\}\}|<bot>", lambda _: name, text, flags=re.I)
    return re.sub(r"\{\{user\}\}|<user>", lambda _: user, text, flags=re.I)


# A line the card has {{user}} say (V1 cards write <USER>): the user's words, not the character's.
_USER_TURN = re.compile(r"^\s*(?:\{\{user\}\}|<user>)\s*:", re.I)
_TURN_END = re.compile(r"^\s*(?:\{\{(?:char|user)\}\}|<(?:bot|user)>)\s*:|^\s*<START>\s*$|^\s*$", re.I)


def without_user_turns(text: str, *, dialogue: bool) -> str:
    """The text without what {{user}} says. In a dialogue (mes_example) a turn
    runs from its `{{user}}:` line to the next speaker, <START> or blank line;
    elsewhere (first_mes is the character's one message) only that line goes."""
    kept, in_user_turn = [], False
    for line in text.split("\n"):
        if _USER_TURN.match(line):
            in_user_turn = True
        elif _TURN_END.match(line) or not dialogue:
            in_user_turn = False
        if not in_user_turn:
            kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept))


def person_fields(data: dict[str, Any], user_name: str) -> dict[str, Any]:
    """What `person add` needs, from card data; unknown extensions are kept."""
    ext = dict(data.get("extensions") or {})
    ours = ext.pop("heartcompass", {}) or {}

    user = user_name or "me"

    def clean(text: str | None) -> str:
        text = _breaks(text or "").replace("<START>", "")
        text = re.sub(r"(?m)^(?:\{\{char\}\}|<bot>):\s*(.+)$", r'"\1"', text, flags=re.I)  # example lines quoted
        return _block(resolve(text, data["name"], user))

    relation = ours.get("relation") if isinstance(ours.get("relation"), str) and ours["relation"] in RELATIONS \
        else "stranger"
    facts, events = [], []
    book = data.get("character_book") or {}
    for entry in book.get("entries", []) if isinstance(book, dict) else []:
        if not (isinstance(entry, dict) and str(entry.get("content", "")).strip() and entry.get("enabled", True)):
            continue
        content = _one_line(resolve(str(entry["content"]), data["name"], user))  # whole: a lorebook entry is one fact
        # a day, a month, a year of ours (1900s or 2000s: "1000: ..." is no date), ~ about
        dated = re.match(r"^(~?(?:\d{4}-\d{2}(?:-\d{2})?|(?:19|20)\d{2})): (.+)$", content)
        weight = re.search(r"w(0(?:\.\d+)?|1(?:\.0+)?)\b", str(entry.get("comment", "")))
        if dated:
            events.append((dated.group(1), dated.group(2), float(weight.group(1)) if weight else None))
        elif content:
            facts.append(content)
    sections = {"Personality": clean(data.get("personality")), "How they talk": "", "Background": ""}
    background, label = [], None
    for para in re.split(r"\n\s*\n", clean(data.get("description"))):
        labelled = re.match(r"^(Personality|How they talk|Likes|Dislikes|Boundaries|Background): (.*)$", para, re.S)
        if labelled:  # a card HeartCompass exported: each section back in its place
            label = labelled.group(1)
            sections[label] = labelled.group(2).strip()
        elif para.strip() and ours and label:  # the next paragraph of that same section
            sections[label] += "\n\n" + para.strip()
        elif para.strip():
            background.append(para.strip())
    if not ours and clean(data.get("scenario")):  # our own scenario line is generated, not knowledge
        background.append(clean(data.get("scenario")))
    sections["Background"] = "\n\n".join([sections["Background"], *background]).strip()
    # How *they* talk: the example dialogue without what the card has {{user}} say; their
    # greeting (first_mes) is their own words, for VOICE.md (example_lines), as README says
    if not sections["How they talk"]:  # our own export carries the section itself in the description
        sections["How they talk"] = clean(without_user_turns(str(data.get("mes_example") or ""), dialogue=True))
    kept = {key: _block(str(data[key])) for key in CARD_INFO if isinstance(data.get(key), str) and data[key].strip()}
    return {
        "name": data["name"].strip(), "relation": relation, "mbti": _text_or_none(ours.get("mbti")),
        "aliases": [_one_line(a) for a in _names(ours.get("aliases"))],
        "gender": _text_or_none(ours.get("gender")),
        "birthday": _birthday(ours.get("birthday")),
        "sections": sections,
        "facts": facts,
        "events": events,
        "extensions": ext,
        "card": kept,
        "tags": [_one_line(t) for t in _names(data.get("tags"))],
        "voice": example_lines(data, user),
    }


# -- a new person from a card ------------------------------------------------------
def import_card(ws: Workspace, path: Path, allow_taken: bool = False, name: str | None = None) -> Person:
    """A new person from a character card (V1 or V2), one commit. `name`
    replaces the card's own name (and its {{char}}), with add's name rules."""
    from heartcompass.formats.events import Event, parse_when
    from heartcompass.formats.profile import normalize_mbti
    from heartcompass.store.lifecycle import add_person
    from heartcompass.store.people import check_new_name
    from heartcompass.store.slugs import clean_name
    from heartcompass.memory.voice import add_line

    card = read_card(path)
    if name is not None:
        card = {**card, "name": clean_name(name)}
        check_new_name(ws, card["name"])  # before anything else about the card
    fields = person_fields(card, str(ws.config.get("user.name") or "me"))
    try:
        mbti = normalize_mbti(fields["mbti"])
    except FormatError:
        mbti = None  # a card's odd type is not worth refusing the card for
    extra = {"card_extensions": fields["extensions"]} if fields["extensions"] else {}
    if fields["card"]:
        extra["card"] = fields["card"]
    if fields.get("birthday"):
        extra = {"birthday": fields["birthday"], **extra}
    past = []
    for day, text, weight in fields["events"]:
        try:
            when = parse_when(day)
            past.append(Event(when.date, text, weight, "import", when.month_only, when.approx, when.year_only))
        except ValueError:
            fields["facts"].append(f"{day}: {text}")  # not a real date: kept as a fact

    def keep_their_voice_and_picture(person: Person) -> None:
        for line in fields.get("voice") or []:  # the card's greeting and example dialogue: how they write
            add_line(person.dir, fields["name"], line, "card")
        image = _avatar(path)
        if image:  # the card's picture stays theirs: `person export -o NAME.png` writes it back
            write_atomic(person.dir / AVATAR, image, expected_checksum=None)

    return add_person(ws, fields["name"], fields["relation"], why=f"from character card {Path(path).name}",
                      purpose="import-card", then=keep_their_voice_and_picture, mbti=mbti,
                      aliases=fields["aliases"], gender=fields["gender"], tags=fields["tags"],
                      sections=fields["sections"], facts=fields["facts"], extra=extra, past_events=past,
                      allow_taken=allow_taken)
