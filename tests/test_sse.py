"""The SSE decoder: line endings, fields, limits, and independence from chunking."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appclient._core._sse import SSEDecoder, decode_sse
from appclient.errors import ResponseDecodeError
from tests.conftest import RESPONSE_FIXTURES

SSE_FIXTURES = sorted(RESPONSE_FIXTURES.glob("*.sse"))


def _feed_all(chunks: list[bytes], **options: int) -> list[str]:
    decoder = SSEDecoder(**options)
    out: list[str] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    return out + decoder.end()


def _with_line_endings(body: bytes, ending: bytes) -> bytes:
    return body.replace(b"\r\n", b"\n").replace(b"\n", ending)


def _chunked(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(body), *(cut % (len(body) + 1) for cut in cuts)})
    return [body[a:b] for a, b in pairwise(points)]


def test_there_are_sse_fixtures() -> None:
    """The recorded responses include event streams to decode."""
    assert len(SSE_FIXTURES) >= 4


@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: p.name)
def test_every_fixture_message_is_one_json_object(path: Path) -> None:
    """Each message of each fixture stream decodes to one JSON object."""
    messages = decode_sse(path.read_bytes())
    assert messages
    assert all(isinstance(json.loads(message), dict) for message in messages)


@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: p.name)
def test_fixture_decodes_identically_split_at_every_byte(path: Path) -> None:
    """Splitting a fixture stream into two chunks at any byte gives the same messages."""
    body = path.read_bytes()
    expected = decode_sse(body)
    for cut in range(len(body) + 1):
        assert _feed_all([body[:cut], body[cut:]]) == expected, cut


@pytest.mark.parametrize("ending", [b"\r\n", b"\r"], ids=["crlf", "cr"])
@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: p.name)
def test_fixture_decodes_identically_with_other_line_endings(path: Path, ending: bytes) -> None:
    """CRLF and lone-CR line endings give the same messages as LF, split at any byte."""
    expected = decode_sse(path.read_bytes())
    body = _with_line_endings(path.read_bytes(), ending)
    for cut in range(len(body) + 1):
        assert _feed_all([body[:cut], body[cut:]]) == expected, cut


@settings(max_examples=60, deadline=None)
@given(
    index=st.integers(min_value=0),
    ending=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    cuts=st.lists(st.integers(min_value=0), max_size=40),
)
def test_fixtures_decode_identically_under_any_chunking(
    index: int, ending: bytes, cuts: list[int]
) -> None:
    """Any chunking of any fixture stream, with any line ending, gives the same messages."""
    path = SSE_FIXTURES[index % len(SSE_FIXTURES)]
    expected = decode_sse(path.read_bytes())
    body = _with_line_endings(path.read_bytes(), ending)
    assert _feed_all(_chunked(body, cuts)) == expected


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1), min_size=1, max_size=5),
    ending=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    cuts=st.lists(st.integers(min_value=0), max_size=20),
)
def test_any_json_messages_survive_any_chunking(
    texts: list[str], ending: bytes, cuts: list[int]
) -> None:
    """JSON messages of arbitrary text (U+2028 included) round-trip through any chunking."""
    payloads = [json.dumps({"answer": text}, ensure_ascii=False) for text in texts]
    body = b"".join(b"data: " + p.encode() + ending + ending for p in payloads)
    assert _feed_all(_chunked(body, cuts)) == payloads


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    """A CR at the end of one chunk and LF at the start of the next end only one line."""
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"\r") == ["a"]
    assert decoder.feed(b"\ndata: b\n\n") == ["b"]


def test_unicode_line_separators_do_not_end_lines() -> None:
    """U+2028, U+2029 and U+0085 stay inside the data text."""
    text = "a\u2028b\u2029c\x85d\x0be\x0cf"
    assert decode_sse(f"data: {text}\n\n".encode()) == [text]


def test_multiple_data_lines_are_joined_with_newline() -> None:
    """Several data lines of one message are joined with LF."""
    assert decode_sse(b"data: one\ndata:two\ndata:  three\n\n") == ["one\ntwo\n three"]


def test_other_fields_and_comments_are_ignored() -> None:
    """event, id, retry, unknown fields and comments do not change the data."""
    body = b": hello\nevent: message\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n"
    assert decode_sse(body) == ["x"]


def test_lines_that_are_no_field_are_kept_as_unframed_text() -> None:
    """A bare JSON body (no data: framing), even without a final line end, is kept aside."""
    decoder = SSEDecoder()
    assert decoder.feed(b': note\nevent: x\n{"code": "Bad",\n "message": "m"}') == []
    assert decoder.end() == []
    assert decoder.unframed_text == '{"code": "Bad",\n "message": "m"}'


def test_message_without_data_is_dropped() -> None:
    """A blank line after only non-data fields dispatches nothing."""
    assert decode_sse(b"event: ping\n\n: keepalive\n\n") == []


def test_done_marker_is_dropped() -> None:
    """An OpenAI-style [DONE] message is not passed on."""
    assert decode_sse(b"data: {}\n\ndata: [DONE]\n\n") == ["{}"]


def test_field_without_colon_and_data_without_space() -> None:
    """'data' alone is an empty data line; 'data:x' keeps x."""
    assert decode_sse(b"data\ndata:x\n\n") == ["\nx"]


def test_leading_byte_order_mark_is_skipped() -> None:
    """A UTF-8 BOM at the very start of the stream is not part of the first field."""
    assert decode_sse(b"\xef\xbb\xbfdata: x\n\n") == ["x"]


def test_complete_last_message_without_blank_line_is_delivered_at_end() -> None:
    """A finished data line followed by end of stream still gives its message."""
    decoder = SSEDecoder()
    assert decoder.feed(b"data: last\n") == []
    assert decoder.end() == ["last"]


def test_unterminated_last_line_is_dropped_at_end() -> None:
    """Bytes of a line cut off by the end of the stream are not delivered."""
    decoder = SSEDecoder()
    assert decoder.feed(b'data: {"answer": "trunc') == []
    assert decoder.end() == []
    held = SSEDecoder()  # the same bytes are held, not lost, until their line ends
    assert held.feed(b'data: {"answer": "trunc') == []
    assert held.feed(b"\n") == []
    assert held.end() == ['{"answer": "trunc']


def test_line_longer_than_the_cap_raises() -> None:
    """A line over max_line_bytes is a decode error, whole or in pieces."""
    with pytest.raises(ResponseDecodeError, match="longer than 16 bytes"):
        decode_sse(b"data: " + b"x" * 20 + b"\n\n", max_line_bytes=16)
    decoder = SSEDecoder(max_line_bytes=16)
    decoder.feed(b"data: xxxxxxxx")
    with pytest.raises(ResponseDecodeError):
        decoder.feed(b"xxxxxxxx")


def test_message_longer_than_the_cap_raises() -> None:
    """Many short data lines cannot grow one message past the cap."""
    with pytest.raises(ResponseDecodeError, match="message longer"):
        decode_sse(b"data: 123456\n" * 5, max_line_bytes=16)


def test_invalid_utf8_raises_decode_error() -> None:
    """Bytes that are not UTF-8 raise ResponseDecodeError."""
    with pytest.raises(ResponseDecodeError, match="not UTF-8"):
        decode_sse(b"data: \xff\xfe\n\n")


def test_feed_after_end_is_an_error() -> None:
    """The decoder refuses bytes once the stream has ended."""
    decoder = SSEDecoder()
    decoder.end()
    with pytest.raises(RuntimeError):
        decoder.feed(b"data: x\n\n")


def test_zero_line_cap_is_rejected() -> None:
    """A line cap below one byte is a programming error."""
    with pytest.raises(ValueError, match="max_line_bytes"):
        SSEDecoder(max_line_bytes=0)
