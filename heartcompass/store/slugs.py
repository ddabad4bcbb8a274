"""Person names to folder names (slugs) that can never escape the workspace.

Unicode stays readable (小明 -> 小明, José -> josé); anything that could act
as a path (.., /, \\, a drive, control characters) is refused outright rather
than cleaned, so a typo never silently lands somewhere unexpected."""

from __future__ import annotations

import re
import unicodedata

from heartcompass.errors import PersonError

# Characters that are unsafe in file names on some system we may sync to.
_UNSAFE = set('<>:"|?*')
# Device names Windows reserves in every folder, whatever the extension or
# case ("com1.txt", "Nul.md"): a folder named so cannot be checked out there.
WINDOWS_RESERVED = frozenset({"con", "prn", "aux", "nul", "conin$", "conout$",
                              *(f"{dev}{n}" for dev in ("com", "lpt") for n in "123456789¹²³")})
_SPACES = re.compile(r"[\s_]+")


def clean_name(name: str) -> str:
    """The display name as given, validated. Raises PersonError."""
    if name is None:
        raise PersonError("A person needs a name.")
    name = unicodedata.normalize("NFC", name).strip()
    if not name:
        raise PersonError("A person's name cannot be empty.")
    if ".." in name or "/" in name or "\\" in name:
        raise PersonError(
            f"The name {name!r} contains '..', '/' or '\\', which could point outside the workspace.",
            "Use a plain name such as 'Alice' or '小明'.",
        )
    for ch in name:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            raise PersonError(
                f"The name {name!r} contains a control or invisible character (U+{ord(ch):04X}).",
                "Type the name again without it.",
            )
    from heartcompass.sanitize import invisible_free

    if invisible_free(name) != name:  # a variation selector outside an emoji, a blank filler
        raise PersonError(f"The name {name!r} contains an invisible character.", "Type the name again without it.")
    return name


def slugify(name: str) -> str:
    """A folder name for a person. Raises PersonError for unsafe names."""
    name = clean_name(name)
    slug = "".join(_slug_char(ch) for ch in name)
    slug = _SPACES.sub("-", slug.casefold()).strip("-.")
    slug = re.sub(r"-{2,}", "-", slug)
    if not slug or not any(ch.isalnum() for ch in slug):
        raise PersonError(
            f"The name {name!r} has no letters or digits left to name a folder with.",
            "Use a name with at least one letter or digit.",
        )
    if windows_reserved(slug):
        raise PersonError(
            f"The name {name!r} gives the folder name {slug!r}, which Windows reserves for a device "
            "(CON, PRN, AUX, NUL, COM1-9, LPT1-9), so the workspace could not sync to a Windows machine.",
            "Use a longer name, e.g. with a last name or a nickname.",
        )
    if len(slug.encode("utf-8")) > 120:
        raise PersonError(f"The name {name!r} is too long for a folder name (120 bytes at most).")
    return slug


def _slug_char(ch: str) -> str:
    """Letters, digits and marks (any script) and '-' stay; an apostrophe goes
    (O'Brien: obrien); other punctuation and symbols part words ("Dr. Feather": dr-feather)."""
    if ch.isalnum() or ch == "-" or unicodedata.category(ch)[0] == "M":
        return ch
    return "" if ch in "'’ʼ`" else " "


def is_safe_slug(slug: str) -> bool:
    """A folder name of ours: as slugify makes them, or as it made them before
    punctuation was dropped ("dr.-feather"), never a path."""
    try:
        if slugify(slug) == slug:
            return True
        return (clean_name(slug) == slug == slug.casefold() and not slug.startswith(".")
                and not _UNSAFE & set(slug) and not _SPACES.search(slug))
    except PersonError:
        return False


def windows_reserved(name: str) -> bool:
    """Whether Windows refuses name as a file or folder name: the part before
    the first dot, without trailing dots or spaces, is a device name."""
    base = name.split(".", 1)[0].rstrip(" .").casefold()
    return base in WINDOWS_RESERVED
