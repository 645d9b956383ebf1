"""Tool text formats: tools rendered into a prompt, tool calls read back out of model text.

Each :class:`ToolFormat` is one convention, named as the systems that use it name it (their
keywords and tags; the wording is ours); :mod:`appclient.formats` lists them.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from .._manifest._coerce import ToolsLike, tools_to_wire
from ._arguments import ArgumentsDecodeError, decode_arguments, find_json_object
from ._errors import InvalidRequestError, did_you_mean
from ._models import FunctionCall, ToolCall

#: Model text longer than this is read only up to here (a runaway model, or 1 MB of text).
MAX_REPLY_CHARS: Final = 200_000
#: A call as the text writes it: the name and the raw arguments.
_Call: TypeAlias = "tuple[str, Any]"


@dataclass(frozen=True)
class ParsedReply:
    """What a model's text says: tool calls, or a final answer.

    Attributes:
        tool_calls: The calls, arguments decoded to dicts, each with a fresh id.
        answer: The final answer when the text is one (``None`` when it calls tools).
        thought: The model's reasoning, where the format has a place for it.
        errors: Problems to tell the model (an unknown tool, undecodable arguments); when
            there are any, the calls that were fine are still in ``tool_calls``.
    """

    tool_calls: tuple[ToolCall, ...] = ()
    answer: str | None = None
    thought: str = ""
    errors: tuple[str, ...] = ()


def _tool_functions(tools: ToolsLike) -> list[dict[str, Any]]:
    empty = {"type": "object", "properties": {}}
    return [
        {"description": "", "parameters": empty, **(tool.get("function") or {})}
        for tool in tools_to_wire(tools)
    ]


def _tool_lines(tools: ToolsLike) -> str:
    return "\n".join(
        json.dumps({k: f[k] for k in ("name", "description", "parameters")}, ensure_ascii=False)
        for f in _tool_functions(tools)
    )


class ToolFormat:
    """One tool text format. Use :func:`get_format` to get one by name.

    Attributes:
        name: The format's name.
        stop_words: Pass them as ``stop`` to the model, so it stops where the caller takes
            over (``Observation:`` for ReAct).
    """

    name: str = ""
    stop_words: tuple[str, ...] = ()

    def render(self, tools: ToolsLike) -> str:
        """Return the system-prompt text that offers ``tools`` in this format.

        Args:
            tools: Any tools ``run(tools=...)`` accepts: dicts, ``Tool`` models, functions,
                a ``ToolRegistry``.

        Raises:
            InvalidRequestError: ``tools`` holds something that is not a tool.
        """
        raise NotImplementedError

    def observation(self, results: Sequence[tuple[str, str]]) -> str:
        """Return the text that hands tool results back to the model (the next user turn).

        Args:
            results: ``(tool name, output text)`` pairs, in call order.
        """
        raise NotImplementedError

    def write_calls(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> str:
        """Return the text a model writes to make ``calls``, as this format asks.

        An agent rebuilding a conversation puts it in the assistant's turn before the
        observation, so the model sees its own earlier calls in its own format.
        """
        raise NotImplementedError

    def parse(self, text: str, *, tools: ToolsLike | None = None) -> ParsedReply:
        """Read a model's reply: tool calls, or a final answer (never raises on the text).

        Args:
            text: The model's text, possibly cut at a stop word.
            tools: The tools offered; a call of any other name becomes an error entry.
        """
        calls, answer, thought = self._read(text[:MAX_REPLY_CHARS])
        return checked_calls(calls, tools, answer, thought)

    def _read(self, text: str) -> tuple[list[_Call], str | None, str]:
        """The ``(name, raw arguments)`` calls, the answer and the thought as written."""
        raise NotImplementedError


def checked_calls(
    calls: Sequence[tuple[str, Any]],
    tools: ToolsLike | None,
    answer: str | None = None,
    thought: str = "",
) -> ParsedReply:
    """Check ``(name, raw arguments)`` calls against ``tools``; with any calls, no answer."""
    names = None if tools is None else [str(f.get("name", "")) for f in _tool_functions(tools)]
    parsed: list[ToolCall] = []
    errors: list[str] = []
    for name, raw in calls:
        if names is not None and name not in names:
            errors.append(
                f"{name!r} is not an available tool{did_you_mean(name, names)} "
                f"(available tools: {', '.join(names) or 'none'})"
            )
            continue
        try:
            arguments = decode_arguments(raw)
        except ArgumentsDecodeError as exc:
            errors.append(f"The input for {name} is not a JSON object: {exc}")
            continue
        function = FunctionCall(name=name, arguments=arguments)
        parsed.append(ToolCall(id=f"call_{uuid.uuid4().hex[:24]}", function=function))
    return ParsedReply(tuple(parsed), None if calls else answer, thought.strip(), tuple(errors))


# --- ReAct and ToolBench --------------------------------------------------------------------

_KEYWORD = r"\s*[:：]\s*"
_ACTION = re.compile(
    rf"^[ \t]*Action{_KEYWORD}(?P<name>[^\n]*)\n?(?:[ \t]*Action[ _]Input{_KEYWORD}"
    rf"(?P<input>.*?))?(?=^[ \t]*(?:Observation|Thought|Action|Final[ _]Answer){_KEYWORD}|\Z)",
    re.MULTILINE | re.DOTALL,
)
_FINAL = re.compile(rf"^[ \t]*Final[ _]Answer{_KEYWORD}(?P<answer>.*)", re.MULTILINE | re.DOTALL)
_THOUGHT = re.compile(
    rf"^[ \t]*Thought{_KEYWORD}(?P<thought>.*?)(?=^[ \t]*(?:Action|Final[ _]Answer){_KEYWORD}|\Z)",
    re.MULTILINE | re.DOTALL,
)


def _clean_name(raw: str) -> str:
    return raw.strip().strip("`'\"[]()").strip()


class _ReAct(ToolFormat):
    stop_words = ("Observation:", "Observation:\n")

    def __init__(self, name: str, intro: str, keys: tuple[str, ...], begin: str = "Begin!") -> None:
        self.name = name
        self._intro = intro
        self._keys = keys
        self._begin = begin

    def render(self, tools: ToolsLike) -> str:
        names = ", ".join(f["name"] for f in _tool_functions(tools))
        thought, action, action_input, observation, repeat, final = self._keys
        return (
            f"{self._intro}\n\n{_tool_lines(tools)}\n\n"
            f"Thought: {thought}\nAction: {action.format(names=names)}\n"
            f"Action Input: {action_input}\nObservation: {observation}\n{repeat}\n"
            f"Final Answer: {final}\n\n{self._begin}"
        )

    def write_calls(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> str:
        return "\n".join(
            f"Action: {name}\nAction Input: {json.dumps(args, ensure_ascii=False)}"
            for name, args in calls
        )

    def observation(self, results: Sequence[tuple[str, str]]) -> str:
        if len(results) == 1:
            return f"Observation: {results[0][1]}"
        return "\n".join(f"Observation ({name}): {output}" for name, output in results)

    def _read(self, text: str) -> tuple[list[_Call], str | None, str]:
        thought = _THOUGHT.search(text)
        calls = [
            (_clean_name(m.group("name")), (m.group("input") or "").strip())
            for m in _ACTION.finditer(text)
            if _clean_name(m.group("name"))
        ]
        final = _FINAL.search(text)  # without one, the model answered in plain words
        answer = final.group("answer").strip() if final else text.strip()
        return calls, answer, thought.group("thought") if thought else ""


_FINISH: Final = {
    "name": "Finish",
    "description": (
        "Call this to end the task: with return_type give_answer and the final_answer the user "
        "will see, or with give_up_and_restart when the task cannot be done."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "return_type": {"type": "string", "enum": ["give_answer", "give_up_and_restart"]},
            "final_answer": {
                "type": "string",
                "description": 'The answer for the user (with return_type "give_answer").',
            },
        },
        "required": ["return_type"],
    },
}


class _ToolBench(_ReAct):
    def render(self, tools: ToolsLike) -> str:
        return super().render([*tools_to_wire(tools), {"type": "function", "function": _FINISH}])

    def parse(self, text: str, *, tools: ToolsLike | None = None) -> ParsedReply:
        text = text[:MAX_REPLY_CHARS]
        actions = _ACTION.finditer(text)
        finish = next((m for m in actions if _clean_name(m.group("name")) == "Finish"), None)
        if finish is None:
            return super().parse(text, tools=tools)
        try:
            arguments = decode_arguments((finish.group("input") or "").strip())
        except ArgumentsDecodeError as exc:
            return ParsedReply(errors=(f"The input for Finish is not a JSON object: {exc}",))
        thought = _THOUGHT.search(text)
        shown = thought.group("thought").strip() if thought else ""
        if arguments.get("return_type") == "give_up_and_restart":
            return ParsedReply(answer="I could not finish this task.", thought=shown)
        return ParsedReply(answer=str(arguments.get("final_answer", "")), thought=shown)


# --- Hermes / Qwen and InternLM / Lagent: a JSON call between tags --------------------------


@dataclass(repr=False, eq=False, kw_only=True)
class _TaggedCalls(ToolFormat):
    """Calls as JSON objects between tags; the answer is the text outside them."""

    name: str
    prompt: str
    opening: str
    closing: str
    key: str
    result: str
    stop_words: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ends = "|".join(re.escape(end.strip()) for end in (self.closing, *self.stop_words))
        self._pattern = re.compile(rf"{re.escape(self.opening)}\s*(.*?)\s*(?:{ends}|\Z)", re.DOTALL)

    def render(self, tools: ToolsLike) -> str:
        return self.prompt.format(tools=_tool_lines(tools))

    def write_calls(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> str:
        return "\n".join(
            f"{self.opening}\n"
            + json.dumps({"name": name, self.key: args}, ensure_ascii=False)
            + self.closing
            for name, args in calls
        )

    def observation(self, results: Sequence[tuple[str, str]]) -> str:
        return "\n".join(self.result.format(output=output) for _, output in results)

    def _read(self, text: str) -> tuple[list[_Call], str | None, str]:
        calls = [_json_call(m.group(1), self.key) for m in self._pattern.finditer(text)]
        rest = self._pattern.sub("", text)
        for stop in self.stop_words:
            rest = rest.replace(stop, "")
        rest = rest.strip()
        return calls, rest, rest if calls else ""


def _json_call(text: str, key: str) -> _Call:
    found = find_json_object(text)
    if found is None:
        return "", text  # reported as an unknown tool, quoting nothing long
    name = found.get("name")
    arguments = found.get(key, found.get("arguments", found.get("parameters")))
    return (name if isinstance(name, str) else ""), arguments


_HERMES = _TaggedCalls(
    name="hermes",
    prompt=(
        "# Tools\n\nYou may call one or more functions to answer the user. The functions are "
        "described in JSON Schema inside <tools></tools>:\n<tools>\n{tools}\n</tools>\n\nFor "
        "each call, write a JSON object with the function's name and its arguments inside "
        '<tool_call></tool_call> tags:\n<tool_call>\n{{"name": <function-name>, "arguments": '
        "<args-json-object>}}\n</tool_call>"
    ),
    opening="<tool_call>",
    closing="\n</tool_call>",
    key="arguments",
    result="<tool_response>\n{output}\n</tool_response>",
)
_INTERNLM = _TaggedCalls(
    name="internlm",
    prompt=(
        "You can use these tools (plugins), described in JSON:\n{tools}\n\nTo call one, write "
        '<|action_start|><|plugin|> followed by a JSON object {{"name": <tool name>, '
        '"parameters": <arguments object>}} and then <|action_end|>. Its result comes back '
        "from the environment. When you can answer, answer in plain text."
    ),
    opening="<|action_start|><|plugin|>",
    closing="<|action_end|>",
    key="parameters",
    result="<|im_start|>environment name=<|plugin|>\n{output}<|im_end|>",
    stop_words=("<|action_end|>", "<|im_end|>"),
)


# --- AgentScope ----------------------------------------------------------------------------------


class _AgentScope(ToolFormat):
    name = "agentscope"

    def render(self, tools: ToolsLike) -> str:
        lines = []
        for index, function in enumerate(_tool_functions(tools), start=1):
            lines.append(f"{index}. {function['name']}: {function['description']}")
            properties = (function.get("parameters") or {}).get("properties") or {}
            for argument, schema in properties.items():
                schema = schema if isinstance(schema, dict) else {}
                kind, text = schema.get("type", "any"), schema.get("description", "")
                lines.append(f"    {argument} ({kind}): {text}")
        return (
            "## Tool Functions:\nThe following tool functions are available, each as\n"
            "{index}. {function name}: {function description}\n"
            "    {argument name} ({argument type}): {argument description}\n\n"
            + "\n".join(lines)
            + "\n\n## Response Format:\nReply with one JSON object (in a ```json block): "
            '{"thought": <your reasoning>, "speak": <what you say to the user>, "function": '
            '[{"name": <function name>, "arguments": {<argument name>: <value>}}]}. Leave '
            '"function" empty ([]) when you answer without calling a function.'
        )

    def write_calls(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> str:
        functions = [{"name": name, "arguments": args} for name, args in calls]
        reply = {"thought": "", "speak": "", "function": functions}
        return "```json\n" + json.dumps(reply, ensure_ascii=False) + "\n```"

    def observation(self, results: Sequence[tuple[str, str]]) -> str:
        lines = ["Execution Results:"]
        for index, (name, output) in enumerate(results, start=1):
            lines += [
                f"{index}. {name}:",
                "    [EXECUTE STATUS]: SUCCESS",
                f"    [EXECUTE RESULT]: {output}",
            ]
        return "\n".join(lines)

    def _read(self, text: str) -> tuple[list[_Call], str | None, str]:
        reply = find_json_object(text)
        if reply is None:
            return [], text.strip(), ""
        function = reply.get("function", reply.get("functions"))
        items = function if isinstance(function, list) else [function]
        calls = [
            (str(item.get("name", "")), item.get("arguments", item.get("parameters")))
            for item in items
            if isinstance(item, dict)
        ]
        speak = reply.get("speak")
        answer = speak if isinstance(speak, str) else text.strip()
        thought = reply.get("thought")
        return calls, answer, thought if isinstance(thought, str) else ""


_REACT_EN = (
    "you should always think about what to do",
    "the action to take, one of [{names}]",
    "the input to the action, a JSON object",
    "the result of the action",
    "... (this Thought/Action/Action Input/Observation can repeat zero or more times)",
    "the final answer to the original question",
)
_REACT_ZH = (
    "思考接下来该做什么",
    "要调用的工具名称，必须是[{names}]之一",
    "工具的输入，一个 JSON 对象",
    "工具返回的结果",
    "...（Thought/Action/Action Input/Observation 可以重复零次或多次）",
    "对原始问题的最终答案",
)

_FORMATS: Final[dict[str, ToolFormat]] = {
    "agentscope": _AgentScope(),
    "hermes": _HERMES,
    "internlm": _INTERNLM,
    "react_en": _ReAct(
        "react_en",
        "Answer the following questions as best you can. You have access to these tools:",
        _REACT_EN,
    ),
    "react_zh": _ReAct(
        "react_zh",
        "尽你所能回答下面的问题。你可以使用以下工具：",
        _REACT_ZH,
        "请按以上格式回答（关键词保持英文）。开始！",
    ),
    "toolbench": _ToolBench(
        "toolbench",
        "You can use many tools (functions) to do the task below. At each step, give your "
        "thought about the state and what to do next, with a function call that carries the "
        "step out, in this format:\nThought:\nAction:\nAction Input:\n\nThe call's result "
        "comes back as an Observation and you decide the next step. ALWAYS end with the "
        '"Finish" function: its final answer is the only part the user sees. If the task '
        "cannot be done, call Finish with give_up_and_restart. Keep thoughts short. You have "
        "access to these functions:",
        (
            "your thought",
            "the function to call, one of [{names}, Finish]",
            "the arguments, a JSON object",
            "the function's result",
            "... (Thought/Action/Action Input/Observation repeat as needed)",
            "not used: call Finish instead",
        ),
    ),
}

#: The names :func:`get_format` knows, sorted.
FORMAT_NAMES: Final[tuple[str, ...]] = tuple(sorted(_FORMATS))


def get_format(name: str) -> ToolFormat:
    """Return the tool text format called ``name`` (one of :data:`FORMAT_NAMES`).

    Raises:
        InvalidRequestError: No format has that name; the message lists them.
    """
    found = _FORMATS.get(name)
    if found is None:
        raise InvalidRequestError(
            f"unknown tool format {name!r}; the formats are: {', '.join(FORMAT_NAMES)}"
        )
    return found
