"""Test helpers: a real reference server on 127.0.0.1, scripted agents, fault injection.

For appclient's own tests and for yours::

    from appclient.testing import PlannedCall, ReferenceServer, ScriptedAgent

    agent = ScriptedAgent([PlannedCall("get_weather", {"city": "Paris"}), "It is sunny."])
    with ReferenceServer(agent) as server:
        client = AppClient(server.app_id, token=server.token, base_url=server.url)
        ...
        server.faults.fail_next(1, status=503, retry_after=0)   # the next request fails

One server may serve a whole module (a ``scope="module"`` fixture); start each test with
``server.faults.reset()`` and ``agent.reset(*steps)`` so nothing an earlier test queued
leaks into it. Servers are independent: several may run at once (each on its own free
port, with its own temporary upload directory, removed when it stops), so tests may run
in parallel as long as each drives its own server, or its own conversations of a shared
one with an agent that does not depend on the order of requests. A ``CloudComponent``
subclass given as ``components=[...]`` is what ``PlannedCall(name, args, cloud=True)``
runs.

To test a model-planned server offline, ``ScriptedModel`` is an OpenAI-compatible chat model
on a local port answering from a script (``ReferenceServer(model_url=model.url, ...)``).

The official AppBuilder SDKs work against it too: set ``GATEWAY_URL_V2=server.url`` and
``APPBUILDER_TOKEN=server.token``, and use ``server.app_id`` as the app id.
"""

from .server._agents._agent_api import (
    Agent,
    AgentInput,
    ComponentInfo,
    Decision,
    PlannedCall,
    ToolResult,
    Turn,
)
from .server._agents._components import CloudComponent
from .server._agents._scripted_agent import ScriptedAgent, ScriptExhaustedError, ScriptStep
from .server._agents._scripted_model import ModelError, ModelReply, ModelStep, ScriptedModel
from .server._http._faults import FaultInjector
from .server._http._reference_server import ReferenceServer

__all__ = [
    "Agent",
    "AgentInput",
    "CloudComponent",
    "ComponentInfo",
    "Decision",
    "FaultInjector",
    "ModelError",
    "ModelReply",
    "ModelStep",
    "PlannedCall",
    "ReferenceServer",
    "ScriptExhaustedError",
    "ScriptStep",
    "ScriptedAgent",
    "ScriptedModel",
    "ToolResult",
    "Turn",
]
