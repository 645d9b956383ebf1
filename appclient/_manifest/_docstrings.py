"""Read a docstring into a tool description, parameter descriptions and a return description.

Any style docstring-parser reads (Google, NumPy, reST, Epydoc). The description is the summary
and body without the Args/Returns/Raises/Examples sections, whose facts reach the agent in
structured form instead; docstring types are kept as text, for parameters without annotation.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import docstring_parser
from docstring_parser import DocstringStyle, google

from .._core._limits import cache_short_keys
from ._signature import CallableTarget


@dataclass(frozen=True)
class DocInfo:
    """What a docstring says about a callable (types as written, by parameter name)."""

    description: str = ""
    params: Mapping[str, str] = field(default_factory=dict)
    param_types: Mapping[str, str] = field(default_factory=dict)
    returns: str | None = None
    returns_type: str | None = None


_EMPTY = DocInfo()

#: Prose sections the agent should read, kept in the description (``Title: text``); the Google
#: parser must know them, or one written after ``Args:`` is read as part of that section.
_PROSE_TITLES = ("Note", "Notes", "Warning", "Warnings", "See Also", "References")
_PROSE_KEYS = {title.lower().replace(" ", "_"): title for title in _PROSE_TITLES}
_GOOGLE_PARSER = google.GoogleParser(
    sections=[
        *google.DEFAULT_SECTIONS,
        *(
            google.Section(title, key, google.SectionType.SINGULAR)
            for key, title in _PROSE_KEYS.items()
        ),
    ]
)

# docstring-parser's AUTO parses the text once per style and keeps the richest result; the
# styles' markers tell them apart at a fraction of that cost (no marker: prose or Google).
_STYLE_MARKS = (
    (r"^\s*:(param|parameter|arg|type|returns?|rtype|raises?)\b", DocstringStyle.REST),
    (r"^\s*@(param|type|returns?|rtype|raises?)\b", DocstringStyle.EPYDOC),
    (r"^\s*-{3,}\s*$", DocstringStyle.NUMPYDOC),
)
#: reST keeps the ", optional" marker in a type (the NumPy and Google parsers drop it).
_OPTIONAL_MARK = re.compile(r",\s*optional\s*$", re.IGNORECASE)


@cache_short_keys(1024, max_chars=16 * 1024)
def parse_docstring(text: str | None) -> DocInfo:
    """Parse a docstring in any style (one the parser rejects is a description, whole)."""
    if not text or not text.strip():
        return _EMPTY
    cleaned = inspect.cleandoc(text)
    marked = (kind for mark, kind in _STYLE_MARKS if re.search(mark, cleaned, re.MULTILINE))
    style = next(marked, DocstringStyle.GOOGLE)
    try:
        if style is DocstringStyle.GOOGLE:
            parsed = _GOOGLE_PARSER.parse(cleaned)
        else:
            parsed = docstring_parser.parse(cleaned, style=style)
        if not parsed.meta and style is not DocstringStyle.GOOGLE:
            # A marker misled the guess (a Google docstring with a dashed underline or a
            # line starting ":param"): let docstring-parser try every style.
            parsed = docstring_parser.parse(cleaned)
    except docstring_parser.ParseError:
        try:
            parsed = docstring_parser.parse(cleaned)
        except docstring_parser.ParseError:
            return DocInfo(description=cleaned)
    parts = [p.strip() for p in (parsed.short_description, parsed.long_description) if p]
    joiner = "\n\n" if parsed.blank_after_short_description else "\n"
    prose = [
        f"{_PROSE_KEYS[meta.args[0]]}: {(meta.description or '').strip()}"
        for meta in parsed.meta
        if meta.args and meta.args[0] in _PROSE_KEYS and (meta.description or "").strip()
    ]
    description = "\n\n".join([joiner.join(p for p in parts if p), *prose]).strip()
    params: dict[str, str] = {}
    param_types: dict[str, str] = {}
    for param in parsed.params:
        name = param.arg_name.lstrip("*").strip()  # NumPy and reST may write "**kwargs"
        if param.description and param.description.strip():
            params[name] = param.description.strip()
        if type_name := _OPTIONAL_MARK.sub("", (param.type_name or "").strip()):
            param_types[name] = type_name
    returns = parsed.returns
    return DocInfo(
        description=description,
        params=params,
        param_types=param_types,
        returns=(returns.description or "").strip() or None if returns else None,
        returns_type=(returns.type_name or "").strip() or None if returns else None,
    )


def doc_info(target: CallableTarget) -> DocInfo:
    """What the docstrings of ``target`` say; an object's ``__call__`` wins over its class."""
    own = parse_docstring(inspect.getdoc(target.function))
    owner = target.doc_owner
    if owner is None:
        return own
    text = inspect.getdoc(owner) or ""
    # A dataclass without a docstring gets "Name(field: type, ...)": that says nothing.
    other = parse_docstring("" if text.startswith(f"{owner.__name__}(") else text)
    return DocInfo(
        description=own.description or other.description,
        params={**other.params, **own.params},
        param_types={**other.param_types, **own.param_types},
        returns=own.returns or other.returns,
        returns_type=own.returns_type or other.returns_type,
    )


#: ``name (type): description`` in a Returns section (Lagent's named and exploded returns).
_RETURN_ITEM = re.compile(r"^-?\s*([A-Za-z_]\w*)\s*(?:\(([^)]*)\))?\s*:\s*(.*?)\s*$")


def named_returns(doc: DocInfo, *, exploded: bool) -> list[tuple[str, str | None, str]]:
    """The named return values ``(name, type or None, description)``, read as Lagent does.

    ``exploded`` skips the Returns section's first line and reads one ``- name (type): text``
    line per member; otherwise its first line is ``name (type): text``.
    """
    lines = (doc.returns or "").splitlines()
    if exploded:
        lines = [line.strip() for line in lines[1:] if line.strip().startswith("-")]
    elif doc.returns_type is not None:
        return []  # "str: text" was read as a type and a description: no name was given
    matches = (_RETURN_ITEM.match(line.strip()) for line in (lines if exploded else lines[:1]))
    return [(m[1], m[2].strip() if m[2] else None, m[3]) for m in matches if m]
