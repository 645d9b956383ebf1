"""The seed documents' examples of Lagent, LazyLLM and AgentScope idioms, run on appclient.

Each test is one example from the seed documents as its users wrote it, with only its import
lines changed (an import may rename: ``from appclient import manifest as tool_api``). Where a
line other than an import had to change, the test says which and why. Examples that need the
other framework's own runtime (an LLM object, Lagent's IPython interpreter, Wikipedia) are not
here: planning is the agent server's job in appclient.
"""

from __future__ import annotations

import json
from builtins import object as BaseAction  # Lagent's base: appclient needs none  # noqa: N812
from enum import IntEnum
from typing import Any, Literal

from appclient import AppClient, ToolRegistry, tool_group
from appclient import ToolRegistry as ServiceToolkit
from appclient import manifest as tool_api
from appclient import register_tool as fc_register
from appclient.server import PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent

# --- Lagent: "将函数转换为工具" (functions as tools) --------------------------------------


def test_lagent_tool_api_gives_api_description() -> None:
    """@tool_api: bold.api_description is the dict the Lagent docs show."""

    @tool_api
    def bold(text: str) -> str:
        """make text bold

        Args:
            text (str): input text

        Returns:
            str: bold text
        """
        return "**" + text + "**"

    assert bold.api_description == {  # type: ignore[attr-defined]
        "name": "bold",
        "description": "make text bold",
        "parameters": [{"name": "text", "type": "STRING", "description": "input text"}],
        "required": ["text"],
    }


def test_lagent_returns_named_value() -> None:
    """@tool_api(returns_named_value=True): return_data names the value."""

    @tool_api(returns_named_value=True)
    def bold(text: str) -> str:
        """make text bold

        Args:
            text (str): input text

        Returns:
            bold_text (str): bold text
        """
        return "**" + text + "**"

    assert bold.api_description == {  # type: ignore[attr-defined]
        "name": "bold",
        "description": "make text bold",
        "parameters": [{"name": "text", "type": "STRING", "description": "input text"}],
        "required": ["text"],
        "return_data": [{"name": "bold_text", "description": "bold text", "type": "STRING"}],
    }


@tool_api(explode_return=True)
def list_args(a: str, b: int, c: float = 0.0) -> dict:  # type: ignore[type-arg]
    """Return arguments in dict format

    Args:
        a (str): a
        b (int): b
        c (float): c

    Returns:
        dict: input arguments
            - a (str): a
            - b (int): b
            - c: c
    """
    return {"a": a, "b": b, "c": c}


def test_lagent_explode_return() -> None:
    """@tool_api(explode_return=True): each member of the returned dict is in return_data."""
    assert list_args.api_description == {  # type: ignore[attr-defined]
        "name": "list_args",
        "description": "Return arguments in dict format",
        "parameters": [
            {"name": "a", "type": "STRING", "description": "a"},
            {"name": "b", "type": "NUMBER", "description": "b"},
            {"name": "c", "type": "FLOAT", "description": "c"},
        ],
        "required": ["a", "b"],
        "return_data": [
            {"name": "a", "description": "a", "type": "STRING"},
            {"name": "b", "description": "b", "type": "NUMBER"},
            {"name": "c", "description": "c"},
        ],
    }


# --- Lagent: "工具描述", "自定义动作", "动态触发" (descriptions, actions, the executor) ------

TOOL_DESCRIPTION = {
    "name": "bold",  # 工具名称
    "description": "a function used to make text bold",  # 介绍工具的功能
    "parameters": [  # 这个工具所需要的参数列表
        {"name": "text", "type": "STRING", "description": "input content"}
    ],
    "required": ["text"],  # 指定必需的参数名
}


class Bold(BaseAction):
    def run(self, text: str):  # type: ignore[no-untyped-def]
        """make text bold

        Args:
            text (str): input text

        Returns:
            str: bold text
        """
        return "**" + text + "**"


class PhraseEmphasis(BaseAction):
    """a toolkit which provides different styles of text emphasis"""

    @tool_api
    def bold(self, text):  # type: ignore[no-untyped-def]
        """make text bold

        Args:
            text (str): input text

        Returns:
            str: bold text
        """
        return "**" + text + "**"

    @tool_api
    def italic(self, text):  # type: ignore[no-untyped-def]
        """make text italic

        Args:
            text (str): input text

        Returns:
            str: italic text
        """
        return "*" + text + "*"


