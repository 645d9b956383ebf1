"""Test helpers: a real reference server on 127.0.0.1, scripted agents, fault injection.

For appclient's own tests and for yours::

    from appclient.server import PlannedCall
    from appclient.testing import ReferenceServer, ScriptedAgent

    agent = ScriptedAgent([PlannedCall("get_weather", {"city": "Paris"}), "It is sunny."])
    with ReferenceServer(agent) as server:
        client = AppClient(server.app_id, token=server.token, base_url=server.url)
        ...
        server.faults.fail_next(1, status=503, retry_after=0)   # the next request fails

To share one server across a module, start each test with ``server.faults.reset()`` and
``agent.reset(*steps)``. Each server has its own free port and upload directory, so several
may run at once. The agent API a script is made of (``PlannedCall``, ``Decision``, ...) lives
in ``appclient.server``; ``ScriptedModel`` is an OpenAI-compatible model answering from a
script (``ReferenceServer(model_url=model.url, ...)``).
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

#: The agent API this module also exported -> its one home now (importable from here, with
#: a DeprecationWarning, for one release).
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
