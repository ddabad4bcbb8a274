"""PROFILE.md: who a person is. Frontmatter fields plus free Markdown body."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heartcompass.errors import FormatError
from heartcompass.formats import frontmatter_doc as fm
from heartcompass.formats.text import FILE_KINDS, read_text

FILENAME = FILE_KINDS["profile"]
RELATIONS = ("self", "family", "friend", "dating", "ambiguous", "tension",
             "broken_up", "failed", "stranger")
BODY_SECTIONS = ("Personality", "How they talk", "Likes", "Dislikes", "Boundaries", "Background")
MBTI_PATTERN = r"^[EI][NS][TF][JP](-[AT])?$"
BIRTHDAY_PATTERN = r"^([0-9]{4}-)?[0-9]{2}-[0-9]{2}$"  # YYYY-MM-DD, or MM-DD when the year is unknown
_MBTI = re.compile(MBTI_PATTERN)
MENTIONS = "People in their life"  # formats/mentions.py's section


def normalize_mbti(value: Any, path: Path | str = "MBTI", line: int | None = None) -> str | None:
    if value in (None, ""):
        return None
    text = str(value).strip().upper()
    if not _MBTI.match(text):
        raise FormatError(path, f"{value!r} is not an MBTI type", line,
                          "Use four letters: E/I, N/S, T/F, J/P, e.g. ENFP (optionally -A or -T), or leave it empty.")
    return text


def check_relation(value: Any, path: Path | str = "relation", line: int | None = None) -> str:
    text = str(value).strip()
    if text not in RELATIONS:
        raise FormatError(path, f"unknown relation {value!r}", line,
                          "Allowed relations: " + ", ".join(RELATIONS) + ".")
    return text


@dataclass
class Profile:
    doc: fm.Document
    path: Path

    # -- fields ---------------------------------------------------------
    @property
    def name(self) -> str:
        return str(self.doc.meta.get("name") or self.path.parent.name)

    @property
    def aliases(self) -> list[str]:
        return [str(a) for a in _as_list(self.doc.meta.get("aliases"))]

    @property
    def relation(self) -> str:
        return str(self.doc.meta.get("relation") or "stranger")

    @property
    def mbti(self) -> str | None:
        return normalize_mbti(self.doc.meta.get("mbti"), self.path)

    @property
    def gender(self) -> str | None:
        value = self.doc.meta.get("gender")
        return str(value) if value not in (None, "") else None

    @property
    def birthday(self) -> str | None:
        value = self.doc.meta.get("birthday")
        return str(value) if value not in (None, "") else None

    @property
    def tags(self) -> list[str]:
        return [str(t) for t in _as_list(self.doc.meta.get("tags"))]

    @property
    def handles(self) -> list[str]:
        """Their ids in chat apps (wechat id, QQ number, @username, phone,
        e-mail, Discord name): an import routes a sender by these."""
        return [str(h).strip() for h in _as_list(self.doc.meta.get("handles")) if str(h).strip()]

    @property
    def related(self) -> list[dict[str, str]]:
        out = []
        for item in _as_list(self.doc.meta.get("related")):
            if isinstance(item, dict) and item.get("person"):
                out.append({"person": str(item["person"]), "as": str(item.get("as") or "")})
        return out

    @property
    def body(self) -> str:
        return self.doc.body

    def set(self, key: str, value: Any) -> None:
        self.doc.meta[key] = value

    def names(self) -> list[str]:
        """Every name this person answers to: name, aliases."""
        return [self.name, *self.aliases]

    def sections(self) -> dict[str, str]:
        """Body sections by their `## ` heading."""
        out: dict[str, str] = {}
        current = None
        for line in self.body.splitlines():
            if line.startswith("## "):
                current = line[3:].strip()
                out[current] = ""
            elif current is not None:
                out[current] += line + "\n"
        return {k: v.strip() for k, v in out.items()}

    def notes(self) -> list[tuple[str, str]]:
        """Each line of the body's sections, as (section, line): what the
        gardener names by id (P1, P2...) to rewrite or remove. The people they
        mention (formats/mentions.py) are lines of their own, not notes."""
        out, current = [], None
        for line in self.body.splitlines():
            if line.startswith("## "):
                current = line[3:].strip()
            elif (current is not None and current != MENTIONS and line.strip()
                  and not line.lstrip().startswith("<!--")):
                out.append((current, line.rstrip()))
        return out


def handle_key(handle: str) -> str:
    """A handle as compared: any case, no spaces, no leading @, a phone
    number by its digits ('+1 (555) 867-5309' is '+15558675309')."""
    text = "".join(str(handle).split()).casefold().lstrip("@")
    if re.fullmatch(r"\+?[\d().\-]{7,}", text):
        return ("+" if text.startswith("+") else "") + re.sub(r"\D", "", text)
    return text


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return value
    return [value]


def parse(text: str, path: Path) -> Profile:
    doc = fm.parse(text, path)
    meta = doc.meta
    line = lambda key: fm.line_of_key(doc.raw_meta, key)  # noqa: E731
    if "relation" in meta and meta["relation"] not in (None, ""):
        check_relation(meta["relation"], path, line("relation"))
    normalize_mbti(meta.get("mbti"), path, line("mbti"))
    for key in ("aliases", "tags", "related", "handles"):
        value = meta.get(key)
        if value is not None and not isinstance(value, (list, str)):
            raise FormatError(path, f"'{key}' must be a list", line(key),
                              f"Write it as '{key}: [a, b]' or one '- item' per line.")
    for item in _as_list(meta.get("related")):
        if not isinstance(item, dict) or not item.get("person"):
            raise FormatError(path, "each 'related' entry needs a 'person' slug", line("related"),
                              "Write entries as '- {person: bob, as: her brother}'.")
    for handle in _as_list(meta.get("handles")):
        if isinstance(handle, (dict, list)) or not str(handle).strip():
            raise FormatError(path, f"handle {handle!r} is not an id", line("handles"),
                              "Write handles as '- wxid_abc123', '- \'12345678\'' (a QQ number) or '- @alice'.")
    if "name" in meta and not str(meta.get("name") or "").strip():
        raise FormatError(path, "'name' is empty", line("name"), "Give the person a name, e.g. 'name: Alice'.")
    return Profile(doc, path)


def load(path: Path) -> Profile:
    return parse(read_text(path), path)


def render(profile: Profile) -> str:
    return fm.render(profile.doc)


def new(path: Path, name: str, relation: str, *, mbti: str | None = None,
        aliases: list[str] | None = None, gender: str | None = None,
        about: str | None = None, related: list[dict[str, str]] | None = None,
        tags: list[str] | None = None, sections: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None) -> Profile:
    meta: dict[str, Any] = {"name": name, "aliases": list(aliases or []),
                            "relation": check_relation(relation)}
    if mbti:
        meta["mbti"] = normalize_mbti(mbti)
    if gender:
        meta["gender"] = gender
    meta["tags"] = list(tags or [])
    meta["related"] = list(related or [])
    meta.update(extra or {})
    texts = dict(sections or {})
    if about:
        texts["Background"] = "\n\n".join(t for t in (about.strip(), texts.get("Background")) if t)
    parts = [f"\n# {name}\n"]
    for section in BODY_SECTIONS:
        text = (texts.get(section) or "").strip()
        parts.append(f"\n## {section}\n" + (f"\n{text}\n" if text else ""))
    return Profile(fm.new(meta, "".join(parts)), path)