def test_lagent_tool_description_is_a_tool_the_agent_calls() -> None:
    """A TOOL_DESCRIPTION dict advertises a function; the agent's call of it runs."""
    registry = ToolRegistry()
    registry.add(Bold().run, tool=TOOL_DESCRIPTION)
    agent = ScriptedAgent([PlannedCall("bold", {"text": "hi"}), ScriptedAgent.echo_outputs()])
    with (
        ReferenceServer(agent=agent) as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
    ):
        result = client.run_until_answer(query="make hi bold", tools=[registry])
    assert result.tool_calls[0].output == "**hi**"
    sent = registry.tools()[0]["function"]
    assert sent["parameters"]["properties"]["text"] == {
        "type": "string",
        "description": "input content",
    }


def test_lagent_executor_runs_actions_and_toolkit_apis() -> None:
    """The executor example: actions, toolkit APIs as Toolkit.api, JSON and tuple inputs.

    Changed beyond imports: ``ActionExecutor(actions=[...])`` is ``ToolRegistry([...])``.
    """
    executor = ToolRegistry([Bold(), PhraseEmphasis()])
    assert executor.names() == ["Bold", "PhraseEmphasis__bold", "PhraseEmphasis__italic"]
    ret = executor("PhraseEmphasis.italic", '{"text": "hi"}')
    assert ret.output == "*hi*"
    ret = executor("Bold", '("hi", )')  # TupleParser's input
    assert ret.output == "**hi**"


# --- LazyLLM: fc_register, tools by name -----------------------------------------------


@fc_register("tool")
def get_current_weather(location: str, unit: Literal["fahrenheit", "celsius"] = "fahrenheit"):  # type: ignore[no-untyped-def]
    """
    Get the current weather in a given location

    Args:
        location (str): The city and state, e.g. San Francisco, CA.
        unit (str): The temperature unit to use. Infer this from the users location.
    """
    if "tokyo" in location.lower():
        return json.dumps({"location": "Tokyo", "temperature": "10", "unit": "celsius"})
    elif "san francisco" in location.lower():
        return json.dumps({"location": "San Francisco", "temperature": "72", "unit": "fahrenheit"})
    elif "paris" in location.lower():
        return json.dumps({"location": "Paris", "temperature": "22", "unit": "celsius"})
    elif "beijing" in location.lower():
        return json.dumps({"location": "Beijing", "temperature": "90", "unit": "fahrenheit"})
    else:
        return json.dumps({"location": location, "temperature": "unknown"})


@fc_register("tool")
def get_n_day_weather_forecast(
    location: str, num_days: int, unit: Literal["celsius", "fahrenheit"] = "fahrenheit"
):  # type: ignore[no-untyped-def]
    """
    Get an N-day weather forecast

    Args:
        location (str): The city and state, e.g. San Francisco, CA.
        num_days (int): The number of days to forecast.
        unit (Literal['celsius', 'fahrenheit']): The temperature unit to use. Infer this from the users location.
    """
    if "tokyo" in location.lower():
        return json.dumps(
            {"location": "Tokyo", "temperature": "10", "unit": "celsius", "num_days": num_days}
        )
    else:
        return json.dumps({"location": location, "temperature": "unknown"})


@fc_register("tool")
def multiply_tool(a: int, b: int) -> int:
    """
    Multiply two integers and return the result integer

    Args:
        a (int): multiplier
        b (int): multiplier
    """
    return a * b


@fc_register("tool")
def add_tool(a: int, b: int):  # type: ignore[no-untyped-def]
    """
    Add two integers and returns the result integer

    Args:
        a (int): addend
        b (int): addend
    """
    return a + b


def _run(query: str, tools: list[str], agent: ScriptedAgent | None = None) -> Any:
    with (
        ReferenceServer(agent=agent) as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
    ):
        return client.run_until_answer(query=query, tools=tools)


def test_lazyllm_tools_by_registered_name() -> None:
    """tools = ["get_current_weather", ...]: the Tokyo-and-Paris query gets both results.

    Changed beyond imports: ``FunctionCall(llm, tools)(query)`` is ``run_until_answer``
    (the reference server's agent plans instead of a local LLM).
    """
    tools = ["get_current_weather", "get_n_day_weather_forecast"]
    query = "What's the weather like today in celsius in Tokyo and Paris."
    ret = _run(query, tools)
    assert [call.output for call in ret.tool_calls] == [
        '{"location": "Tokyo", "temperature": "10", "unit": "celsius"}',
        '{"location": "Paris", "temperature": "22", "unit": "celsius"}',
    ]


