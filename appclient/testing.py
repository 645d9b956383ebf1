"""Test helpers: a real reference server on 127.0.0.1, scripted agents, fault injection.

For appclient's own tests and for yours::

    from appclient.server import PlannedCall
    from appclient.testing import ReferenceServer, ScriptedAgent

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
one with an agent that does not depend on the order of requests. An
``appclient.server.CloudComponent`` subclass given as ``components=[...]`` is what
``PlannedCall(name, args, cloud=True)`` runs.

The agent API a scripted agent speaks (``Agent``, ``Decision``, ``PlannedCall``, ...) and
the server itself for deployment (``create_app``, the stores) live in ``appclient.server``;
this module has only the helpers for tests.

To test a model-planned server offline, ``ScriptedModel`` is an OpenAI-compatible chat model
on a local port answering from a script (``ReferenceServer(model_url=model.url, ...)``).

The official AppBuilder SDKs work against it too: set ``GATEWAY_URL_V2=server.url`` and
``APPBUILDER_TOKEN=server.token``, and use ``server.app_id`` as the app id.
"""

import typing

from . import _moved
from .server._agents._scripted_agent import ScriptedAgent, ScriptExhaustedError, ScriptStep
from .server._agents._scripted_model import ModelError, ModelReply, ModelStep, ScriptedModel
from .server._http._faults import FaultInjector
from .server._http._reference_server import ReferenceServer

__all__ = [
    "FaultInjector",
    "ModelError",
    "ModelReply",
    "ModelStep",
    "ReferenceServer",
    "ScriptExhaustedError",
    "ScriptStep",
    "ScriptedAgent",
    "ScriptedModel",
]

#: The agent API this module also exported -> its one home now. They still import from
#: here, with a DeprecationWarning naming the new path, for one release.
_MOVED = dict.fromkeys(
    [
        "Agent",
        "AgentInput",
        "CloudComponent",
        "ComponentInfo",
        "Decision",
        "PlannedCall",
        "ToolResult",
        "Turn",
    ],
    "appclient.server",
)


def __getattr__(name: str) -> typing.Any:
    return _moved.moved_attribute(__name__, name, _MOVED)
