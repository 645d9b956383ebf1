"""The embedded reference agent server: the AppBuilder conversation protocol on 127.0.0.1.

- :class:`ReferenceServer` runs it on a local port (a context manager, for tests too);
- :func:`create_app` returns the WSGI application, for any WSGI server;
- :class:`MemoryStore` and :class:`SQLiteStore` keep its state (:class:`Store` is the
  interface); the agent interface (:class:`Agent`, :class:`Decision`, ...) lets you plug in
  your own planner. ``appclient serve`` and ``python -m appclient.server`` run it.
"""

from ._agent_api import (
    Agent,
    AgentInput,
    ComponentInfo,
    Decision,
    PlannedCall,
    ToolResult,
    Turn,
)
from ._faults import FaultInjector
from ._reference_server import ReferenceServer
from ._sqlite_store import SQLiteStore
from ._store import MemoryStore, Store
from ._wsgi import ReferenceApp, create_app

__all__ = [
    "Agent",
    "AgentInput",
    "ComponentInfo",
    "Decision",
    "FaultInjector",
    "MemoryStore",
    "PlannedCall",
    "ReferenceApp",
    "ReferenceServer",
    "SQLiteStore",
    "Store",
    "ToolResult",
    "Turn",
    "create_app",
]