def test_lazyllm_registers_under_another_name() -> None:
    """fc_register("tool")(get_current_weather, "another_get_current_weather")."""
    fc_register("tool")(get_current_weather, "another_get_current_weather")
    agent = ScriptedAgent(
        [PlannedCall("another_get_current_weather", {"location": "Paris"}), "done"]
    )
    try:
        ret = _run("weather in Paris?", ["another_get_current_weather"], agent)
    finally:
        tool_group("tool").remove("another_get_current_weather")
    paris = '{"location": "Paris", "temperature": "22", "unit": "celsius"}'
    assert ret.tool_calls[0].output == paris


def test_lazyllm_react_arithmetic_tools() -> None:
    """The multiply_tool / add_tool example: 20+(2*4) in two calls.

    Changed beyond imports: ``ReactAgent(llm, tools)(query)`` is ``run_until_answer`` with a
    scripted plan (the rule agent is no arithmetic planner; a model agent would be).
    """
    tools = ["multiply_tool", "add_tool"]
    plan = ScriptedAgent(
        [
            PlannedCall("multiply_tool", {"a": 2, "b": 4}),
            PlannedCall("add_tool", {"a": 20, "b": 8}),
            "The result of 20+(2*4) is {outputs}.",
        ]
    )
    res = _run("What is 20+(2*4)? Calculate step by step.", tools, plan)
    assert [call.output for call in res.tool_calls] == ["8", "28"]


# --- AgentScope: ServiceToolkit, parse_and_call_func, ServiceResponse -------------------


class ServiceExecStatus(IntEnum):  # agentscope.service's, as its users import it
    SUCCESS = 1
    ERROR = -1


class ServiceResponse(dict):  # type: ignore[type-arg]
    """Used to wrap the execution results of the services"""

    __setattr__ = dict.__setitem__  # type: ignore[assignment]
    __getattr__ = dict.__getitem__

    def __init__(self, status: ServiceExecStatus, content: Any):
        self.status = status
        self.content = content


def bing_search(
    question: str,
    api_key: str,
    num_results: int = 10,
    **kwargs: Any,
) -> ServiceResponse:
    """
    Search question in Bing Search API and return the searching results

    Args:
        question (`str`):
            The search query string.
        api_key (`str`):
            The API key provided for authenticating with the Bing Search API.
        num_results (`int`, defaults to `10`):
            The number of search results to return.
        **kwargs (`Any`):
            Additional keyword arguments to be included in the search query.
    """
    results = [{"title": f"{question} {i}"} for i in range(num_results)]
    return ServiceResponse(ServiceExecStatus.SUCCESS, results)


def test_agentscope_service_toolkit_parse_and_call_func() -> None:
    """ServiceToolkit().add(bing_search, api_key=..., num_results=3), then parse_and_call_func."""
    service_toolkit = ServiceToolkit()

    service_toolkit.add(bing_search, api_key="xxx", num_results=3)

    # a string input
    string_input = '[{"name": "bing_search", "arguments": {"question": "xxx"}}]'
    res_of_string_input = service_toolkit.parse_and_call_func(string_input)

    # or a parsed dictionary
    dict_input = [{"name": "bing_search", "arguments": {"question": "xxx"}}]
    # res_of_dict_input is the same as res_of_string_input
    res_of_dict_input = service_toolkit.parse_and_call_func(dict_input)

    assert res_of_string_input == res_of_dict_input
    assert "[STATUS]: SUCCESS" in res_of_string_input
    assert '[RESULT]: [{"title": "xxx 0"}, {"title": "xxx 1"}, {"title": "xxx 2"}]' in (
        res_of_string_input
    )
    assert "api_key" not in json.dumps(service_toolkit.json_schemas)


def test_agentscope_error_response_is_a_failed_call() -> None:
    """A ServiceResponse with status ERROR is reported to the agent as a failed call."""

    def create_file(file_path: str, content: str = "") -> ServiceResponse:
        """
        Create a file and write content to it.

        Args:
            file_path (str): The path to the file to be created.
            content (str): The content to be written to the file.
        """
        return ServiceResponse(ServiceExecStatus.ERROR, f"FileExistsError: {file_path}")

    report = ServiceToolkit([create_file]).parse_and_call_func(
        [{"name": "create_file", "arguments": {"file_path": "a.txt"}}]
    )
    assert "[STATUS]: ERROR" in report
    assert "FileExistsError: a.txt" in report
