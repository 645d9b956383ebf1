"""Read a docstring into a tool description, parameter descriptions and a return description.

The style is detected by ``docstring-parser`` (Google, NumPy, reST/Sphinx or Epydoc). The tool
description is the summary and the body, without the ``Args``/``Parameters``, ``Returns``,
``Raises`` and ``Examples`` sections: those sections describe the Python interface, and the
agent receives the same facts in a structured form instead (parameter descriptions inside the
JSON Schema, the return description appended by the spec builder).
Docstring types (``unit (int): ...``) are kept as text, for parameters without annotation.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import docstring_parser
from docstring_parser import google

from .._core._limits import cache_short_keys
from ._signature import CallableTarget


@dataclass(frozen=True)
class DocInfo:
    """What a docstring says about a callable.

    Attributes:
        description: The summary and body, without the interface sections.
        params: Parameter name -> description.
        param_types: Parameter name -> type as written in the docstring.
        returns: The description of the return value, if any.
        returns_type: The return type as written in the docstring, if any.
    """

    description: str = ""
    params: Mapping[str, str] = field(default_factory=dict)
    param_types: Mapping[str, str] = field(default_factory=dict)
    returns: str | None = None
    returns_type: str | None = None


_EMPTY = DocInfo()

#: Prose sections the agent should read: kept in the description (``Title: text``). Google
#: knows none of them, so one written after ``Args:`` used to vanish inside that section.
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

_REST_MARK = re.compile(r"^\s*:(param|parameter|arg|type|returns?|rtype|raises?)\b", re.MULTILINE)
_EPYDOC_MARK = re.compile(r"^\s*@(param|type|returns?|rtype|raises?)\b", re.MULTILINE)
_NUMPY_UNDERLINE = re.compile(r"^\s*-{3,}\s*$", re.MULTILINE)


def _likely_style(text: str) -> docstring_parser.DocstringStyle:
    # docstring-parser's AUTO parses the text once per style and keeps the richest result;
    # the styles' markers tell them apart at a fraction of that cost. Text without markers
    # is prose or Google, which the Google parser reads.
    if _REST_MARK.search(text):
        return docstring_parser.DocstringStyle.REST
    if _EPYDOC_MARK.search(text):
        return docstring_parser.DocstringStyle.EPYDOC
    if _NUMPY_UNDERLINE.search(text):
        return docstring_parser.DocstringStyle.NUMPYDOC
    return docstring_parser.DocstringStyle.GOOGLE


_OPTIONAL_MARK = re.compile(r",\s*optional\s*$", re.IGNORECASE)


def _clean_type(text: str) -> str:
    # NumPy and Google parsers drop the ", optional" marker themselves; reST keeps it.
    return _OPTIONAL_MARK.sub("", text.strip())


def _clean_name(name: str) -> str:
    # NumPy and reST let writers document "*args" and "**kwargs" with their stars.
    return name.lstrip("*").strip()


@cache_short_keys(1024, max_chars=16 * 1024)
def parse_docstring(text: str | None) -> DocInfo:
    """Parse a docstring in any supported style (an empty :class:`DocInfo` for none).

    A docstring that the parser rejects becomes the description, whole.
    """
    if not text or not text.strip():
        return _EMPTY
    cleaned = inspect.cleandoc(text)
    style = _likely_style(cleaned)
    try:
        if style is docstring_parser.DocstringStyle.GOOGLE:
            parsed = _GOOGLE_PARSER.parse(cleaned)
        else:
            parsed = docstring_parser.parse(cleaned, style=style)
        if not parsed.meta and style is not docstring_parser.DocstringStyle.GOOGLE:
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
        name = _clean_name(param.arg_name)
        if param.description and param.description.strip():
            params[name] = param.description.strip()
        if param.type_name and _clean_type(param.type_name):
            param_types[name] = _clean_type(param.type_name)
    returns = parsed.returns
    return DocInfo(
        description=description,
        params=params,
        param_types=param_types,
        returns=(returns.description or "").strip() or None if returns else None,
        returns_type=(returns.type_name or "").strip() or None if returns else None,
    )


def merge_doc_info(primary: DocInfo, fallback: DocInfo) -> DocInfo:
    """Combine two docstrings, ``primary`` winning wherever both say something.

    A callable object has two: its ``__call__`` docstring and its class docstring.
    """
    return DocInfo(
        description=primary.description or fallback.description,
        params={**fallback.params, **primary.params},
        param_types={**fallback.param_types, **primary.param_types},
        returns=primary.returns or fallback.returns,
        returns_type=primary.returns_type or fallback.returns_type,
    )


def doc_info(target: CallableTarget) -> DocInfo:
    """Return what the docstrings of ``target`` say (class and ``__call__`` for objects)."""
    function_doc = parse_docstring(inspect.getdoc(target.function))
    owner = target.doc_owner
    if owner is None:
        return function_doc
    text = inspect.getdoc(owner) or ""
    if text.startswith(f"{owner.__name__}("):
        text = ""  # dataclasses write "Name(field: type, ...)" for an undocumented class
    owner_doc = parse_docstring(text)
    merged = merge_doc_info(function_doc, owner_doc)
    return replace(merged, description=function_doc.description or owner_doc.description)


#: ``name (type): description`` in a Returns section (Lagent's named and exploded returns).
_RETURN_ITEM = re.compile(r"^-?\s*([A-Za-z_]\w*)\s*(?:\(([^)]*)\))?\s*:\s*(.*?)\s*$")


def named_returns(doc: DocInfo, *, exploded: bool) -> list[tuple[str, str | None, str]]:
    """Read the named return values ``(name, type or None, description)`` of a Returns section.

    As Lagent's ``tool_api`` does: ``returns_named_value`` reads ``name (type): description``;
    ``explode_return`` (``exploded``) reads a first line describing the whole value, then one
    ``- name (type): description`` line per member.
    """
    lines = (doc.returns or "").splitlines()
    if exploded:
        lines = [line.strip() for line in lines[1:] if line.strip().startswith("-")]
    elif doc.returns_type is not None:
        return []  # "str: text" was read as a type and a description: no name was given
    items = []
    for line in lines if exploded else lines[:1]:
        match = _RETURN_ITEM.match(line.strip())
        if match:
            items.append((match[1], match[2].strip() if match[2] else None, match[3]))
    return items
