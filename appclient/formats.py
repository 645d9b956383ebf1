"""Tool text formats for models without native tool calling (public).

Render tools into a system prompt, pass the format's stop words to the model, parse its reply
into tool calls or a final answer, and hand results back in the format's own words::

    from appclient.formats import get_format

    fmt = get_format("react_en")
    system = fmt.render(registry)                 # any tools run(tools=...) accepts
    reply = fmt.parse(model_text, tools=registry)
    if reply.tool_calls:
        outputs = registry.dispatch(reply.tool_calls)
        next_user_message = fmt.observation([(o.name, o.output) for o in ...])

- ``react_en`` / ``react_zh``: ms-swift's ReAct (``Thought`` / ``Action`` / ``Action Input`` /
  ``Observation`` / ``Final Answer``); the Chinese prompt keeps the English keywords.
- ``toolbench``: ReAct with a ``Finish`` function whose ``return_type`` / ``final_answer``
  end the task.
- ``hermes``: Qwen2.5 / Hermes ``<tool_call>{"name", "arguments"}</tool_call>``, several per
  message; results go back in ``<tool_response>``.
- ``internlm``: Lagent / InternLM ``<|action_start|><|plugin|>{"name", "parameters"}``.
- ``agentscope``: AgentScope's tools instruction; the reply is a JSON object with
  ``thought``, ``speak`` and ``function`` (a call or a list of calls).
"""

from ._core._call_shapes import ToolCallAccumulator
from ._core._formats import FORMAT_NAMES, ParsedReply, ToolFormat, get_format

__all__ = ["FORMAT_NAMES", "ParsedReply", "ToolCallAccumulator", "ToolFormat", "get_format"]
