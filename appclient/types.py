"""The data types of appclient's API: every wire model, and what calls hand back.

``appclient`` itself exports the models you build (``Tool``, ``ToolOutput``,
``ToolChoice``, ...); this module has all of them, plus the types you receive rather than
write: a run's events and token usage, streams, round-trip results and records, tool specs
and registry entries. Use it for annotations::

    from appclient.types import Event, RoundTripResult, RunStream
"""

from ._clients._async_stream import AsyncRunStream
from ._clients._stream import RunStream
from ._core._models import (
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
from ._manifest import ParameterSpec, ToolSpec
from ._tools._dispatch import ToolCallRecord
from ._tools._loop_events import RoundRecord, RoundTripResult
from ._tools._registered_tool import RegisteredTool
from ._tools._tool_groups import ToolGroup

__all__ = [
    "AsyncRunStream",
    "Event",
    "Function",
    "FunctionCall",
    "Message",
    "ParameterSpec",
    "RegisteredTool",
    "RoundRecord",
    "RoundTripResult",
    "RunAnswer",
    "RunStream",
    "Tool",
    "ToolCall",
    "ToolCallRecord",
    "ToolChoice",
    "ToolChoiceFunction",
    "ToolGroup",
    "ToolOutput",
    "ToolSpec",
    "Usage",
]
