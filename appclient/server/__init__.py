"""The embedded reference agent server: the AppBuilder conversation protocol on 127.0.0.1.

- :class:`ReferenceServer` runs it on a local port (a context manager, for tests too);
- :func:`create_app` returns the WSGI application, for any WSGI server;
- :class:`MemoryStore` and :class:`SQLiteStore` keep its state (:class:`Store` is the
  interface; a store raises :class:`StoreBusyError` when shared storage stays locked, and
  the server answers a retryable 503);
- :class:`RuleAgent` plans runs by default and :class:`ScriptedAgent` follows a script; the
  agent interface (:class:`Agent`, :class:`Decision`, ...) lets you plug in your own
  planner, and :class:`CloudComponent` your own server-side components
  (:func:`default_components` are the built-in ones).

``appclient serve`` and ``python -m appclient.server`` run it.
"""

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
from ._agents._scripted_agent import ScriptedAgent
from ._http._faults import FaultInjector
from ._http._reference_server import ReferenceServer
from ._http._wsgi import ReferenceApp, create_app
from ._state._sqlite_store import SQLiteStore
from ._state._store import MemoryStore, QuotaExceededError, Store, StoreBusyError

__all__ = [
    "Agent",
    "AgentInput",
    "CloudComponent",
    "ComponentInfo",
    "Decision",
    "FaultInjector",
    "MemoryStore",
    "ModelAgent",
    "PlannedCall",
    "QuotaExceededError",
    "ReferenceApp",
    "ReferenceServer",
    "RuleAgent",
    "SQLiteStore",
    "ScriptedAgent",
    "Store",
    "StoreBusyError",
    "ToolResult",
    "Turn",
    "create_app",
    "default_components",
]
