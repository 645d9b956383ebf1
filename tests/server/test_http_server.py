"""The embedded HTTP/1.1 server: keep-alive, no Nagle, one send per response, exact SSE."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from appclient.server._http._http_server import WSGIHTTPServer, _Handler
from appclient.server._http._request_reading import HeadReader
from tests.server.helpers import APP_ID, TOKEN, make_app, run_body

AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


@contextmanager
def _serving(app: Any, *, host: str = "127.0.0.1", **options: Any) -> Iterator[WSGIHTTPServer]:
    """Serve ``app`` on a free port in a thread; stop and close everything afterwards."""
    httpd = WSGIHTTPServer((host, 0), app, **options)
    httpd.start()
    try:
        yield httpd
    finally:
        httpd.stop()
        close = getattr(app, "close", None)
        if close is not None:
            close()


@pytest.fixture
def server() -> Iterator[WSGIHTTPServer]:
    with _serving(make_app()) as httpd:
        yield httpd


def _connect(server: WSGIHTTPServer) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)


def _post(conn: http.client.HTTPConnection, path: str, body: dict) -> http.client.HTTPResponse:
    conn.request("POST", path, body=json.dumps(body), headers=AUTH)
    return conn.getresponse()


def _conversation(conn: http.client.HTTPConnection) -> str:
    response = _post(conn, "/v2/app/conversation", {"app_id": APP_ID})
    conversation_id: str = json.loads(response.read())["conversation_id"]
    return conversation_id


def _raw_response(server: WSGIHTTPServer, request: bytes) -> tuple[bytes, bytes]:
    """Send raw bytes; return the head and body of one response (the connection may stay)."""
    with socket.create_connection(("127.0.0.1", server.server_port), timeout=10) as sock:
        sock.sendall(request)
        reader = sock.makefile("rb")
        head = b"".join(iter(lambda: reader.readline(), b"\r\n"))
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        return head, reader.read(length)


def _raw_exchange(server: WSGIHTTPServer, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", server.server_port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


def test_keep_alive_serves_many_requests_on_one_connection(server: WSGIHTTPServer) -> None:
    """Several requests reuse one TCP connection (HTTP/1.1 keep-alive)."""
    conn = _connect(server)
    cid = _conversation(conn)
    first_socket = conn.sock
    for _ in range(3):
        response = _post(conn, "/v2/app/conversation/runs", run_body(cid, query="你好"))
        assert response.status == 200
        assert response.getheader("Content-Length") == str(len(response.read()))
    assert conn.sock is first_socket
    conn.close()


def test_nagle_is_disabled_on_connections(server: WSGIHTTPServer) -> None:
    """Accepted connections have TCP_NODELAY set."""
    conn = _connect(server)
    _conversation(conn)
    (accepted,) = list(server._connections)
    assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    conn.close()


def test_non_stream_response_is_one_send(
    server: WSGIHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Status line, headers and body of a JSON response go out in a single write."""
    sends: list[bytes] = []
    original = _Handler._send

    def counting(self: _Handler, data: bytes) -> None:
        sends.append(data)
        original(self, data)

    monkeypatch.setattr(_Handler, "_send", counting)
    conn = _connect(server)
    _conversation(conn)
    assert len(sends) == 1
    assert sends[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert sends[0].endswith(b"}")
    conn.close()


def test_sse_is_exact_one_send_per_message_then_close(
    server: WSGIHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream is only 'data: <json>' frames, one write each, and the connection closes."""
    conn = _connect(server)
    cid = _conversation(conn)
    conn.close()
    sends: list[bytes] = []
    original = _Handler._send

    def counting(self: _Handler, data: bytes) -> None:
        sends.append(data)
        original(self, data)

    monkeypatch.setattr(_Handler, "_send", counting)
    body = json.dumps(run_body(cid, query="你好你好你好你好你好", stream=True)).encode()
    request = (
        f"POST /v2/app/conversation/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    raw = _raw_exchange(server, request)
    head, _, payload = raw.partition(b"\r\n\r\n")
    assert b"Content-Type: text/event-stream; charset=utf-8" in head
    assert b"Connection: close" in head
    assert b"Content-Length" not in head
    frames = payload.split(b"\n\n")
    assert frames[-1] == b""
    for frame in frames[:-1]:
        assert frame.startswith(b"data: {")
        assert b"\n" not in frame
        json.loads(frame[len(b"data: ") :])
    assert len(sends) == len(frames) - 1
    assert json.loads(frames[-2][6:])["content"][-1]["event_status"] == "success"


#: The official Go SDK's CreateConversation, as Go's net/http sends it: its body is an
#: io.Reader of unknown length, so the body goes in chunks, with no Content-Length.
GO_SDK_CREATE_CONVERSATION = (
    "POST /v2/app/conversation HTTP/1.1\r\n"
    "Host: 127.0.0.1\r\n"
    "User-Agent: Go-http-client/1.1\r\n"
    "Transfer-Encoding: chunked\r\n"
    f"Authorization: Bearer {TOKEN}\r\n"
    "Content-Type: application/json\r\n"
    "X-Appbuilder-Origin: appbuilder_sdk\r\n"
    "X-Appbuilder-Request-Id: 5a4f1c0e-6d0b-4a57-9d0c-0c1b2f3e4d5a\r\n"
    'X-Appbuilder-Sdk-Config: {"appbuilder_sdk_version":"0.9.4","appbuilder_sdk_language":"go",'
    '"appbuilder_sdk_platform":"unknown"}\r\n'
    "Accept-Encoding: gzip\r\n"
    "\r\n"
)


def _chunked(body: bytes, *, size: int = 7) -> bytes:
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


def test_the_go_sdk_create_conversation_gets_a_conversation(server: WSGIHTTPServer) -> None:
    """The Go SDK's chunked CreateConversation request is answered with a conversation id."""
    body = json.dumps({"app_id": APP_ID}).encode()
    head, answer = _raw_response(server, GO_SDK_CREATE_CONVERSATION.encode() + _chunked(body))
    assert head.startswith(b"HTTP/1.1 200"), head
    assert json.loads(answer)["conversation_id"]


def test_a_chunked_run_with_extensions_and_trailers_is_read(server: WSGIHTTPServer) -> None:
    """Chunks of any size, chunk extensions and trailer fields frame a body like any other."""
    conversation_id = _conversation(_connect(server))
    body = json.dumps(run_body(conversation_id, query="你好")).encode()
    framed = _chunked(body).replace(b"\r\n", b";note=1\r\n", 1)[:-2] + b"X-Trailer: 1\r\n\r\n"
    head, answer = _raw_response(
        server,
        b"POST /v2/app/conversation/runs HTTP/1.1\r\nHost: x\r\n"
        + f"Authorization: Bearer {TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        + framed,
    )
    assert head.startswith(b"HTTP/1.1 200"), head
    assert json.loads(answer)["conversation_id"] == conversation_id


@pytest.mark.parametrize(
    ("framing", "status"),
    [
        (b"zz\r\n{}\r\n0\r\n\r\n", b"400"),
        (b"5\r\n{}\r\n0\r\n\r\n", b"400"),
        (b"2\r\n{}XX0\r\n\r\n", b"400"),
    ],
    ids=["size-not-hex", "chunk-cut-short", "chunk-without-crlf"],
)
def test_bad_chunked_framing_is_a_json_400(
    server: WSGIHTTPServer, framing: bytes, status: bytes
) -> None:
    """A chunked body that does not follow the framing rules is refused, not guessed at."""
    raw = _raw_exchange(
        server,
        b"POST /v2/app/conversation HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + framing,
    )
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 " + status)
    assert "chunked body" in json.loads(body)["message"]


def test_another_transfer_coding_is_501(server: WSGIHTTPServer) -> None:
    """A coding other than chunked (gzip) is answered 501 Not Implemented."""
    raw = _raw_exchange(
        server,
        b"POST /v2/app/conversation HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        b"0\r\n\r\n",
    )
    assert raw.startswith(b"HTTP/1.1 501")


@pytest.mark.parametrize("length", [b"+2", b"2_0", b" 0x2", b"\xd9\xa3"])
def test_a_content_length_that_is_not_digits_is_a_400(
    server: WSGIHTTPServer, length: bytes
) -> None:
    """Content-Length is digits only: '+2' or '2_0', which int() would take, are refused."""
    raw = _raw_exchange(
        server,
        b"POST /v2/app/conversation HTTP/1.1\r\nHost: x\r\nContent-Length: "
        + length
        + b"\r\n\r\n{}",
    )
    assert raw.startswith(b"HTTP/1.1 400")


def test_chunked_body_with_a_content_length_is_refused_too(server: WSGIHTTPServer) -> None:
    """Transfer-Encoding with Content-Length is 411 and closes (no smuggled second request)."""
    smuggled = b"POST /v2/app/conversation HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
    chunked_body = b"0\r\n\r\n" + smuggled
    raw = _raw_exchange(
        server,
        b"POST /v2/app/conversation HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        + f"Content-Length: {len(chunked_body)}\r\n\r\n".encode()
        + chunked_body,
    )
    assert raw.startswith(b"HTTP/1.1 411")
    assert raw.count(b"HTTP/1.1 ") == 1


def test_garbage_request_line_is_a_json_400(server: WSGIHTTPServer) -> None:
    """A broken request line gets the JSON error shape with a request id header."""
    raw = _raw_exchange(server, b"NONSENSE\r\n\r\n")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    error = json.loads(body)
    assert f"X-Appbuilder-Request-Id: {error['request_id']}".encode() in head


def test_oversize_body_gets_413_and_the_connection_stays_usable(server: WSGIHTTPServer) -> None:
    """An over-limit body is answered 413 (the client is not reset) and keep-alive goes on."""
    conn = _connect(server)
    conn.request("POST", "/v2/app/conversation/runs", body=b"x" * (11 * 1024 * 1024), headers=AUTH)
    response = conn.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["code"] == "PayloadTooLarge"
    assert _post(conn, "/v2/app/conversation", {"app_id": APP_ID}).status == 200
    conn.close()


def test_head_request_has_no_body(server: WSGIHTTPServer) -> None:
    """HEAD is answered (405) without a body."""
    conn = _connect(server)
    conn.request("HEAD", "/v2/app/conversation", headers=AUTH)
    response = conn.getresponse()
    assert response.status == 405
    assert response.read() == b""
    conn.close()


def test_close_connections_ends_idle_keep_alive(server: WSGIHTTPServer) -> None:
    """close_connections() ends connections that sit idle between requests."""
    conn = _connect(server)
    _conversation(conn)
    server.close_connections()
    assert conn.sock is not None
    assert conn.sock.recv(1) == b""
    conn.close()


def _status_line(raw: bytes) -> bytes:
    return raw.split(b"\r\n", 1)[0]


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"POST /v2/app/conversation HTTP/2.0\r\n\r\n", b"505"),
        (b"POST /v2/app/conversation HTTP/1.1\r\nBad Header\r\n\r\n", b"400"),
        (b"POST /v2/app/conversation HTTP/1.1\r\nName : value\r\n\r\n", b"400"),
        (b"POST /v2/app/conversation HTTP/1.1\r\n folded: line\r\n\r\n", b"400"),
        (
            b"POST /v2/app/conversation HTTP/1.1\r\n"
            + b"".join(b"X-%d: y\r\n" % i for i in range(101))
            + b"\r\n",
            b"431",
        ),
        (b"POST /v2/app/conversation HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n", b"431"),
    ],
    ids=["version", "no-colon", "space-before-colon", "folded", "too-many", "too-long"],
)
def test_malformed_requests_get_json_errors(
    server: WSGIHTTPServer, request_bytes: bytes, status: bytes
) -> None:
    """Requests the parser refuses get the JSON error shape and the connection closes."""
    raw = _raw_exchange(server, request_bytes)
    assert status in _status_line(raw)
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"Connection: close" in head
    assert json.loads(body)["request_id"]


