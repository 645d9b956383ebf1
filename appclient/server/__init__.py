"""The embedded reference agent server: the AppBuilder conversation protocol on 127.0.0.1.

:func:`create_app` is its WSGI application, over a :class:`Store` (:class:`MemoryStore`,
:class:`SQLiteStore`); :class:`RuleAgent` plans runs by default, :class:`ModelAgent` with a
model, and the agent API (:class:`Agent`, :class:`Decision`, ...) plugs in your own planner
and :class:`CloudComponent` server-side components. ``appclient serve`` runs it; the test
helpers are in ``appclient.testing``.
"""

import typing

from .. import _moved
from ._agents._agent_api import (
    Agent,
    AgentInput,
    ComponentInfo,
    Decision,
    PlannedCall,
    ToolResult,
    Turn,
)
from ._agents._components import CloudComponent, default_components
from ._agents._model_agent import ModelAgent
from ._agents._rule_agent import RuleAgent
from ._http._wsgi import ReferenceApp, create_app
from ._state._sqlite_store import SQLiteStore
from ._state._store import MemoryStore, QuotaExceededError, Store, StoreBusyError

__all__ = [
    "Agent",
    "AgentInput",
    "CloudComponent",
    "ComponentInfo",
    "Decision",
    "MemoryStore",
    "ModelAgent",
    "PlannedCall",
    "QuotaExceededError",
    "ReferenceApp",
    "RuleAgent",
    "SQLiteStore",
    "Store",
    "StoreBusyError",
    "ToolResult",
    "Turn",
    "create_app",
    "default_components",
]

#: Test helpers this module also exported -> their home (a DeprecationWarning, one release).
_MOVED = dict.fromkeys(["FaultInjector", "ReferenceServer", "ScriptedAgent"], "appclient.testing")


def __getattr__(name: str) -> typing.Any:
    return _moved.moved_attribute(__name__, name, _MOVED)
