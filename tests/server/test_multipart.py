"""The multipart parser reads what the official clients upload; malformed bodies fail."""

from __future__ import annotations

import pytest

from appclient.server._http._multipart import (
    MultipartError,
    parse_form,
    parse_header_value,
    parse_multipart,
)

BOUNDARY = "4232a1697be07d2258705f829af12ca8"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"


def _body(*parts: tuple[str, bytes]) -> bytes:
    out = b""
    for disposition, data in parts:
        out += (
            f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
        )
    return out + f"--{BOUNDARY}--\r\n".encode()


def test_parses_fields_and_a_raw_utf8_file_name() -> None:
    """Text fields and a file whose name is raw UTF-8 (as requests sends it) are read."""
    body = _body(
        ('form-data; name="app_id"', b"app"),
        ('form-data; name="file"; filename="hello 测试.txt"', b"hello oracle\n"),
    )
    parts = parse_multipart(body, CONTENT_TYPE)
    assert [p.name for p in parts] == ["app_id", "file"]
    assert parts[0].text() == "app"
    assert parts[1].filename == "hello 测试.txt"
    assert parts[1].data == b"hello oracle\n"


def test_binary_data_with_crlf_is_kept_exactly() -> None:
    """File bytes containing CR/LF and dashes come back unchanged."""
    data = b"\r\n--not-the-boundary\r\n\x00\xff"
    parts = parse_multipart(_body(('form-data; name="file"; filename="b.bin"', data)), CONTENT_TYPE)
    assert parts[0].data == data


def test_rfc5987_file_name_wins() -> None:
    """A percent-encoded filename* parameter is decoded and preferred."""
    _, params = parse_header_value(
        'form-data; name="file"; filename="x.txt"; filename*=UTF-8\'\'%E6%B5%8B.txt'
    )
    assert params["filename"] == "测.txt"


def test_fully_percent_encoded_file_name_is_decoded() -> None:
    """A filename percent-encoded throughout (aiohttp, the official async client) is decoded."""
    _, params = parse_header_value(
        'form-data; name="file"; filename="%E6%8A%A5%E5%91%8A%20final%3Bx%22y.txt"'
    )
    assert params["filename"] == '报告 final;x"y.txt'


def test_html5_escaped_quote_and_line_breaks_in_a_file_name_are_decoded() -> None:
    """A raw filename with %22, %0D, %0A (urllib3, the Java client) gets them back."""
    _, params = parse_header_value('form-data; name="file"; filename="报告 x%22y%0Dz%0A.txt"')
    assert params["filename"] == '报告 x"y\rz\n.txt'


@pytest.mark.parametrize("name", ["100% 真.txt", "50%25 off.txt", "%FF%FE.txt", "plain.txt"])
def test_file_names_that_are_not_percent_encoded_stay_as_sent(name: str) -> None:
    """A raw name with a literal %, or escapes that are not UTF-8, is kept as sent."""
    _, params = parse_header_value(f'form-data; name="file"; filename="{name}"')
    assert params["filename"] == name


def test_rfc5987_file_name_is_not_decoded_twice() -> None:
    """A filename* value is percent-decoded once: its own %25 stays a literal %."""
    _, params = parse_header_value("form-data; name=\"file\"; filename*=UTF-8''100%2525.txt")
    assert params["filename"] == "100%25.txt"


def test_quoted_values_keep_semicolons_and_escapes() -> None:
    """Quoted parameter values may hold ';' and escaped quotes."""
    _, params = parse_header_value('form-data; name="a;b"; filename="say \\"hi\\".txt"')
    assert params == {"name": "a;b", "filename": 'say "hi".txt'}


def test_preamble_before_the_first_boundary_is_skipped() -> None:
    """Text before the first boundary is ignored."""
    body = b"preamble\r\n" + _body(('form-data; name="a"', b"1"))
    assert parse_multipart(body, CONTENT_TYPE)[0].data == b"1"


@pytest.mark.parametrize(
    ("body", "content_type", "problem"),
    [
        (b"", "application/json", "multipart/form-data"),
        (b"", "multipart/form-data", "boundary"),
        (b"no boundary here", CONTENT_TYPE, "does not contain"),
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nabc'.encode(),
            CONTENT_TYPE,
            "ends before",
        ),
        (
            f"--{BOUNDARY}\r\nX: y\r\n\r\nabc\r\n--{BOUNDARY}--".encode(),
            CONTENT_TYPE,
            "no form-data name",
        ),
        (
            f"--{BOUNDARY}\r\nbroken header\r\n\r\nabc\r\n--{BOUNDARY}--".encode(),
            CONTENT_TYPE,
            "malformed",
        ),
        (f"--{BOUNDARY}xx".encode(), CONTENT_TYPE, "malformed boundary"),
    ],
)
def test_malformed_bodies_raise(body: bytes, content_type: str, problem: str) -> None:
    """Each malformed body raises MultipartError saying what is wrong."""
    with pytest.raises(MultipartError, match=problem):
        parse_multipart(body, content_type)


def test_url_encoded_form_is_read_as_text_fields() -> None:
    """A urlencoded form (the async official client's file_url upload) gives text parts."""
    body = b"app_id=app&conversation_id=c%201&file_url=https%3A%2F%2Fx%2F%E6%B5%8B.pdf"
    parts = parse_form(body, "application/x-www-form-urlencoded")
    assert [(p.name, p.filename, p.text()) for p in parts] == [
        ("app_id", None, "app"),
        ("conversation_id", None, "c 1"),
        ("file_url", None, "https://x/测.pdf"),
    ]


def test_form_of_another_type_names_both_accepted_types() -> None:
    """parse_form refuses a JSON body, naming multipart and urlencoded forms."""
    with pytest.raises(MultipartError, match="x-www-form-urlencoded"):
        parse_form(b"{}", "application/json")


def test_url_encoded_form_with_too_many_fields_raises() -> None:
    """A urlencoded body with more fields than a multipart one may have is refused."""
    with pytest.raises(MultipartError, match="fields"):
        parse_form(b"&".join(b"a=1" for _ in range(200)), "application/x-www-form-urlencoded")


def test_form_delegates_multipart_bodies() -> None:
    """parse_form reads multipart bodies exactly as parse_multipart does."""
    body = _body(('form-data; name="app_id"', b"app"))
    assert parse_form(body, CONTENT_TYPE) == parse_multipart(body, CONTENT_TYPE)
