"""`person import-vcf`: people from a vCard export (phones, Google, iCloud,
Outlook). Each card's name, nicknames, birthday, phones and e-mail
addresses (as handles) make a new person, or are added to the person who
already answers to that name or one of those handles, never replacing what
is there. Folded lines, escapes and Android's quoted-printable UTF-8 are
read; a card without a name is reported by its line and skipped."""

from __future__ import annotations

import quopri
import re
from dataclasses import dataclass, field
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.formats.profile import handle_key
from heartcompass.language import HAN

MAX_VCF_BYTES = 20 << 20
_BDAY = re.compile(r"^(?:(\d{4})-?|--)(\d{2})-?(\d{2})")


@dataclass
class Card:
    name: str
    line: int
    nicknames: list[str] = field(default_factory=list)
    handles: list[str] = field(default_factory=list)
    birthday: str | None = None


@dataclass
class Change:
    """What one card does: a new person, or what it adds to an existing one."""
    card: Card
    slug: str | None = None  # the existing person it merges into; None: a new person
    aliases: list[str] = field(default_factory=list)
    handles: list[str] = field(default_factory=list)
    birthday: str | None = None

    @property
    def empty(self) -> bool:
        return self.slug is not None and not (self.aliases or self.handles or self.birthday)


def _unfold(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for n, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if line[:1] in (" ", "\t") and out:
            out[-1] = (out[-1][0], out[-1][1] + line[1:])
        elif out and out[-1][1].endswith("=") and "QUOTED-PRINTABLE" in out[-1][1].split(":", 1)[0].upper():
            out[-1] = (out[-1][0], out[-1][1][:-1] + line)  # a soft line break of quoted-printable
        else:
            out.append((n, line))
    return out


def _value(params: str, raw: str) -> str:
    if "QUOTED-PRINTABLE" in params.upper():
        charset = re.search(r"CHARSET=([\w-]+)", params, re.I)
        try:
            raw = quopri.decodestring(raw.encode("latin-1", "replace")).decode(charset[1] if charset else "utf-8",
                                                                              "replace")
        except LookupError:
            raw = quopri.decodestring(raw.encode("latin-1", "replace")).decode("utf-8", "replace")
    from heartcompass.sanitize import clean_text

    text = raw.replace("\\n", " ").replace("\\N", " ").replace("\\,", ",").replace("\\;", ";").replace("\\\\", "\\")
    return " ".join(clean_text(text).split())  # a card's field reaches a profile: nothing hidden in it


def parse(text: str, path: Path | str) -> tuple[list[Card], list[tuple[int, str]]]:
    """The cards, and the (line, why) of each one skipped."""
    cards: list[Card] = []
    bad: list[tuple[int, str]] = []
    current: Card | None = None
    structured = ""
    for n, line in _unfold(text):
        key, sep, raw = line.partition(":")
        if not sep:
            continue
        params = key.split(";", 1)[1] if ";" in key else ""
        prop = key.split(";", 1)[0].split(".")[-1].upper()  # "item1.EMAIL" is EMAIL
        if prop == "BEGIN" and raw.strip().upper() == "VCARD":
            current, structured = Card("", n), ""
        elif current is None:
            continue
        elif prop == "END":
            current.name = current.name or structured
            if current.name:
                cards.append(current)
            else:
                bad.append((current.line, "a card with no name (FN or N)"))
            current = None
        elif prop == "FN":
            current.name = _value(params, raw)
        elif prop == "N":
            parts = [_value(params, p) for p in raw.split(";")]
            family, given = (parts + ["", ""])[:2]
            cjk = re.search(f"[{HAN}]", family + given)
            structured = (family + given) if cjk else " ".join(p for p in (given, family) if p)
        elif prop == "NICKNAME":
            current.nicknames += [n_ for n_ in (_value(params, p) for p in re.split(r"(?<!\\),", raw)) if n_]
        elif prop in ("TEL", "EMAIL", "X-WECHAT", "X-QQ", "IMPP", "X-SOCIALPROFILE"):
            value = _value(params, raw)
            value = re.sub(r"^(?:tel|mailto|xmpp|sip|im|wechat|weixin|qq):", "", value, flags=re.I)
            if value and value not in current.handles:
                current.handles.append(value)
        elif prop == "BDAY":
            m = _BDAY.match(_value(params, raw))
            if m:
                current.birthday = f"{m[1]}-{m[2]}-{m[3]}" if m[1] else f"{m[2]}-{m[3]}"
            else:
                bad.append((n, f"BDAY {raw.strip()[:30]!r} is not a date (the rest of the card is kept)"))
    if not cards and not bad:
        raise FormatError(path, "no vCard found (no BEGIN:VCARD)", 1,
                          "Export contacts as a .vcf file (vCard 3.0 or 4.0) from your phone or address book.")
    return cards, bad


def plan(ws, cards: list[Card]) -> list[Change]:
    """Each card: a new person, or what it adds to the one who already answers to its name or a handle."""
    from heartcompass.intake.routing import directory
    from heartcompass.store.aliases import alias_refusal, taken_names
    from heartcompass.store.people import Person

    who, everyone = directory(ws), taken_names(ws)
    out = []
    for card in cards:
        slug = next((who.person_for("", h) for h in card.handles if who.person_for("", h)), None) \
            or who.person_for(card.name)
        # a NICKNAME of "me", "import:me", the user's name or another person's is no alias of theirs
        nicknames = [n for n in dict.fromkeys(card.nicknames) if alias_refusal(ws, n, slug, taken=everyone) is None]
        if slug is None:
            taken = {n.casefold() for names in who.names.values() for n in names}
            out.append(Change(card, None, [n for n in nicknames if n.casefold() not in taken
                                           and n != card.name], card.handles, card.birthday))
            continue
        names = {n.casefold() for n in who.names.get(slug, [])}
        have = {k for k, s in who.handles.items() if s == slug}
        known_birthday = Person(slug, ws.people_dir / slug).load_profile().birthday
        out.append(Change(card, slug,
                          [n for n in dict.fromkeys([card.name, *nicknames]) if n.casefold() not in names],
                          [h for h in card.handles if handle_key(h) not in have],
                          None if known_birthday else card.birthday))
    return out


def apply(ws, changes: list[Change], relation: str) -> tuple[list[str], list[str], str | None]:
    """Write the chosen changes, one commit. Returns (slugs added, slugs updated, the commit)."""
    from heartcompass.atomic import file_checksum, write_atomic
    from heartcompass.formats import profile as profile_fmt
    from heartcompass.store import audit
    from heartcompass.store.people import Person, create

    merged = [c.slug for c in changes if c.slug and not c.empty]
    added, updated, paths = [], [], []
    with audit.write_transaction(ws, "person import-vcf"):
        audit.commit_pending(ws, [Person(slug, ws.people_dir / slug) for slug in merged])
        try:
            for change in changes:
                if change.slug is None:
                    extra: dict[str, object] = {"handles": change.handles} if change.handles else {}
                    if change.birthday:
                        extra["birthday"] = change.birthday
                    person = create(ws, change.card.name, relation, aliases=change.aliases, extra=extra,
                                    allow_taken=True)
                    added.append(person.slug)
                    paths.append(person.dir)
                elif not change.empty:
                    path = ws.people_dir / change.slug / profile_fmt.FILENAME
                    before = file_checksum(path)
                    prof = profile_fmt.load(path)
                    prof.set("aliases", [*prof.aliases, *change.aliases])
                    if change.handles:
                        prof.set("handles", [*prof.handles, *change.handles])
                    if change.birthday and not prof.birthday:
                        prof.set("birthday", change.birthday)
                    text = profile_fmt.render(prof)
                    profile_fmt.parse(text, path)  # never write what we could not read back
                    write_atomic(path, text, before)
                    updated.append(change.slug)
                    paths.append(path)
        except BaseException:
            if paths:
                ws.git.roll_back(paths)
            raise
        if added:
            from heartcompass.store.mention_links import link_new_people

            paths += [p for p in link_new_people(ws, [Person(s, ws.people_dir / s) for s in added]) if p not in paths]
        if not paths:
            return added, updated, None
        what = ", ".join(filter(None, [f"{len(added)} new" if added else "", f"{len(updated)} updated"
                                       if updated else ""]))
        scope = (added + updated)[0] if len(added + updated) == 1 else None
        sha = audit.commit_or_roll_back(ws, paths, audit.subject(audit.Verb.ADD, scope, f"from contacts ({what})"),
                                        "\n".join(f"- {s}" for s in added + updated), what="the contacts")
    return added, updated, sha
