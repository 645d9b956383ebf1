"""appclient: use a hosted AI agent app together with functions that run on your machine.

The public API lives here; every name in ``__all__`` is supported and documented. Modules
whose names start with an underscore are private and may change without notice.
"""

import logging

from ._client import AppClient
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
from ._stream import RunStream
from ._version import __version__

# A library never configures logging; this only silences "no handler" warnings.
logging.getLogger("appclient").addHandler(logging.NullHandler())

__all__ = [
    "APIStatusError",
    "AppClient",
    "AppClientError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "ConnectError",
    "Event",
    "Function",
    "FunctionCall",
    "InvalidRequestError",
    "ManifestError",
    "MaxRoundsExceededError",
    "Message",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RequestTimeoutError",
    "ResponseDecodeError",
    "RunAnswer",
    "RunError",
    "RunStream",
    "ServerError",
    "StreamInterruptedError",
    "Tool",
    "ToolApprovalDeniedError",
    "ToolArgumentsError",
    "ToolCall",
    "ToolChoice",
    "ToolChoiceFunction",
    "ToolError",
    "ToolExecutionError",
    "ToolNotFoundError",
    "ToolOutput",
    "ToolTimeoutError",
    "TransportError",
    "UnprocessableEntityError",
    "Usage",
    "__version__",
]
