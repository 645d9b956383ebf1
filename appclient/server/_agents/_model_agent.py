"""``ModelAgent``: the reference server plans with a real model behind an OpenAI-compatible API.

The conversation is rebuilt from the :class:`AgentInput` at each decision, so the agent keeps
no state. Formats and strategies (``fc``, ``react``, ``plan_and_solve``, ``rewoo``) are told in
the README, "Test your tools against a real model".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from ..._core._call_shapes import ToolCallAccumulator
from ..._core._errors import InvalidRequestError
from ..._core._formats import FORMAT_NAMES, ParsedReply, ToolFormat, checked_calls, get_format
from .._runs._run_engine import AgentFailure, Emit
from .._runs._tool_choice import candidates_from
from ._agent_api import AgentInput, Decision, PlannedCall

#: ``tool_format`` values: the model's own tool calling, or a text format.
TOOL_FORMATS: Final = ("native", *FORMAT_NAMES)
#: ``strategy`` values, as LazyLLM names its agents.
STRATEGIES: Final = ("fc", "plan_and_solve", "react", "rewoo")
_FINAL_ANSWER: Final = re.compile(r"Final[ _]Answer\s*[:：]\s*")
#: Longest text held back while looking for ``Final Answer:`` (past it, nothing is streamed).
_MAX_HELD: Final = 64 * 1024
_SYSTEM = (
    "You are a helpful assistant. Use the tools when they help; when you can answer, answer "
    "the user directly and briefly, quoting what the tools returned."
)


@dataclass(frozen=True)
class ModelReplyText:
    """One model answer: its text, native calls (``(id, name, arguments text)``), usage."""

    text: str
    native_calls: tuple[tuple[str, str, str], ...] = ()
    usage: dict[str, int] | None = None


class ModelAgent:
    """Plans runs with a chat model behind an OpenAI-compatible endpoint.

    Args:
        base_url: The endpoint's base URL, as an ``openai`` client takes it
            (``http://127.0.0.1:8000/v1``).
        model: The model name to ask for.
        tool_format: ``"native"`` (OpenAI tool calling) or a text format's name.
        strategy: ``"fc"``, ``"react"``, ``"plan_and_solve"`` or ``"rewoo"``.
        api_key: The key; ``$OPENAI_API_KEY`` (or ``api_key_env``) when ``None``; local
            servers need none. Never logged or shown.
        api_key_env: The environment variable read for the key.
        max_tool_results: Tool results one turn may gather before the agent stops the run.
        repair_attempts: How often an unusable reply is sent back to the model to correct.
        timeout: Seconds the model may stay silent (connecting, or between two pieces).
        reply_seconds: Seconds one whole reply may take; a model that never stops is cut.
        max_retries: Retries of a failed model call (the ``openai`` client's own policy).
        max_reply_chars: The longest reply accepted; a longer one ends the run with an error.
        client: An ``openai.OpenAI`` client to use instead of making one (tests).

    Raises:
        InvalidRequestError: An unknown format or strategy, or the ``openai`` package is
            missing (the message names the extra to install).
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        tool_format: str = "native",
        strategy: str = "fc",
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        max_tool_results: int = 24,
        repair_attempts: int = 2,
        timeout: float = 60.0,
        reply_seconds: float = 300.0,
        max_retries: int = 2,
        max_reply_chars: int = 200_000,
        client: Any = None,
    ) -> None:
        if tool_format not in TOOL_FORMATS:
            raise InvalidRequestError(
                f"unknown tool format {tool_format!r}; use one of: {', '.join(TOOL_FORMATS)}"
            )
        if strategy not in STRATEGIES:
            raise InvalidRequestError(
                f"unknown strategy {strategy!r}; use one of: {', '.join(STRATEGIES)}"
            )
        if strategy == "react" and tool_format == "native":
            tool_format = "react_en"  # ReAct is a text format by definition
        self.model = model
        self.tool_format = tool_format
        self.strategy = strategy
        self.max_tool_results = max_tool_results
        self.repair_attempts = repair_attempts
        self.max_reply_chars = max_reply_chars
        self.reply_seconds = reply_seconds
        self._format: ToolFormat | None = (
            None if tool_format == "native" else get_format(tool_format)
        )
        if client is None:
            try:
                import openai  # an optional extra, imported only when a model is used
            except ImportError:
                raise InvalidRequestError(
                    "planning with a model needs the openai package: pip install 'appclient[model]'"
                ) from None
            key = api_key if api_key is not None else os.environ.get(api_key_env)
            client = openai.OpenAI(
                base_url=base_url,
                api_key=key or "not-needed",  # local servers need none; the client wants one
                timeout=timeout,
                max_retries=max_retries,
            )
        self._client = client

    def __repr__(self) -> str:  # never the key
        return (
            f"ModelAgent(model={self.model!r}, tool_format={self.tool_format!r}, "
            f"strategy={self.strategy!r})"
        )

    #: The engine passes ``emit`` to :meth:`decide` on streamed runs: answers go out live.
    streams_text = True

    def decide(self, agent_input: AgentInput, *, emit: Emit | None = None) -> Decision:
        """Ask the model for the next step.

        Args:
            agent_input: The run so far.
            emit: Receives the answer text as the model writes it (streamed runs).

        Raises:
            AgentFailure: The model failed, or its replies stayed unusable.
        """
        if len(agent_input.results) >= self.max_tool_results:
            raise AgentFailure(
                f"the model kept calling tools: {len(agent_input.results)} results in this turn "
                f"(at most {self.max_tool_results}); stopped"
            )
        if self.strategy == "rewoo":
            return _rewoo(self, agent_input, emit)
        if self.strategy == "plan_and_solve" and not agent_input.memo:
            return _plan(self, agent_input, emit)
        return _next_step(self, agent_input, emit)

    def _tool_functions(self, agent_input: AgentInput) -> list[dict[str, Any]]:
        """The local tools and cloud components offered, as function dicts."""
        functions = [
            tool.function.model_dump(mode="json", exclude_none=True)
            for tool in agent_input.tools
            if tool.function is not None
        ]
        return functions + [
            {"name": c.name, "description": c.description, "parameters": c.parameters}
            for c in candidates_from(agent_input.tools, agent_input.components)
            if c.cloud
        ]

    def _messages(self, agent_input: AgentInput) -> list[dict[str, Any]]:
        """The conversation so far in the chosen format, with the turn's plan (memo) and results."""
        functions = self._tool_functions(agent_input)
        system = _SYSTEM
        if self._format is not None and functions:
            system = self._format.render(_as_tools(functions))
        if agent_input.memo:
            system = f"{system}\n\nFollow this plan:\n{agent_input.memo}"
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for turn in agent_input.history:
            messages.append({"role": "user", "content": turn.query})
            messages.append({"role": "assistant", "content": turn.answer})
        query = agent_input.query
        if agent_input.file_names:
            query = f"{query}\n\n(Files attached: {', '.join(agent_input.file_names)})"
        messages.append({"role": "user", "content": query})
        for result in agent_input.results:  # as the model would have seen them
            if self._format is None:
                arguments = json.dumps(result.arguments, ensure_ascii=False)
                function = {"name": result.name, "arguments": arguments}
                call = {"id": result.call_id, "type": "function", "function": function}
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
                messages.append(
                    {"role": "tool", "tool_call_id": result.call_id, "content": result.output}
                )
            else:
                text = self._format.write_calls([(result.name, dict(result.arguments))])
                messages.append({"role": "assistant", "content": text})
                observation = self._format.observation([(result.name, result.output)])
                messages.append({"role": "user", "content": observation})
        return messages

    def _ask(
        self,
        messages: list[dict[str, Any]],
        *,
        functions: Sequence[dict[str, Any]] = (),
        emit: Emit | None = None,
        plain_text: bool = False,
    ) -> ModelReplyText:
        """One streamed model call; ``plain_text``: the whole reply is an answer (a solver)."""
        answer = _AnswerFilter(None if plain_text else self.tool_format, emit)
        options: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            # Streamed, so that a reply that never ends is cut at max_reply_chars or the deadline.
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self._format is None and functions:
            options["tools"] = _as_tools(functions)
        elif self._format is not None and self._format.stop_words:
            options["stop"] = list(self._format.stop_words)
        deadline = time.monotonic() + self.reply_seconds
        parts: list[str] = []
        size = 0
        calls = ToolCallAccumulator(max_argument_chars=self.max_reply_chars)
        usage: dict[str, int] | None = None
        try:
            with contextlib.closing(self._client.chat.completions.create(**options)) as stream:
                for chunk in stream:
                    calls.add(chunk)
                    for choice in getattr(chunk, "choices", None) or ():
                        text = getattr(choice.delta, "content", None) or ""
                        parts.append(text)
                        size += len(text)
                        if getattr(choice.delta, "tool_calls", None):
                            answer.stop()  # the reply calls tools: it is no answer
                        answer.feed(text)
                    if getattr(chunk, "usage", None) is not None:
                        usage = _usage(chunk.usage)
                    if size > self.max_reply_chars:
                        raise AgentFailure(
                            f"the model's reply passed {self.max_reply_chars:,} characters; stopped"
                        )
                    if time.monotonic() > deadline:
                        raise AgentFailure(
                            f"the model's reply took longer than {self.reply_seconds:g} s; stopped"
                        )
        except AgentFailure:
            raise
        except Exception as exc:  # every openai error, and a broken connection under it
            raise AgentFailure(f"the model {self.model!r} failed: {_describe(exc)}") from exc
        return ModelReplyText("".join(parts), tuple(calls.raw_calls), usage)

    def _planned(self, reply: ParsedReply, agent_input: AgentInput) -> list[PlannedCall]:
        """The parsed calls as the engine takes them (cloud components marked)."""
        found = candidates_from(agent_input.tools, agent_input.components)
        cloud = {c.name for c in found if c.cloud}  # a client tool hides a component
        return [
            PlannedCall(
                call.function.name, dict(call.function.arguments), call.function.name in cloud
            )
            for call in reply.tool_calls
        ]


def _chat(system: str, user: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _as_tools(functions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": function} for function in functions]


def _usage(usage: Any) -> dict[str, int]:
    return {
        name: int(getattr(usage, name, 0) or 0)
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
    }


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    kind = type(exc).__name__
    message = str(exc).splitlines()[0][:300] if str(exc) else kind
    return f"HTTP {status}: {message}" if status else f"{kind}: {message}"


def _next_step(agent: ModelAgent, agent_input: AgentInput, emit: Emit | None) -> Decision:
    """One step of fc, react and plan_and_solve's solving, with repairs."""
    functions = agent._tool_functions(agent_input)
    tools, form = _as_tools(functions), agent._format
    messages = agent._messages(agent_input)
    for _ in range(agent.repair_attempts + 1):
        reply = agent._ask(messages, functions=functions, emit=emit)
        if form is not None:
            parsed = form.parse(reply.text, tools=tools)
        else:
            calls = [(name, arguments) for _, name, arguments in reply.native_calls]
            parsed = checked_calls(calls, tools, answer=reply.text)
        if parsed.tool_calls:
            planned = tuple(agent._planned(parsed, agent_input))
            return Decision(calls=planned, thought=parsed.thought, usage=reply.usage)
        if not parsed.errors and (parsed.answer or "").strip():
            return Decision.reply(parsed.answer or "", usage=reply.usage)
        problems = "\n".join(parsed.errors) or "The reply held neither a tool call nor an answer."
        text = f"Your reply could not be used: {problems} Please correct it."
        if form is not None:
            text = form.observation([("error", text)])
        messages += [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": text},
        ]
    tries, problems = agent.repair_attempts + 1, "; ".join(parsed.errors) or "an empty reply"
    raise AgentFailure(f"the model's reply could not be used after {tries} tries: {problems}")


_PLAN_PROMPT = (
    "Before answering, write a short numbered plan: the steps (and the tools) that answer the "
    "user's question. Write only the plan; do not call tools or answer yet."
)


def _plan(agent: ModelAgent, agent_input: AgentInput, emit: Emit | None) -> Decision:
    """plan_and_solve's first decision of a turn: ask for the plan, keep it, take step one."""
    functions = agent._tool_functions(agent_input)
    listing = "\n".join(f"- {f['name']}: {f.get('description', '')}" for f in functions)
    messages = _chat(f"{_SYSTEM}\n\nTools:\n{listing}\n\n{_PLAN_PROMPT}", agent_input.query)
    plan = agent._ask(messages).text.strip() or "1. Answer the question."
    step = _next_step(agent, replace(agent_input, memo=plan), emit)
    return replace(step, memo=plan)


_EVIDENCE = re.compile(r"#E(\d+)\s*=\s*([A-Za-z0-9_-]+)\s*\[(.*)\]\s*$", re.MULTILINE)
_REWOO_PROMPT = (
    "Make a plan that gathers evidence with the tools, then stop. Write each step as a line\n"
    "Plan: <what this step finds out>\n#E<n> = <tool name>[<tool input>]\n"
    "The input is a JSON object of arguments, or plain text for a tool with one argument; it "
    "may use an earlier step's evidence by writing #E<k>. Do not answer the question."
)


def _rewoo(agent: ModelAgent, agent_input: AgentInput, emit: Emit | None) -> Decision:
    """ReWOO: plan once (memo), run the ready steps, then solve from the evidence."""
    functions = agent._tool_functions(agent_input)
    if not agent_input.memo:
        listing = "\n".join(
            f"- {f['name']}: {f.get('description', '')} "
            f"parameters: {json.dumps(f.get('parameters', {}), ensure_ascii=False)}"
            for f in functions
        )
        plan = agent._ask(
            _chat(f"Tools:\n{listing}\n\n{_REWOO_PROMPT}", agent_input.query)
        ).text.strip()
        if not _EVIDENCE.search(plan):
            raise AgentFailure(f"the model's ReWOO plan has no #E steps: {plan[:200]!r}")
        agent_input = replace(agent_input, memo=plan)
    steps = [(int(n), tool, text.strip()) for n, tool, text in _EVIDENCE.findall(agent_input.memo)]
    done = zip(steps, agent_input.results, strict=False)  # results come in step order
    evidence = {number: result.output for (number, _, _), result in done}
    ready = []
    for _, tool, text in steps[len(agent_input.results) :]:
        needed = [int(k) for k in re.findall(r"#E(\d+)", text)]
        if any(k not in evidence for k in needed):
            break  # later steps wait for this round's evidence
        for k in needed:
            text = text.replace(f"#E{k}", evidence[k])
        ready.append((tool, _step_arguments(tool, text, functions)))
    if ready:
        parsed = checked_calls(ready, _as_tools(functions))
        if parsed.errors:
            raise AgentFailure(f"the model's ReWOO plan cannot be run: {'; '.join(parsed.errors)}")
        return Decision(calls=tuple(agent._planned(parsed, agent_input)), memo=agent_input.memo)
    found = "\n".join(f"#E{n} ({tool}): {evidence.get(n, '')}" for n, tool, _ in steps)
    question = (
        f"Question: {agent_input.query}\n\nPlan and evidence:\n{agent_input.memo}\n\n{found}\n\n"
        "Answer the question from the evidence."
    )
    reply = agent._ask(_chat(_SYSTEM, question), emit=emit, plain_text=True)
    if not reply.text.strip():
        raise AgentFailure("the model's ReWOO solver answered nothing")
    return Decision.reply(reply.text, usage=reply.usage)


def _step_arguments(tool: str, text: str, functions: Sequence[dict[str, Any]]) -> Any:
    """A step's input: a JSON object or key=value list as is, else the tool's one argument."""
    if text.startswith("{") or "=" in text:
        return text
    function = next((f for f in functions if f.get("name") == tool), {})
    parameters = function.get("parameters") or {}
    names = list(parameters.get("required") or parameters.get("properties") or [])
    return {names[0]: text.strip("\"'")} if len(names) >= 1 else text


class _AnswerFilter:
    """Passes on the answer part of a reply while it still streams in.

    A tool call, or the words before one, must not stream as answer text (a tool round stays
    one message for the official Go and Java clients). Native or plain text streams until a
    tool call shows up (:meth:`stop`); a ReAct format streams what follows ``Final Answer:``;
    the other text formats stream nothing, and the answer goes out whole when the reply ends.
    """

    def __init__(self, tool_format: str | None, emit: Callable[[str], None] | None) -> None:
        self._emit = emit
        self._open = tool_format in (None, "native")
        self._stopped = emit is None or not (self._open or tool_format in ("react_en", "react_zh"))
        self._held = ""
        self._started = False

    def stop(self) -> None:
        """The reply turned out to call tools: pass nothing more."""
        self._stopped = True

    def feed(self, text: str) -> None:
        """Take the next piece of the reply."""
        if self._stopped or not text:
            return
        if self._open:
            self._send(text)
            return
        self._held += text
        found = _FINAL_ANSWER.search(self._held)
        if found is not None:
            self._open = True
            self._send(self._held[found.end() :])
            self._held = ""
        elif len(self._held) > _MAX_HELD:
            self._stopped = True

    def _send(self, text: str) -> None:
        if not self._started:
            text = text.lstrip()  # the answer a parser reads is stripped at its start
        if text and self._emit is not None:
            self._started = True
            self._emit(text)
