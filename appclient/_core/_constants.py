"""The protocol's names and every default of the client, the manifest and the dispatcher.

Every tunable value at once, for readers and for tests; the reference server's own settings
live with it, in ``appclient.server._settings``.
"""

from __future__ import annotations

import re
from typing import Final

# --- protocol -------------------------------------------------------------------------

#: Base URL of the hosted AppBuilder service; the official SDKs use the same default.
DEFAULT_BASE_URL: Final = "https://qianfan.baidubce.com"
#: Environment variable holding the token (same name as the official SDKs).
ENV_TOKEN: Final = "APPBUILDER_TOKEN"  # noqa: S105 - the variable's name, not a secret
#: Environment variable holding the base URL (same name as the official SDKs).
ENV_BASE_URL: Final = "GATEWAY_URL_V2"
#: Environment variable the examples read for the app id of a hosted app.
ENV_APP_ID: Final = "APPBUILDER_APP_ID"

PATH_CONVERSATION: Final = "/v2/app/conversation"
#: The app-management API: GET lists the apps, POST ``?Action=DescribeApps|DescribeApp``.
PATH_APPS: Final = "/v2/apps"
PATH_APP: Final = "/v2/app"
PATH_RUNS: Final = "/v2/app/conversation/runs"
PATH_FILE_UPLOAD: Final = "/v2/app/conversation/file/upload"
PATH_FEEDBACK: Final = "/v2/app/conversation/feedback"

HEADER_REQUEST_ID: Final = "X-Appbuilder-Request-Id"
HEADER_IDEMPOTENCY_KEY: Final = "Idempotency-Key"

#: The rule for tool names, shared by the manifest builder, the dispatcher and the server.
TOOL_NAME_RULE: Final = "1 to 64 characters from A-Z, a-z, 0-9, '_' and '-'"
#: ``\Z``, not ``$``: Python's ``$`` also matches before a final newline ("name\n").
TOOL_NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")


def tool_name_problem(name: object) -> str | None:
    """What is wrong with ``name`` (``None`` when fine): the rule's one wording, for any error."""
    if isinstance(name, str) and TOOL_NAME_PATTERN.match(name):
        return None
    return f"invalid tool name {name!r}: a tool name must be {TOOL_NAME_RULE}"


#: Event statuses that end a run (docs/protocol.md section 6).
TERMINAL_EVENT_STATUSES: Final = frozenset({"success", "interrupt", "error"})

# --- client ---------------------------------------------------------------------------

#: Retries after the first attempt (so at most 1 + this many requests).
DEFAULT_MAX_RETRIES: Final = 2
#: First backoff delay in seconds; doubles per attempt, with full jitter.
DEFAULT_BACKOFF_INITIAL: Final = 0.5
#: Longest backoff delay in seconds between two attempts.
DEFAULT_BACKOFF_MAX: Final = 8.0
#: Longest wait a server's Retry-After may impose before we give up instead.
DEFAULT_RETRY_AFTER_CAP: Final = 60.0
#: HTTP statuses that are safe to retry (with the same Idempotency-Key).
RETRYABLE_STATUS_CODES: Final = frozenset({408, 429, 500, 502, 503, 504})
#: Statuses retried only when the server names a wait (Retry-After): 409 means the
#: conversation is busy, or a request with the same Idempotency-Key is still running.
RETRY_AFTER_ONLY_STATUS_CODES: Final = frozenset({409})
#: Connections kept per host by a client's own session: as many as the threads of an event
#: loop's default executor (at most 32) that an AsyncAppClient may send from at once.
HTTP_POOL_MAXSIZE: Final = 32
#: Largest single SSE line the client accepts before declaring the stream broken.
MAX_SSE_LINE_BYTES: Final = 16 * 1024 * 1024
#: Bytes read from the socket per chunk while streaming.
STREAM_CHUNK_BYTES: Final = 16 * 1024

# --- servers (the reference server and ``appclient mcp serve``) -------------------------

#: Where servers listen unless told otherwise: this machine only.
DEFAULT_SERVER_HOST: Final = "127.0.0.1"

# --- manifest ---------------------------------------------------------------------------

#: Built tool templates kept per function (oldest dropped first), so building tools with ever
#: new descriptions or names in a long-running program does not grow memory without end.
MANIFEST_CACHE_ENTRIES_PER_FUNCTION: Final = 16

# --- dispatcher and loop ----------------------------------------------------------------

#: Seconds one local tool call may take before its output becomes a timeout message.
DEFAULT_TOOL_TIMEOUT: Final = 60.0
#: Rounds the automatic loop runs before raising MaxRoundsExceededError.
DEFAULT_MAX_ROUNDS: Final = 8
#: Threads used to run independent tool calls of one round in parallel.
DEFAULT_TOOL_WORKERS: Final = 8
#: Seconds an idle tool worker thread waits for new work before it exits.
DEFAULT_WORKER_IDLE_SECONDS: Final = 30.0
#: Bound string values shorter than this are not redacted from outputs (a bound "3" or
#: "en" is a setting, not a secret, and hiding every "3" would garble results).
MIN_REDACTED_SECRET_LENGTH: Final = 4
#: Secrets at least this long are hidden wherever they occur; shorter ones only where they
#: stand alone (a short token "t" must not turn "Parameter" into "Parame***er").
REDACT_INSIDE_WORDS_MIN_LENGTH: Final = 8
#: Separator between a toolkit's name and its method's tool name ("Weather__forecast").
TOOLKIT_NAME_SEPARATOR: Final = "__"
#: How many close matches an unknown-tool message suggests.
DID_YOU_MEAN_LIMIT: Final = 3
