"""Tool text formats: render tools, parse model replies back into calls, hand results back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appclient import InvalidRequestError, ToolRegistry
from appclient.formats import FORMAT_NAMES, ToolCallAccumulator, get_format


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """Get the current weather of a city.

    Args:
        location: The city, e.g. Boston, MA.
        unit: The temperature unit.
    """
    return f"{location}: 25 {unit}"


TOOLS = [get_current_weather]


def _reply(format_name: str, name: str, arguments: dict[str, Any]) -> str:
    """A model's reply calling ``name`` with ``arguments``, written as that format asks."""
    args = json.dumps(arguments, ensure_ascii=False)
    if format_name in ("react_en", "react_zh", "toolbench"):
        return f"Thought: I should call {name}.\nAction: {name}\nAction Input: {args}\nObservation:"
    if format_name == "hermes":
        return f'<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>'
    if format_name == "internlm":
        return f'Calling.<|action_start|><|plugin|>\n{{"name": "{name}", "parameters": {args}}}'
    payload = {
        "thought": "call it",
        "speak": "",
        "function": [{"name": name, "arguments": arguments}],
    }
    return "```json\n" + json.dumps(payload, ensure_ascii=False) + "\n```"


NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,20}", fullmatch=True).filter(
    lambda name: name != "Finish"
)
VALUES = st.one_of(
    st.text(min_size=1, max_size=20).filter(lambda t: t.strip() == t and t),
    st.integers(),
    st.booleans(),
)
ARGUMENTS = st.dictionaries(
    st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True), VALUES, max_size=4
)


@pytest.mark.parametrize("format_name", FORMAT_NAMES)
@settings(max_examples=40, deadline=None)
@given(name=NAMES, arguments=ARGUMENTS)
def test_a_call_written_in_the_format_parses_back(
    format_name: str, name: str, arguments: dict[str, Any]
) -> None:
    """Render tools, write a reply calling one in the format, parse: the same call comes back."""
    tool = {
        "type": "function",
        "function": {"name": name, "description": "a tool", "parameters": {"type": "object"}},
    }
    fmt = get_format(format_name)
    assert name in fmt.render([tool])
    reply = fmt.parse(_reply(format_name, name, arguments), tools=[tool])
    assert reply.errors == ()
    assert [(c.function.name, c.function.arguments) for c in reply.tool_calls] == [
        (name, arguments)
    ]


def test_the_swift_example_key_value_action_input_parses() -> None:
    """ms-swift's example reply (Action Input as key="value" pairs) gives the call."""
    text = (
        "Thought: I need to get the current weather in Boston.\nAction: get_current_weather\n"
        'Action Input: location="Boston, MA", unit="fahrenheit"\nObservation:'
    )
    [call] = get_format("react_en").parse(text, tools=TOOLS).tool_calls
    assert call.function.arguments == {"location": "Boston, MA", "unit": "fahrenheit"}


def test_the_lazyllm_internlm_example_parses() -> None:
    """The InternLM reply quoted in LazyLLM's docs gives its call and keeps the thought."""
    text = (
        '\nI need to use the "get_current_weather" function to get the current weather in Tokyo '
        "and Paris.<|action_start|><|plugin|>\n"
        '{"name": "get_current_weather", "parameters": {"location": "Tokyo"}}'
        "<|action_end|><|im_end|>"
    )
    reply = get_format("internlm").parse(text, tools=TOOLS)
    assert [c.function.arguments for c in reply.tool_calls] == [{"location": "Tokyo"}]
    assert reply.thought.startswith("I need to use")


@pytest.mark.parametrize(
    "action_input",
    [
        '```json\n{"location": "Paris"}\n```',
        'I will pass {"location": "Paris"} to it',
        '{"location": "Paris"}\nObservation:',
    ],
    ids=["fenced", "in-prose", "trailing-observation"],
)
def test_react_action_input_tolerates_what_models_write(action_input: str) -> None:
    """Fenced JSON, JSON inside prose and a trailing Observation all give the arguments."""
    text = f"Thought: weather\nAction: get_current_weather\nAction Input: {action_input}"
    [call] = get_format("react_en").parse(text, tools=TOOLS).tool_calls
    assert call.function.arguments == {"location": "Paris"}


