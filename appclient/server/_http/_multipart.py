"""A small ``multipart/form-data`` parser for uploads (pure; the ``cgi`` module is gone).

It reads what the official clients send: text fields and a file part whose ``filename`` is
raw UTF-8, percent-encoded (RFC 5987 ``filename*``, or aiohttp's) or quoted; and the
urlencoded form of a ``file_url`` upload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote

_MAX_PARTS = 64
_MAX_HEADER_BYTES = 16 * 1024
_URL_ENCODED = "application/x-www-form-urlencoded"
# What a "percent-encode every byte but unreserved ones" writer (aiohttp) produces.
_FULLY_PERCENT_ENCODED = re.compile(r"(?:[A-Za-z0-9_.~-]|%[0-9A-Fa-f]{2})+")
# The only escapes an HTML5-style writer (urllib3, browsers, the Java client) makes.
_HTML5_ESCAPES = re.compile(r"%(?:22|0D|0A)", re.IGNORECASE)
_HTML5_UNESCAPED = {"%22": '"', "%0d": "\r", "%0a": "\n"}
# A header parameter: plain characters and quoted strings (backslash escapes inside), up to
# a ";" outside quotes; an unclosed quote runs to the end.
_PARAM = re.compile(r'(?:[^;"]|"(?:\\.|[^"\\])*(?:"|\\?\Z))+', re.DOTALL)
_ESCAPE = re.compile(r"\\(.?)", re.DOTALL)


class MultipartError(ValueError):
    """The body is not valid ``multipart/form-data``."""


@dataclass(frozen=True)
class Part:
    """One part of a form: its field name, file name (for files), type and raw bytes."""

    name: str
    filename: str | None
    content_type: str | None
    data: bytes

    def text(self) -> str:
        """The part's bytes as UTF-8 text (invalid bytes replaced)."""
        return self.data.decode("utf-8", "replace")


def _decoded_file_name(name: str) -> str:
    """Undo the percent-escapes clients put in a plain ``filename`` parameter.

    A name of only unreserved characters and ``%XX`` escapes decoding to UTF-8 was encoded
    throughout (aiohttp, under the official async client); any other can only carry HTML5's
    ``%22``/``%0D``/``%0A``. A raw name with a literal ``%`` elsewhere is kept as sent.
    """
    if "%" not in name:
        return name
    if _FULLY_PERCENT_ENCODED.fullmatch(name):
        try:
            return unquote(name, errors="strict")
        except UnicodeDecodeError:
            return name
    return _HTML5_ESCAPES.sub(lambda match: _HTML5_UNESCAPED[match.group().lower()], name)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return _ESCAPE.sub(r"\1", value[1:-1])
    return value


def parse_header_value(value: str) -> tuple[str, dict[str, str]]:
    """Split a header such as ``form-data; name="a"; filename*=UTF-8''%E6%B5%8B`` into parts.

    Returns the lower-cased main value and the parameters (names lower-cased); an RFC 5987
    ``name*`` is decoded and wins over ``name``.
    """
    items = [item.strip() for item in _PARAM.findall(value) if item.strip()]
    main = items[0].lower() if items else ""
    params: dict[str, str] = {}
    extended: dict[str, str] = {}
    for item in items[1:]:
        key, sep, raw = item.partition("=")
        if not sep:
            continue
        key = key.strip().lower()
        if key.endswith("*"):
            charset, _, rest = raw.strip().partition("'")
            _, _, encoded = rest.partition("'")
            encoding = charset or "utf-8"
            try:
                extended[key[:-1]] = unquote(_unquote(encoded), encoding=encoding)
            except LookupError:
                extended[key[:-1]] = unquote(_unquote(encoded))
        elif key == "filename":
            params[key] = _decoded_file_name(_unquote(raw))
        else:
            params[key] = _unquote(raw)
    params.update(extended)
    return main, params


def _parse_headers(block: bytes) -> dict[str, str]:
    headers: dict[str, str] = {}
    for line in block.decode("utf-8", "replace").split("\r\n"):
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise MultipartError(f"malformed part header line {line[:80]!r}")
        headers[name.strip().lower()] = value.strip()
    return headers


def parse_multipart(body: bytes, content_type: str) -> list[Part]:
    """Parse a ``multipart/form-data`` body into its parts, in order."""
    kind, params = parse_header_value(content_type)
    if kind != "multipart/form-data":
        raise MultipartError(f"expected multipart/form-data, got {kind or 'no content type'!r}")
    boundary = params.get("boundary", "")
    if not boundary or len(boundary) > 200:
        raise MultipartError("the multipart boundary is missing or too long")
    delimiter = b"--" + boundary.encode("latin-1", "replace")
    separator = b"\r\n" + delimiter
    # The first delimiter may open the body, without the line break before it.
    start = -2 if body.startswith(delimiter) else body.find(separator)
    if start == -1:
        raise MultipartError("the body does not contain the boundary")
    position = start + len(separator)
    parts: list[Part] = []
    while True:
        if body.startswith(b"--", position):
            return parts
        if not body.startswith(b"\r\n", position):
            raise MultipartError("malformed boundary line")
        position += 2
        header_end = body.find(b"\r\n\r\n", position, position + _MAX_HEADER_BYTES)
        if header_end < 0:
            raise MultipartError("a part's headers do not end")
        headers = _parse_headers(body[position:header_end])
        data_start = header_end + 4
        data_end = body.find(separator, data_start)
        if data_end < 0:
            raise MultipartError("the body ends before its closing boundary")
        disposition, disposition_params = parse_header_value(headers.get("content-disposition", ""))
        if disposition != "form-data" or "name" not in disposition_params:
            raise MultipartError("a part has no form-data name")
        parts.append(
            Part(
                name=disposition_params["name"],
                filename=disposition_params.get("filename"),
                content_type=headers.get("content-type"),
                data=body[data_start:data_end],
            )
        )
        if len(parts) > _MAX_PARTS:
            raise MultipartError(f"more than {_MAX_PARTS} parts")
        position = data_end + len(separator)


def parse_form(body: bytes, content_type: str) -> list[Part]:
    """Parse an upload form, multipart or urlencoded (its fields: parts without a file name)."""
    kind, _ = parse_header_value(content_type)
    if kind == "multipart/form-data":
        return parse_multipart(body, content_type)
    if kind != _URL_ENCODED:
        raise MultipartError(
            f"expected multipart/form-data or {_URL_ENCODED}, got {kind or 'no content type'!r}"
        )
    try:
        pairs = parse_qsl(
            body.decode("latin-1"),
            keep_blank_values=True,
            encoding="utf-8",
            errors="replace",
            max_num_fields=_MAX_PARTS,
        )
    except ValueError:
        raise MultipartError(f"more than {_MAX_PARTS} form fields") from None
    return [
        Part(name=name, filename=None, content_type=None, data=value.encode("utf-8"))
        for name, value in pairs
    ]
