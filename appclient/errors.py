"""Every exception appclient raises: the whole tree under ``AppClientError``.

The common ones are also importable from ``appclient`` itself; the rest live here::

    from appclient.errors import ServerError, StreamInterruptedError

    AppClientError
    ├── InvalidRequestError (ValueError)    bad arguments, caught before anything is sent
    │   └── ManifestError                   a callable cannot become a tool (name, decorators)
    ├── TransportError                      the HTTP exchange itself failed
    │   ├── ConnectError                    no connection (refused, DNS, TLS)
    │   └── RequestTimeoutError             connect or read timeout
    │       ├── DeadlineExceededError       the call's total deadline passed (never retried)
    │       └── ConnectTimeoutError         no connection in time (also a ConnectError)
    ├── APIStatusError                      the server answered 4xx/5xx
    │   ├── BadRequestError                 400
    │   ├── AuthenticationError             401
    │   ├── PermissionDeniedError           403
    │   ├── NotFoundError                   404
    │   ├── ConflictError                   409
    │   ├── PayloadTooLargeError            413
    │   ├── UnprocessableEntityError        422
    │   ├── RateLimitError                  429
    │   └── ServerError                     5xx
    ├── ResponseDecodeError                 a 200 body that is not the protocol's JSON
    │   └── ResponseTooLargeError           a body past its size limit
    ├── RunError                            HTTP 200 with a top-level error, or an error event
    │   └── StreamInterruptedError          a stream closed before its final event
    ├── ToolError                           dispatching a local tool call failed (raise mode)
    │   ├── ToolNotFoundError               no tool of that name is registered
    │   ├── ToolArgumentsError (ValueError) the arguments do not fit the tool's schema
    │   ├── ToolExecutionError              the tool raised; the cause is chained
    │   ├── ToolTimeoutError                the tool ran past its timeout
    │   └── ToolApprovalDeniedError         the approval callback refused the call
    └── MaxRoundsExceededError              the automatic loop hit its max_rounds guard
"""

from ._core._errors import (
    APIStatusError,
    AppClientError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    ConnectError,
    ConnectTimeoutError,
    DeadlineExceededError,
    InvalidRequestError,
    ManifestError,
    MaxRoundsExceededError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    RequestTimeoutError,
    ResponseDecodeError,
    ResponseTooLargeError,
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

__all__ = [
    "APIStatusError",
    "AppClientError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "ConnectError",
    "ConnectTimeoutError",
    "DeadlineExceededError",
    "InvalidRequestError",
    "ManifestError",
    "MaxRoundsExceededError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RequestTimeoutError",
    "ResponseDecodeError",
    "ResponseTooLargeError",
    "RunError",
    "ServerError",
    "StreamInterruptedError",
    "ToolApprovalDeniedError",
    "ToolArgumentsError",
    "ToolError",
    "ToolExecutionError",
    "ToolNotFoundError",
    "ToolTimeoutError",
    "TransportError",
    "UnprocessableEntityError",
]