def test_repeated_headers_are_joined(server: WSGIHTTPServer) -> None:
    """Two Authorization lines are joined, so neither token alone gets through."""
    body = json.dumps({"app_id": APP_ID}).encode()
    raw = _raw_exchange(
        server,
        b"POST /v2/app/conversation HTTP/1.1\r\nConnection: close\r\n"
        + f"Authorization: Bearer {TOKEN}\r\nAuthorization: Bearer x\r\n".encode()
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body,
    )
    assert b" 401 " in _status_line(raw)


def test_http_1_0_closes_unless_keep_alive(server: WSGIHTTPServer) -> None:
    """An HTTP/1.0 request without keep-alive gets an answer and a closed connection."""
    body = json.dumps({"app_id": APP_ID}).encode()
    raw = _raw_exchange(
        server,
        f"POST /v2/app/conversation HTTP/1.0\r\nAuthorization: Bearer {TOKEN}\r\n".encode()
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body,
    )
    assert b" 200 " in _status_line(raw)
    assert b"Connection: close" in raw


def test_expect_100_continue_is_honoured(server: WSGIHTTPServer) -> None:
    """A client that waits for 100 Continue gets it before sending the body."""
    body = json.dumps({"app_id": APP_ID}).encode()
    with socket.create_connection(("127.0.0.1", server.server_port), timeout=10) as sock:
        head = (
            f"POST /v2/app/conversation HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Expect: 100-continue\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        sock.sendall(head.encode())
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert b" 200 " in _status_line(data)


def test_environ_follows_cgi_naming() -> None:
    """Headers become HTTP_* keys; Content-Type and Content-Length have no prefix."""
    seen: dict = {}

    def app(environ: dict, start_response) -> list[bytes]:
        seen.update(environ)
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    with _serving(app) as httpd:
        conn = http.client.HTTPConnection("127.0.0.1", httpd.server_port, timeout=10)
        headers = {"Content-Type": "application/json", "X-Trace-Id": "t1", "Idempotency-Key": "k"}
        conn.request("POST", "/v2/app/conversation?x=1", body=b"{}", headers=headers)
        assert conn.getresponse().status == 200
        conn.close()
    assert (seen["CONTENT_TYPE"], seen["CONTENT_LENGTH"]) == ("application/json", "2")
    assert (seen["HTTP_X_TRACE_ID"], seen["HTTP_IDEMPOTENCY_KEY"]) == ("t1", "k")
    assert "HTTP_CONTENT_TYPE" not in seen
    assert "HTTP_CONTENT_LENGTH" not in seen
    assert (seen["PATH_INFO"], seen["QUERY_STRING"]) == ("/v2/app/conversation", "x=1")


def _ipv6_loopback_works() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback_works(), reason="no IPv6 loopback on this machine")
def test_ipv6_host_binds_and_serves() -> None:
    """An IPv6 address such as ::1 binds an IPv6 socket and serves requests."""
    with _serving(make_app(), host="::1") as httpd:
        conn = http.client.HTTPConnection("::1", httpd.server_port, timeout=10)
        response = _post(conn, "/v2/app/conversation", {"app_id": APP_ID})
        assert response.status == 200
        conn.close()


