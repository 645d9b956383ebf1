"""Raw tool-call arguments to a dict: the decoding step before validation.

Arguments come as a JSON object, as its text (OpenAI style), fenced or in prose (text
models), or as ``key="value", key2=3`` lists (ms-swift's ReAct example);
:func:`decode_arguments` reads them all, or says why it cannot. Linear in the text's length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

#: How much of an undecodable text an error message quotes.
_QUOTE_LIMIT = 120
_FENCE = "```"
# The blanks and language tag after an opening fence, matched on their own: one pattern with
# blanks on either side of the content backtracked for hours on a fence and many spaces.
_FENCE_TAG = re.compile(r"[ \t]*[A-Za-z0-9_+-]*")
#: A fenced block anywhere in a text (its content is group 1); lazy and fence-bounded.
_FENCED_BLOCK = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n(.*?)```", re.DOTALL)
#: Opening braces tried when looking for a JSON object in prose.
_MAX_OBJECT_STARTS = 64
_KEY_VALUE = re.compile(
    r"""(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?P<value>"[^"]*"|'[^']*'|[^,;\n]+)\s*[,;]?"""
)
_KINDS = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}


class ArgumentsDecodeError(ValueError):
    """The raw arguments are not a JSON object; the message says what they were instead."""


def _quote(text: str) -> str:
    if len(text) <= _QUOTE_LIMIT:
        return repr(text)
    return repr(text[:_QUOTE_LIMIT]) + f" (+{len(text) - _QUOTE_LIMIT} more characters)"


def _json_type(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def unwrap_fence(text: str) -> str:
    """The inside of ``text`` when it is one fenced code block, else ``text`` unchanged."""
    stripped = text.strip()
    if len(stripped) < 2 * len(_FENCE) or not (
        stripped.startswith(_FENCE) and stripped.endswith(_FENCE)
    ):
        return text
    inner = stripped[len(_FENCE) : -len(_FENCE)]
    tag = _FENCE_TAG.match(inner)
    return inner[tag.end() if tag else 0 :].strip()


def _from_mapping(raw: Mapping[Any, Any]) -> dict[str, Any]:
    bad = [key for key in raw if not isinstance(key, str)]
    if bad:
        raise ArgumentsDecodeError(
            f"argument names must be strings, got {', '.join(repr(k) for k in bad[:5])}"
        )
    return dict(raw)


def find_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (a fenced one first), trying few opening braces."""
    fenced = _FENCED_BLOCK.search(text)
    if fenced is not None:
        found = find_json_object(fenced.group(1))
        if found is not None:
            return found
    decoder, start = json.JSONDecoder(), text.find("{")
    for _ in range(_MAX_OBJECT_STARTS):
        if start == -1:
            break
        try:
            value, _end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def _key_values(text: str) -> dict[str, Any] | None:
    """Read ``key="value", key2=3`` (ms-swift's ReAct example) as arguments, or ``None``."""
    pairs = list(_KEY_VALUE.finditer(text))
    if not pairs or _KEY_VALUE.sub("", text).strip(" ,;\n\t"):
        return None  # something that is not a key=value pair is left over
    return {pair.group("key"): _scalar(pair.group("value").strip()) for pair in pairs}


def _scalar(raw: str) -> Any:
    if len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0]:
        return raw[1:-1]
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _from_text(raw: str) -> dict[str, Any]:
    text = unwrap_fence(raw.strip())
    if not text:
        return {}
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        # Models write arguments in prose, or as key=value lists: read those before failing.
        found = find_json_object(text) if "{" in text else None
        if found is None:
            found = _key_values(text)
        if found is not None:
            return _from_mapping(found)
        raise ArgumentsDecodeError(f"not valid JSON ({exc}): {_quote(raw)}") from None
    except RecursionError:  # the parser gives up on deep nesting: bad input, not a crash
        raise ArgumentsDecodeError(f"the JSON is nested too deeply: {_quote(raw)}") from None
    # Some models encode the object twice ("{\"city\": ...}" inside a string): undo one level.
    if isinstance(parsed, str) and parsed.strip()[:1] in ("{", "`"):
        return _from_text(parsed)
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise ArgumentsDecodeError(
            f"expected a JSON object of named arguments, got {_json_type(parsed)}: {_quote(raw)}"
        )
    return parsed


def decode_arguments(raw: Any) -> dict[str, Any]:
    """A new dict of named arguments, or an ArgumentsDecodeError naming what was found.

    ``None``, ``""`` and ``"null"`` mean none.
    """
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return _from_mapping(raw)
    if isinstance(raw, (bytes, bytearray)):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise ArgumentsDecodeError("arguments are bytes that are not UTF-8 text") from None
    if isinstance(raw, str):
        return _from_text(raw)
    raise ArgumentsDecodeError(
        f"expected a JSON object or its text, got {_json_type(raw)}: {_quote(repr(raw))}"
    )
