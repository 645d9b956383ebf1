"""The embedded reference agent server: the AppBuilder conversation protocol on 127.0.0.1.

- :func:`create_app` returns the WSGI application, for any WSGI server;
- :class:`MemoryStore` and :class:`SQLiteStore` keep its state (:class:`Store` is the
  interface; a store raises :class:`StoreBusyError` when shared storage stays locked, and
  the server answers a retryable 503);
- :class:`RuleAgent` plans runs by default and :class:`ModelAgent` with a model; the
  agent interface (:class:`Agent`, :class:`Decision`, ...) lets you plug in your own
  planner, and :class:`CloudComponent` your own server-side components
  (:func:`default_components` are the built-in ones).

``appclient serve`` and ``python -m appclient.server`` run it. The helpers for tests
(``ReferenceServer``, ``ScriptedAgent``, ``FaultInjector``) are in ``appclient.testing``.
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

#: Test helpers this module also exported -> their one home now. They still import from
#: here, with a DeprecationWarning naming the new path, for one release.
_MOVED = dict.fromkeys(["FaultInjector", "ReferenceServer", "ScriptedAgent"], "appclient.testing")


def __getattr__(name: str) -> typing.Any:
    return _moved.moved_attribute(__name__, name, _MOVED)