def test_client_that_stops_sending_its_body_gets_408_and_no_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A body cut short by a silent client: 408 after the idle timeout, connection closed."""
    with _serving(make_app(), keepalive_timeout=0.1) as httpd:
        raw = _raw_exchange(
            httpd,
            f"POST /v2/app/conversation HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\n"
            "Content-Length: 100\r\n\r\n{".encode(),
        )
    assert raw.startswith(b"HTTP/1.1 408")
    assert b"Connection: close" in raw
    assert "Traceback" not in capsys.readouterr().err


def test_connections_past_the_limit_get_503_when_all_are_busy() -> None:
    """With max_connections serving requests, one more connection is refused with 503."""
    app = make_app()
    with _serving(app, max_connections=2) as httpd:
        app.faults.hang_next(2)
        held = [socket.create_connection(("127.0.0.1", httpd.server_port)) for _ in range(2)]
        for sock in held:  # two requests the app holds: both connections are busy
            sock.sendall(b"POST /v2/app/conversation HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")
        assert app.faults.wait_injected(2, timeout=10)
        raw = _raw_exchange(httpd, b"POST /v2/app/conversation HTTP/1.1\r\n\r\n")
        app.faults.release()
        for sock in held:
            sock.close()
    assert raw.startswith(b"HTTP/1.1 503")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"Retry-After: 1" in head
    assert b"Connection: close" in head
    assert json.loads(body)["code"] == "ServiceUnavailable"


def test_at_the_limit_an_idle_connection_makes_room_for_a_new_client() -> None:
    """Connections only waiting (idle keep-alive, or dripping) give way to a new client."""
    with _serving(make_app(), max_connections=2) as httpd:
        held = [_connect(httpd) for _ in range(2)]
        for conn in held:
            assert _conversation(conn)  # now idle, waiting for their next request
        assert _conversation(_connect(httpd))
        assert httpd.slow_clients_dropped >= 1
        for conn in held:
            conn.close()


def test_a_client_that_drips_its_request_is_dropped_at_the_read_timeout() -> None:
    """A request line and headers sent too slowly end with the connection closed."""
    with _serving(make_app(), request_read_timeout=0.2) as httpd:
        with socket.create_connection(("127.0.0.1", httpd.server_port), timeout=10) as sock:
            sock.sendall(b"POST /v2/app/conver")  # and nothing more: a slowloris client
            assert sock.recv(1024) == b""  # closed by the server, without an answer
        assert httpd.slow_clients_dropped == 1
        assert _conversation(_connect(httpd))  # real clients are served on


def test_a_client_that_drips_its_body_is_dropped_too() -> None:
    """Headers in time but a body that never completes: dropped at the read timeout."""
    with _serving(make_app(), request_read_timeout=0.2) as httpd:
        with socket.create_connection(("127.0.0.1", httpd.server_port), timeout=10) as sock:
            # Authorized, so the app reads the body (a 401 would answer before reading it).
            head = f"POST /v2/app/conversation HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\n"
            sock.sendall(head.encode() + b"Content-Length: 100\r\n\r\n{")
            answer = b"".join(iter(lambda: sock.recv(4096), b""))  # until the server closes
            assert not answer or answer.startswith((b"HTTP/1.1 408", b"HTTP/1.1 400"))
        assert httpd.slow_clients_dropped == 1


class _Dripping:
    """A connection whose every recv returns one more byte of ``data``."""

    def __init__(self, data: bytes) -> None:
        self._bytes = iter(data)

    def recv(self, size: int) -> bytes:
        return bytes([next(self._bytes)])


@pytest.mark.parametrize("end", [b"\r\n\r\n", b"\n\n"])
def test_a_head_sent_a_byte_at_a_time_is_handed_on_when_it_ends(end: bytes) -> None:
    """Each byte in a recv of its own, the blank line split too: handed on whole, once."""
    request = b"POST /v2/app/conversation HTTP/1.1" + end[: len(end) // 2] + b"Host: x" + end
    heads: list[bytes] = []
    reader = HeadReader(
        on_head=lambda _connection, _address, head: heads.append(head),
        on_gone=lambda _connection: None,
        max_bytes=1024,
    )
    try:
        connection, state = _Dripping(request), ["address", bytearray()]
        for _ in request:
            assert heads == []
            reader._receive(connection, state)  # type: ignore[arg-type]
        assert heads == [request]
    finally:
        reader.close()


def test_connections_still_sending_their_head_hold_no_thread() -> None:
    """Many clients that send half a request line take no thread; a real client is served."""
    with _serving(make_app(), max_connections=4) as httpd:
        before = threading.active_count()
        drippers = [socket.create_connection(("127.0.0.1", httpd.server_port)) for _ in range(12)]
        try:
            for sock in drippers:
                sock.sendall(b"POST /v2/app/conver")
            assert _conversation(_connect(httpd))
            assert threading.active_count() <= before + 2  # the real client's thread, at most
            assert httpd.slow_clients_dropped == 0  # 12 heads fit: 4 per thread allowed
        finally:
            for sock in drippers:
                sock.close()


def test_past_the_head_limit_the_oldest_waiting_head_makes_room() -> None:
    """With more unfinished heads than allowed, the longest-waiting one is dropped."""
    with _serving(make_app(), max_connections=1) as httpd:
        drippers = [socket.create_connection(("127.0.0.1", httpd.server_port)) for _ in range(5)]
        try:
            first = drippers[0]
            first.settimeout(10)
            assert first.recv(1024) == b""  # the oldest of five (four allowed) was closed
            assert httpd.slow_clients_dropped == 1
            assert _conversation(_connect(httpd))
        finally:
            for sock in drippers:
                sock.close()