def test_the_chinese_prompt_accepts_full_width_colons() -> None:
    """react_zh reads 'Action：' and 'Final Answer：' with full-width colons."""
    fmt = get_format("react_zh")
    assert "Action Input" in fmt.render(TOOLS)
    call = fmt.parse('Action：get_current_weather\nAction Input：{"location": "北京"}', tools=TOOLS)
    assert call.tool_calls[0].function.arguments == {"location": "北京"}
    assert fmt.parse("Thought：好了\nFinal Answer：北京晴").answer == "北京晴"


def test_output_cut_at_the_stop_word_still_parses() -> None:
    """A hermes reply cut before its closing tag still gives the call."""
    text = '<tool_call>\n{"name": "get_current_weather", "arguments": {"location": "Oslo"}}'
    [call] = get_format("hermes").parse(text, tools=TOOLS).tool_calls
    assert call.function.arguments == {"location": "Oslo"}


@pytest.mark.parametrize("format_name", FORMAT_NAMES)
def test_an_unknown_tool_is_an_error_to_tell_the_model(format_name: str) -> None:
    """A call of a tool that was not offered is an error entry with a hint, not an exception."""
    reply = get_format(format_name).parse(
        _reply(format_name, "get_wether", {"location": "x"}), tools=TOOLS
    )
    assert reply.tool_calls == ()
    assert reply.errors[0] == (
        "'get_wether' is not an available tool; did you mean 'get_current_weather'? "
        "(available tools: get_current_weather)"
    )


@pytest.mark.parametrize("format_name", FORMAT_NAMES)
def test_plain_text_is_the_final_answer(format_name: str) -> None:
    """A reply with no call in it is the answer (a model ignoring the format answered)."""
    reply = get_format(format_name).parse("It is sunny in Paris.", tools=TOOLS)
    assert (reply.tool_calls, reply.answer) == ((), "It is sunny in Paris.")


def test_toolbench_finish_ends_the_task_with_its_answer() -> None:
    """Toolbench's Finish(give_answer) is the final answer; the prompt offers Finish."""
    fmt = get_format("toolbench")
    assert '"name": "Finish"' in fmt.render(TOOLS)
    finish = {"return_type": "give_answer", "final_answer": "25 C"}
    text = f"Thought: done\nAction: Finish\nAction Input: {json.dumps(finish)}"
    assert fmt.parse(text, tools=TOOLS).answer == "25 C"


def test_a_huge_reply_is_read_only_up_to_a_bound() -> None:
    """A megabyte of text parses quickly into an answer, never an exception."""
    reply = get_format("react_en").parse("x" * 1_000_000 + "{" * 10_000, tools=TOOLS)
    assert reply.tool_calls == ()
    assert reply.answer is not None


def test_toolbench_reads_a_huge_reply_only_up_to_the_bound_too() -> None:
    """A Finish past the bound is not read, as no call past it is in the other formats."""
    finish = {"return_type": "give_answer", "final_answer": "late"}
    text = "x" * 1_000_000 + f"\nAction: Finish\nAction Input: {json.dumps(finish)}"
    reply = get_format("toolbench").parse(text, tools=TOOLS)
    assert reply.answer is not None
    assert "late" not in reply.answer


@pytest.mark.parametrize("format_name", FORMAT_NAMES)
def test_observations_carry_every_output(format_name: str) -> None:
    """The observation text holds each tool's output."""
    text = get_format(format_name).observation([("a", "out-1"), ("b", "out-2")])
    assert "out-1" in text
    assert "out-2" in text


def test_an_unknown_format_name_lists_the_formats() -> None:
    """get_format names the formats it knows when asked for another."""
    with pytest.raises(InvalidRequestError, match="react_en"):
        get_format("react")


