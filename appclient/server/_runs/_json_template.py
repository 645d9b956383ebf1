"""JSON text for a fixed shape with a few holes, with the constant parts encoded once (pure).

Every run answer has the same nested shape and differs in a handful of values: a
:class:`JsonTemplate` encodes the shape once and afterwards only the values are encoded
(:func:`json_text` for any value, :func:`string_text` for a string, several times cheaper).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
# JSONEncoder.encode builds its C encoder again on every call; for the small values filled
# into holes that setup is most of the cost, so it is built once (where CPython has one).
_C_ENCODER = (
    None
    if c_make_encoder is None
    else c_make_encoder(
        None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True
    )
)
_HOLE_NAME = re.compile(r"[a-z_]+")
# How a hole's marker string looks once encoded; \u0000 never occurs in an encoded shape
# otherwise, because shapes are written in this package and hold no control characters.
_MARKER = re.compile(r'"\\u0000hole:([a-z_]+)\\u0000"')


def _escape_separators(text: str) -> str:
    # Valid JSON, but a reader splitting lines on U+2028/U+2029 would see a broken line.
    if "\u2028" in text or "\u2029" in text:
        return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text


def json_text(value: Any) -> str:
    """Return ``value`` as compact one-line JSON, non-ASCII kept and U+2028/U+2029 escaped."""
    if _C_ENCODER is None or isinstance(value, str):
        return _escape_separators(_ENCODER.encode(value))
    return _escape_separators("".join(_C_ENCODER(value, 0)))


def string_text(value: str) -> str:
    """Return the JSON text of one string (the same as :func:`json_text`, faster)."""
    return _escape_separators(encode_basestring(value))


@dataclass(frozen=True)
class Hole:
    """Where a value goes in a template's shape; :meth:`JsonTemplate.fill` takes it by ``name``."""

    name: str

    def __post_init__(self) -> None:
        if not _HOLE_NAME.fullmatch(self.name):
            raise ValueError(f"hole name {self.name!r}: use lower-case letters and '_'")


def _marked(shape: Any) -> Any:
    if isinstance(shape, Hole):
        return f"\0hole:{shape.name}\0"
    if isinstance(shape, Mapping):
        return {key: _marked(value) for key, value in shape.items()}
    if isinstance(shape, (list, tuple)):
        return [_marked(item) for item in shape]
    return shape


class JsonTemplate:
    """A JSON shape encoded once; :meth:`fill` puts the values' JSON text into its holes.

    Args:
        shape: JSON-ready data with :class:`Hole` values where text is filled in later.
            A hole may appear more than once; every occurrence gets the same value.

    Example:
        >>> greeting = JsonTemplate({"to": Hole("name"), "text": "你好"})
        >>> greeting.fill(name=string_text("Ann"))
        '{"to":"Ann","text":"你好"}'
    """

    def __init__(self, shape: Any) -> None:
        pieces = _MARKER.split(json_text(_marked(shape)))
        # split() alternates constant text and hole names. They become one printf-style
        # pattern: "%" with a dict fills every hole in one C call, about three times as
        # fast as str.format_map.
        self._pattern = "".join(
            f"%({piece})s" if index % 2 else piece.replace("%", "%%")
            for index, piece in enumerate(pieces)
        )
        self.holes = frozenset(pieces[1::2])

    def fill(self, **texts: str) -> str:
        """Return the JSON text with every hole filled (``KeyError`` for a hole left out)."""
        return self._pattern % texts

    def __repr__(self) -> str:
        return f"JsonTemplate(holes={sorted(self.holes)})"
