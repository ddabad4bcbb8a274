"""The shared layer under every format: YAML frontmatter plus a Markdown body.

python-frontmatter's YAML handler loads the frontmatter (imported on first
use: `person list` answers from people_index without it); this module owns
the exact bytes. Its `dumps` alone is not a stable renderer (it sorts keys, strips the
body's trailing newline and reflows lists), so we keep the original text of
each part and reuse it when that part did not change: load + save of an
unchanged file is a byte-for-byte no-op."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heartcompass.errors import FormatError
from heartcompass.formats.text import check_conflict_marks

_OPEN = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^---[ \t]*\r?$\n?", re.MULTILINE)


def _yaml():
    import yaml

    return yaml


_HANDLER = None


def _load(text: str) -> Any:
    """python-frontmatter's YAML handler, on PyYAML's C loader when there is
    one; imported on first use, so `person list` (served from the people
    index) and --help never pay for it."""
    global _HANDLER
    if _HANDLER is None:
        from frontmatter.default_handlers import YAMLHandler

        yaml = _yaml()
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class _FastYAML(YAMLHandler):
            def load(self, fm: str, **kwargs: Any) -> Any:
                kwargs.setdefault("Loader", loader)
                return super().load(fm, **kwargs)

        _HANDLER = _FastYAML()
    return _HANDLER.load(text)


def _dumper():
    yaml = _yaml()
    return getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass
class Document:
    meta: dict[str, Any]
    body: str
    raw_meta: str = ""          # frontmatter text between the fences, as read
    has_frontmatter: bool = True
    _orig_meta: dict[str, Any] = field(default_factory=dict, repr=False)
    _orig_text: str | None = field(default=None, repr=False)
    _orig_body: str | None = field(default=None, repr=False)
    flow_keys: tuple[str, ...] = ()

    @property
    def has_original_text(self) -> bool:
        """Read from a file (not made new): render() can give back its exact bytes."""
        return self._orig_text is not None


def parse(text: str, path: Path | str) -> Document:
    """Split and load; a YAML error names the file and the line, and so do
    conflict marks a sync left (formats.check_conflict_marks)."""
    check_conflict_marks(text, path)
    m = _OPEN.match(text)
    if not m:
        return Document({}, text, "", False, {}, text, text)
    close = _CLOSE.search(text, m.end())
    if not close:
        raise FormatError(path, "the frontmatter opened with '---' on line 1 is never closed",
                          1, "Add a line with just '---' after the frontmatter fields.")
    raw_meta = text[m.end():close.start()]
    body = text[close.end():]
    try:
        meta = _load(raw_meta) if raw_meta.strip() else {}
    except _yaml().YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None  # +1 fence, +1 one-based
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FormatError(path, f"the frontmatter is not valid YAML ({problem})", line,
                          "Fix the frontmatter between the '---' lines, e.g. 'name: Alice'.") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FormatError(path, "the frontmatter must be 'key: value' lines", 2)
    return Document(meta, body, raw_meta, True, _deep_copy(meta), text, body)


def dump_meta(meta: dict[str, Any], flow_keys: tuple[str, ...] = ()) -> str:
    """Block style, except keys in flow_keys, which stay on one line (for
    bookkeeping maps that would otherwise fill the top of a file)."""
    out = []
    for key, value in meta.items():
        if key in flow_keys and isinstance(value, dict):
            flow = _yaml().dump(value, Dumper=_dumper(), allow_unicode=True, default_flow_style=True, width=1_000_000)
            out.append(f"{key}: {flow.strip()}\n")
        else:
            out.append(_yaml().dump({key: value}, Dumper=_dumper(), sort_keys=False, allow_unicode=True,
                                 default_flow_style=False, width=10_000))
    return "".join(out)


def render(doc: Document) -> str:
    """Exact text for doc; unchanged parts keep their original bytes, and a
    changed frontmatter is patched key by key (comments and the layout of
    untouched keys survive)."""
    if doc._orig_text is not None and doc.meta == doc._orig_meta and doc.body == doc._orig_body:
        return doc._orig_text
    if not doc.meta and not doc.has_frontmatter:
        return doc.body
    if doc.has_frontmatter and doc.meta == doc._orig_meta:
        raw = doc.raw_meta
    else:
        raw = _patch_meta(doc) if doc.has_frontmatter and doc.raw_meta else dump_meta(doc.meta, doc.flow_keys)
    return f"---\n{raw}---\n{doc.body}"


def _key_spans(raw: str) -> dict[str, tuple[int, int]]:
    """Line ranges [start, end) of each top-level key in raw YAML."""
    lines = raw.splitlines(keepends=True)
    spans: dict[str, tuple[int, int]] = {}
    current, start = None, 0
    for i, line in enumerate(lines):
        m = re.match(r"^([^\s#:'\"-][^:]*?)\s*:(\s|$)", line)
        if m:
            if current is not None:
                spans[current] = (start, i)
            current, start = m.group(1), i
        elif current is not None and line.strip() and not line[:1].isspace() and not line.startswith("-"):
            spans[current] = (start, i)  # a top-level comment ends the key
            current = None
    if current is not None:
        end = len(lines)
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        spans[current] = (start, end)
    return spans


def _patch_meta(doc: Document) -> str:
    lines = doc.raw_meta.splitlines(keepends=True)  # each ends in a newline: parse cut raw_meta at a line start
    spans = _key_spans(doc.raw_meta)
    changed = [k for k in doc.meta if k not in doc._orig_meta or doc.meta[k] != doc._orig_meta[k]]
    removed = [k for k in doc._orig_meta if k not in doc.meta]
    if any(str(k) not in spans for k in [*removed, *(k for k in changed if k in doc._orig_meta)]):
        return dump_meta(doc.meta, doc.flow_keys)  # a layout we cannot patch safely
    edits = {str(k): dump_meta({k: doc.meta[k]}, doc.flow_keys) for k in changed if k in doc._orig_meta}
    edits.update({str(k): "" for k in removed})
    for key, (start, end) in sorted(((k, spans[k]) for k in edits), key=lambda kv: -kv[1][0]):
        lines[start:end] = [edits[key]]
    raw = "".join(lines) + "".join(dump_meta({k: doc.meta[k]}, doc.flow_keys) for k in changed if k not in doc._orig_meta)
    try:
        if _load(raw) == doc.meta:
            return raw
    except _yaml().YAMLError:
        pass
    return dump_meta(doc.meta, doc.flow_keys)


def new(meta: dict[str, Any], body: str) -> Document:
    # No raw text yet: the first render dumps the whole frontmatter.
    return Document(meta, body, "", True, {}, None, None)


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value


def line_of_key(raw_meta: str, key: str) -> int | None:
    """One-based file line of a top-level key, for error messages."""
    for i, line in enumerate(raw_meta.splitlines()):
        if re.match(rf"^{re.escape(key)}\s*:", line):
            return i + 2
    return None
