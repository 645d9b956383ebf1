"""Every default appclient uses, in one place.

Modules import their defaults from here so that a reader can see every tunable value at
once and tests can refer to the same numbers the code uses. Sections are grouped by the
part of the package that reads them.
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

# --- server ---------------------------------------------------------------------------

DEFAULT_SERVER_HOST: Final = "127.0.0.1"
#: Largest request body the reference server reads (uploads included).
DEFAULT_MAX_BODY_BYTES: Final = 10 * 1024 * 1024
#: Largest file the reference server stores from an upload.
DEFAULT_MAX_UPLOAD_BYTES: Final = 8 * 1024 * 1024
#: Cloud-component steps the reference server runs inside one run before it stops planning.
DEFAULT_MAX_AGENT_STEPS: Final = 8
#: How many Idempotency-Key replays the server keeps per store.
DEFAULT_IDEMPOTENCY_CACHE_SIZE: Final = 10_000
#: Bytes of Idempotency-Key replays the in-memory store keeps (a long streamed answer is
#: ~100 KiB, so the count alone would let replays take a gigabyte).
DEFAULT_IDEMPOTENCY_CACHE_BYTES: Final = 64 * 1024 * 1024
#: Run message ids the in-memory store remembers per conversation (feedback targets).
DEFAULT_MAX_MESSAGES_PER_CONVERSATION: Final = 1_000
#: The app id `ReferenceServer` and `appclient serve` accept when none is configured.
DEFAULT_APP_ID: Final = "appclient-demo-app"
#: The port `appclient serve` listens on when none is given.
DEFAULT_SERVE_PORT: Final = 8765
#: Seconds a run holds its conversation; a crashed worker's hold expires after this.
DEFAULT_RUN_LEASE_SECONDS: Final = 300.0
#: Seconds an idle keep-alive connection stays open on the embedded HTTP server.
DEFAULT_KEEPALIVE_TIMEOUT: Final = 60.0
#: Connections the reference server holds open at once (one thread each); more are answered
#: 503 with Retry-After and closed, so idle or slow clients cannot exhaust its threads.
DEFAULT_MAX_CONNECTIONS: Final = 512
#: Seconds `ReferenceServer.stop` lets requests in flight finish before closing the store.
DEFAULT_SHUTDOWN_GRACE_SECONDS: Final = 10.0
#: Longest time a `hang_next` fault holds a request before answering 503 anyway.
DEFAULT_HANG_SECONDS: Final = 30.0
#: Finished turns kept per conversation (older ones are dropped from the stored history).
DEFAULT_MAX_HISTORY_TURNS: Final = 50
#: Characters (queries, answers, tool outputs) a conversation's stored history keeps; older
#: turns are dropped first, the latest is always kept. Every run reads and writes it.
DEFAULT_MAX_HISTORY_CHARS: Final = 1_000_000
#: Largest text delta of a streamed answer, in characters (answers stream in several deltas).
DEFAULT_ANSWER_DELTA_CHARS: Final = 8
#: Most text deltas one streamed answer is cut into; longer answers get longer deltas, so a
#: very long answer is not tens of thousands of SSE messages.
MAX_ANSWER_DELTAS: Final = 256
#: Most tools one run may declare.
DEFAULT_MAX_TOOLS: Final = 128
#: Longest Idempotency-Key header the server accepts.
MAX_IDEMPOTENCY_KEY_LENGTH: Final = 255

# --- server agents and cloud components ----------------------------------------------------

#: Most parallel calls the rule agent makes for one tool (one per entity the query names).
RULE_AGENT_MAX_PARALLEL_CALLS: Final = 8
#: Longest piece of the user's query the rule agent echoes in a plain answer, in characters.
RULE_AGENT_ECHO_CHARS: Final = 200
#: Characters of a query the rule agent reads to plan calls (the rest is ignored).
RULE_AGENT_MAX_QUERY_CHARS: Final = 4000
#: Clauses of a query the rule agent matches one by one (later ones count with the last).
RULE_AGENT_MAX_CLAUSES: Final = 16
#: Earlier turns the rule agent looks back over for the tool a follow-up (那上海呢？) means.
RULE_AGENT_FOLLOW_UP_TURNS: Final = 5
#: Recent query plans the rule agent keeps, so a turn's later decisions reuse its first.
RULE_AGENT_PLAN_MEMO_SIZE: Final = 256
#: Longest expression the Calculator component evaluates, in characters.
CALCULATOR_MAX_EXPRESSION_CHARS: Final = 200
#: Largest absolute exponent the Calculator accepts in ``a ** b``.
CALCULATOR_MAX_EXPONENT: Final = 1000
#: Most digits an integer result (or intermediate value) of the Calculator may have.
CALCULATOR_MAX_DIGITS: Final = 1000

# --- manifest ---------------------------------------------------------------------------

#: Built tool templates kept per function (oldest dropped first), so building tools with ever
#: new descriptions or names in a long-running program does not grow memory without end.
MANIFEST_CACHE_ENTRIES_PER_FUNCTION: Final = 16

# --- dispatcher and loop ----------------------------------------------------------------

#: Seconds one local tool call may take before its output becomes a timeout message.
DEFAULT_TOOL_TIMEOUT: Final = 60.0
#: Rounds the automatic loop runs before raising MaxRoundsExceededError.
DEFAULT_MAX_ROUNDS: Final = 8
#: What `appclient demo` asks when no --query is given (two cities: two parallel calls).
DEMO_QUERY: Final = "今天北京和上海的天气怎么样？"
#: Rounds `appclient demo` allows: the weather question needs one, so a loop shows up fast.
DEMO_MAX_ROUNDS: Final = 4
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
