"""appclient: use a hosted AI agent app together with functions that run on your machine.

The public API lives here; every name in ``__all__`` is supported and documented. The rest
of it is in public submodules: ``appclient.errors`` (every exception), ``appclient.types``
(every wire model, streams, results and records), ``appclient.formats``, ``appclient.mcp``,
``appclient.server`` and ``appclient.testing``. Modules whose names start with an
underscore are private and may change without notice.
"""

import logging
import typing

from . import _moved, errors, types
from ._clients._async_client import AsyncAppClient
from ._clients._client import AppClient
from ._core._errors import (
    APIStatusError,
    AppClientError,
    AuthenticationError,
    InvalidRequestError,
    ManifestError,
    MaxRoundsExceededError,
    RateLimitError,
    RunError,
    ToolError,
    TransportError,
)
from ._core._limits import Limits, Timeout
from ._core._models import (
    Function,
    FunctionCall,
    Message,
    RunAnswer,
    Tool,
    ToolCall,
    ToolChoice,
    ToolChoiceFunction,
    ToolOutput,
)
from ._manifest import (
    Manifest,
    build_tool_spec,
    load_tools,
    manifest,
    manifest_parameter,
    manifest_return,
    save_tools,
)
from ._tools._dispatch import ApprovalCallback, ApprovalRequest
from ._tools._loop_events import (
    AnswerDone,
    EventPrinter,
    LoopEvent,
    RoundFinished,
    ServerEvent,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from ._tools._registry import ToolRegistry
from ._tools._tool_groups import register_tool, tool_group
from ._tools._tool_results import ToolFile
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
    "AsyncAppClient",
    "AuthenticationError",
    "EventPrinter",
    "Function",
    "FunctionCall",
    "InvalidRequestError",
    "Limits",
    "LoopEvent",
    "Manifest",
    "ManifestError",
    "MaxRoundsExceededError",
    "Message",
    "RateLimitError",
    "RoundFinished",
    "RunAnswer",
    "RunError",
    "ServerEvent",
    "TextDelta",
    "Timeout",
    "Tool",
    "ToolCall",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolChoice",
    "ToolChoiceFunction",
    "ToolError",
    "ToolFile",
    "ToolOutput",
    "ToolRegistry",
    "TransportError",
    "__version__",
    "build_tool_spec",
    "load_tools",
    "manifest",
    "manifest_parameter",
    "manifest_return",
    "register_tool",
    "save_tools",
    "tool_group",
]

#: Names this module no longer exports -> the module that does: every name of
#: ``appclient.errors`` and ``appclient.types`` not listed above. They still import from
#: here, with a DeprecationWarning naming the new path, for one release.
_MOVED = {
    name: home.__name__ for home in (errors, types) for name in home.__all__ if name not in __all__
}


def __getattr__(name: str) -> typing.Any:
    return _moved.moved_attribute(__name__, name, _MOVED)
