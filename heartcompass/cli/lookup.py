"""The person a command's NAME means: every command that takes a person
looks them up here, so a name several people answer to ("bo" for Bob Stone
and Bobby) is asked about in one way everywhere. At a terminal the user
picks one; piped, from cron or with --json the core's error stands, listing
each candidate with the slug to type instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

from heartcompass.cli import ask
from heartcompass.errors import AmbiguousPerson

if TYPE_CHECKING:
    from heartcompass.store.people import Person
    from heartcompass.store.workspace import Workspace


def person(ws: Workspace, name: str, asking: bool = True) -> Person:
    """The one person `name` means, asking which when several could be;
    `asking` False for --json output, read by a program a question would hang."""
    from heartcompass.store.people import resolve

    try:
        return resolve(ws, name)
    except AmbiguousPerson as exc:
        return resolve(ws, _chosen(exc, asking))


def slug(ws: Workspace, name: str) -> str:
    """`name` itself, or the chosen slug when it is ambiguous: for a core call
    that resolves the name inside its own write transaction (rename, archive)."""
    from heartcompass.store.people import resolve

    try:
        resolve(ws, name)
    except AmbiguousPerson as exc:
        return _chosen(exc)
    return name


def _chosen(exc: AmbiguousPerson, asking: bool = True) -> str:
    if not (asking and ask.can_ask()):
        raise exc
    choices = [(f"{name} ({slug})" if name != slug else slug, slug) for slug, name in exc.candidates]
    return ask.pick(f"{exc.name!r} could be several people: which one?", choices)

