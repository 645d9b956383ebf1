"""The reference server's settings, in one place: limits, timeouts and the agents' bounds.

Tests refer to these numbers too; the protocol's paths and the client's defaults are in
``appclient._core._constants``.
"""

from __future__ import annotations

from typing import Final

# --- server ---------------------------------------------------------------------------

#: Largest request body the reference server reads (uploads included).
DEFAULT_MAX_BODY_BYTES: Final = 10 * 1024 * 1024
#: Largest file the reference server stores from an upload.
DEFAULT_MAX_UPLOAD_BYTES: Final = 8 * 1024 * 1024
#: Bytes all stored uploads may take together, per process; one more file is a 507.
DEFAULT_MAX_UPLOAD_TOTAL_BYTES: Final = 1024 * 1024 * 1024
#: Cloud-component steps the reference server runs inside one run before it stops planning.
DEFAULT_MAX_AGENT_STEPS: Final = 8
#: How many Idempotency-Key replays the server keeps per store.
DEFAULT_IDEMPOTENCY_CACHE_SIZE: Final = 10_000
#: Bytes of Idempotency-Key replays a store keeps (a long streamed answer is ~100 KiB).
DEFAULT_IDEMPOTENCY_CACHE_BYTES: Final = 64 * 1024 * 1024
#: Run message ids the in-memory store remembers per conversation (feedback targets).
DEFAULT_MAX_MESSAGES_PER_CONVERSATION: Final = 1_000
#: Files (uploads and file URLs) one conversation may hold; one more is refused with 400.
MAX_FILES_PER_CONVERSATION: Final = 100
#: Feedback records one conversation may hold; one more is refused with 400.
MAX_FEEDBACK_PER_CONVERSATION: Final = 1_000
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
#: Characters (queries, answers, tool outputs) a conversation's history keeps; older turns
#: are dropped first, the latest is always kept. Every run reads and writes it.
DEFAULT_MAX_HISTORY_CHARS: Final = 1_000_000
#: Largest text delta of a streamed answer, in characters (answers stream in several deltas).
DEFAULT_ANSWER_DELTA_CHARS: Final = 8
#: Most text deltas one streamed answer is cut into (a long answer gets longer deltas).
MAX_ANSWER_DELTAS: Final = 256
#: Most tools one run may declare.
DEFAULT_MAX_TOOLS: Final = 128
#: Longest Idempotency-Key header the server accepts.
MAX_IDEMPOTENCY_KEY_LENGTH: Final = 255

# --- agents and cloud components ----------------------------------------------------

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
