"""appclient: use a hosted AI agent app together with functions that run on your machine.

The public API lives here; every name in ``__all__`` is supported and documented. Modules
whose names start with an underscore are private and may change without notice.
"""

import logging

from ._client import AppClient
from ._dispatch import ApprovalCallback, ApprovalRequest, ToolCallRecord
from ._errors import (
    APIStatusError,
    AppClientError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    ConnectError,
    InvalidRequestError,
    ManifestError,
    MaxRoundsExceededError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    RequestTimeoutError,
    ResponseDecodeError,
    RunError,
    ServerError,
    StreamInterruptedError,
    ToolApprovalDeniedError,
    ToolArgumentsError,
    ToolError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolTimeoutError,
    TransportError,
    UnprocessableEntityError,
)
from ._loop_events import (
    AnswerDone,
    LoopEvent,
    RoundFinished,
    RoundRecord,
    RoundTripResult,
    ServerEvent,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from ._models import (
    Event,
    Function,
    FunctionCall,
    Message,
    RunAnswer,
    Tool,
    ToolCall,
    ToolChoice,
    ToolChoiceFunction,
    ToolOutput,
    Usage,
)
from ._registry import RegisteredTool, ToolRegistry
from ._stream import RunStream
from ._tool_groups import ToolGroup, register_tool, tool_group
from ._version import __version__

# A library never configures logging; this only silences "no handler" warnings.
logging.getLogger("appclient").addHandler(logging.NullHandler())

__all__ = [
    "APIStatusError",
    "AnswerDone",
    "AppClient",
    "AppClientError",
    "ApprovalCallback",
    "ApprovalRequest",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "ConnectError",
    "Event",
    "Function",
    "FunctionCall",
    "InvalidRequestError",
    "LoopEvent",
    "ManifestError",
    "MaxRoundsExceededError",
    "Message",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RegisteredTool",
    "RequestTimeoutError",
    "ResponseDecodeError",
    "RoundFinished",
    "RoundRecord",
    "RoundTripResult",
    "RunAnswer",
    "RunError",
    "RunStream",
    "ServerError",
    "ServerEvent",
    "StreamInterruptedError",
    "TextDelta",
    "Tool",
    "ToolApprovalDeniedError",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallFinished",
    "ToolCallRecord",
    "ToolCallStarted",
    "ToolChoice",
    "ToolChoiceFunction",
    "ToolError",
    "ToolExecutionError",
    "ToolGroup",
    "ToolNotFoundError",
    "ToolOutput",
    "ToolRegistry",
    "ToolTimeoutError",
    "TransportError",
    "UnprocessableEntityError",
    "Usage",
    "__version__",
    "register_tool",
    "tool_group",
]
