"""Test helpers: a real reference server on 127.0.0.1, scripted agents, fault injection.

For appclient's own tests and for yours::

    from appclient.testing import PlannedCall, ReferenceServer, ScriptedAgent

    agent = ScriptedAgent([PlannedCall("get_weather", {"city": "Paris"}), "It is sunny."])
    with ReferenceServer(agent) as server:
        client = AppClient(server.app_id, token=server.token, base_url=server.url)
        ...
        server.faults.fail_next(1, status=503, retry_after=0)   # the next request fails

The official AppBuilder SDKs work against it too: set ``GATEWAY_URL_V2=server.url`` and
``APPBUILDER_TOKEN=server.token``, and use ``server.app_id`` as the app id.
"""

from .server._agent_api import (
    Agent,
    AgentInput,
    ComponentInfo,
    Decision,
    PlannedCall,
    ToolResult,
    Turn,
)
from .server._faults import FaultInjector
from .server._reference_server import ReferenceServer
from .server._scripted_agent import ScriptedAgent, ScriptExhaustedError

__all__ = [
    "Agent",
    "AgentInput",
    "ComponentInfo",
    "Decision",
    "FaultInjector",
    "PlannedCall",
    "ReferenceServer",
    "ScriptExhaustedError",
    "ScriptedAgent",
    "ToolResult",
    "Turn",
]
