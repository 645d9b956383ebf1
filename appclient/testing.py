"""Test helpers: a real reference server on 127.0.0.1, scripted agents, fault injection.

For appclient's own tests and yours (the README's "Testing your tools offline")::

    from appclient.server import PlannedCall
    from appclient.testing import ReferenceServer, ScriptedAgent

    agent = ScriptedAgent([PlannedCall("get_weather", {"city": "Paris"}), "It is sunny."])
    with ReferenceServer(agent) as server:
        client = AppClient(server.app_id, token=server.token, base_url=server.url)
        server.faults.fail_next(1, status=503, retry_after=0)   # the next request fails

A server shared by a module is reset per test (``server.faults.reset()``,
``agent.reset(*steps)``); ``ScriptedModel`` is an offline OpenAI-compatible model for
``ReferenceServer(model_url=model.url, ...)``. The agent API and the deployable server are
in ``appclient.server``.
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

#: The agent API this module also exported -> its home (a DeprecationWarning, one release).
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