def test_dispatch_takes_a_whole_chat_completion() -> None:
    """registry.dispatch reads an OpenAI chat.completion's tool calls (dict and SDK object)."""
    openai = pytest.importorskip("openai")
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {
                                "name": "get_current_weather",
                                "arguments": '{"location": "Paris"}',
                            },
                        }
                    ],
                },
            }
        ],
    }
    registry = ToolRegistry(TOOLS)
    sdk_object = openai.types.chat.ChatCompletion.model_validate(completion)
    for shape in (completion, sdk_object):
        [output] = registry.dispatch(shape)
        assert (output.tool_call_id, output.output) == ("call_1", "Paris: 25 celsius")


def _chunks() -> list[dict[str, Any]]:
    pieces = ['{"loca', 'tion": "Par', 'is"}']
    first = {
        "index": 0,
        "id": "call_9",
        "type": "function",
        "function": {"name": "get_current_weather", "arguments": ""},
    }
    deltas = [first] + [{"index": 0, "function": {"arguments": piece}} for piece in pieces]
    return [
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"tool_calls": [delta]}, "finish_reason": None}],
        }
        for delta in deltas
    ]


def test_streamed_chunks_merge_into_whole_calls() -> None:
    """ToolCallAccumulator merges chunk deltas (dicts or SDK objects) into a dispatchable call."""
    openai = pytest.importorskip("openai")
    for convert in (lambda c: c, openai.types.chat.ChatCompletionChunk.model_validate):
        accumulator = ToolCallAccumulator()
        for chunk in _chunks():
            accumulator.add(convert(chunk))
        [call] = accumulator.tool_calls
        assert (call.id, call.function.arguments) == ("call_9", {"location": "Paris"})
        [output] = ToolRegistry(TOOLS).dispatch(accumulator.tool_calls)
        assert output.output == "Paris: 25 celsius"


def test_the_accumulator_is_bounded() -> None:
    """Arguments that never stop growing raise instead of filling memory."""
    accumulator = ToolCallAccumulator(max_argument_chars=20)
    *head, last = _chunks()
    for chunk in head:
        accumulator.add(chunk)
    with pytest.raises(InvalidRequestError, match="passed 20 characters"):
        accumulator.add(last)


def test_the_accumulator_bounds_the_number_of_calls() -> None:
    """New call indices past max_calls raise; more pieces of a call it holds are still taken."""
    accumulator = ToolCallAccumulator(max_calls=2)
    delta = {"function": {"name": "f", "arguments": "{"}}
    for index in (0, 1, 1, 0):
        accumulator.add({"choices": [{"delta": {"tool_calls": [{"index": index, **delta}]}}]})
    with pytest.raises(InvalidRequestError, match="call 2 is one more than the 2 allowed"):
        accumulator.add({"tool_calls": [{"index": 2, **delta}]})
    assert [name for _, name, _ in accumulator.raw_calls] == ["f", "f"]


@pytest.mark.parametrize("format_name", FORMAT_NAMES)
def test_the_format_writes_calls_it_reads_back(format_name: str) -> None:
    """write_calls (an agent rebuilding the model's turn) and parse agree."""
    fmt = get_format(format_name)
    text = fmt.write_calls([("get_current_weather", {"location": "Rome"})])
    [call] = fmt.parse(text, tools=TOOLS).tool_calls
    assert (call.function.name, call.function.arguments) == (
        "get_current_weather",
        {"location": "Rome"},
    )


def test_several_hermes_calls_on_one_line_all_parse() -> None:
    """Tags with no newline around them still delimit each call."""
    one = '<tool_call>{"name": "get_current_weather", "arguments": {"location": "A"}}</tool_call>'
    text = one + one.replace('"A"', '"B"')
    calls = get_format("hermes").parse(text, tools=TOOLS).tool_calls
    assert [c.function.arguments["location"] for c in calls] == ["A", "B"]
