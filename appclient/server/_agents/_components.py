"""Cloud components: tools the reference server runs itself, inside a run (pure logic).

As on the hosted service, :meth:`CloudComponent.run` never raises: a bad argument or a
failure comes back as the result text.
"""

from __future__ import annotations

import abc
import datetime as dt
import inspect
import json
import logging
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from ..._core._constants import tool_name_problem
from ..._manifest import build_tool_spec
from ._agent_api import ComponentInfo
from ._query_text import detect_language, lookup_place
from ._safe_arithmetic import ExpressionError, evaluate_arithmetic, format_number
from ._schema_fit import fits_schema

_log = logging.getLogger("appclient.server")


class ComponentInputError(ValueError):
    """The arguments given to a component are wrong; the message says how."""


_PHRASES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
    "date": "a date as YYYY-MM-DD",
    "date-time": "a date and time (ISO 8601)",
}


def _describe_type(schema: Any) -> str:
    if isinstance(schema, Mapping):
        if isinstance(schema.get("enum"), list):
            return "one of " + ", ".join(json.dumps(o, ensure_ascii=False) for o in schema["enum"])
        for key in ("format", "type"):  # a format says more than a type
            if str(schema.get(key)) in _PHRASES:
                return _PHRASES[str(schema[key])]
    return "a value that fits its schema"


class CloudComponent(abc.ABC):
    """A tool the server runs itself. Subclass it and implement :meth:`execute`.

    Attributes:
        info: The component's name, description and JSON Schema parameters (``tool_choice``
            names the component by ``info.name``).
    """

    info: ComponentInfo

    def run(self, arguments: Mapping[str, Any]) -> str:
        """Run the component; every problem comes back as text, never as an exception.

        Undeclared arguments are dropped (unless the schema declares no properties or allows
        ``additionalProperties``).

        Args:
            arguments: The call's arguments (a JSON object).

        Returns:
            The result text, or an error text naming the component and the problem.
        """
        given = dict(arguments) if isinstance(arguments, Mapping) else {}
        try:
            return self.execute(self._checked(given))
        except ComponentInputError as exc:
            return self._error_text(str(exc), given)
        except Exception as exc:
            # A component's bug must not break the run: the agent shows the failure instead.
            _log.warning("cloud component %s raised", self.info.name, exc_info=True)
            return self._error_text(f"{type(exc).__name__}: {exc}", given)

    @abc.abstractmethod
    def execute(self, arguments: dict[str, Any]) -> str:
        """Do the work for checked ``arguments`` and return the result as text.

        Raise :class:`ComponentInputError` for a value the schema could not rule out.
        """

    def _checked(self, arguments: dict[str, Any]) -> dict[str, Any]:
        parameters = self.info.parameters
        declared = parameters.get("properties")
        properties: Mapping[str, Any] = declared if isinstance(declared, Mapping) else {}
        missing = [
            name
            for name in parameters.get("required") or []
            if isinstance(name, str) and arguments.get(name) in (None, "")
        ]
        if missing:
            names = ", ".join(repr(name) for name in missing)
            raise ComponentInputError(f"missing required argument {names}")
        keep_extra = not properties or bool(parameters.get("additionalProperties", False))
        checked = {
            name: value
            for name, value in arguments.items()
            if (name in properties and value is not None) or (name not in properties and keep_extra)
        }
        for name, value in checked.items():
            if name in properties and not fits_schema(value, properties[name]):
                raise ComponentInputError(
                    f"argument {name!r} must be {_describe_type(properties[name])}, "
                    f"got {json.dumps(value, ensure_ascii=False)}"
                )
        return checked

    def _error_text(self, problem: str, arguments: Mapping[str, Any]) -> str:
        if detect_language(" ".join(v for v in arguments.values() if isinstance(v, str))) == "zh":
            return f"{self.info.name} 调用失败：{problem}"
        return f"{self.info.name} failed: {problem}"

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
    ) -> CloudComponent:
        """Make a component that calls ``func(**arguments)``.

        Args:
            func: The function; its result becomes text (dicts and lists as JSON).
            name: The component name; ``func.__name__`` by default.
            description: What it does; the first paragraph of the docstring by default.
            parameters: The JSON Schema of its arguments; read from the signature's
                annotations by default (parameters without a default are required).

        Returns:
            The component.

        Raises:
            ValueError: The name breaks the tool-name rule, or an annotation does not
                resolve (a :class:`~appclient.ManifestError`).
        """
        component_name = name or str(getattr(func, "__name__", ""))
        problem = tool_name_problem(component_name)
        if problem is not None:
            raise ValueError(f"component name: {problem}")
        if description is None:
            description = (inspect.getdoc(func) or "").split("\n\n")[0]
        if parameters is None:
            # The manifest reads the signature; a component keeps the bare schema: no
            # defaults, open to extras.
            schema = build_tool_spec(func, name=component_name).schema
            properties = {
                key: {k: v for k, v in prop.items() if k != "default"}
                for key, prop in schema.get("properties", {}).items()
            }
            required = schema.get("required", [])
            parameters = {"type": "object", "properties": properties, "required": required}
        info = ComponentInfo(component_name, description, dict(parameters))
        return _FunctionComponent(info, func)


class _FunctionComponent(CloudComponent):
    def __init__(self, info: ComponentInfo, func: Callable[..., Any]) -> None:
        self.info = info
        self._func = func

    def execute(self, arguments: dict[str, Any]) -> str:
        result = self._func(**arguments)
        if isinstance(result, str):
            return result
        return json.dumps(result, ensure_ascii=False, default=str)

    def __repr__(self) -> str:
        return f"CloudComponent.from_function({self.info.name!r})"


_CONDITIONS = tuple(
    zip(
        ["晴", "多云", "阴", "小雨", "阵雨", "雷阵雨", "雾"],
        ("sunny", "partly cloudy", "overcast", "light rain", "showers", "thunderstorms", "foggy"),
        strict=True,
    )
)
_WINDS = tuple(
    zip(
        ["北风", "东北风", "东风", "东南风", "南风", "西南风", "西风", "西北风"],
        ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"],
        strict=True,
    )
)


class WeatherQuery(CloudComponent):
    """Fake, deterministic weather for any city (the same inputs always give the same text).

    Args:
        today: Returns today's date, so a ``date`` equal to it reads as "today".
    """

    info = ComponentInfo(
        name="WeatherQuery",
        description=(
            "查询城市的天气：天气状况、气温、湿度和风力（演示用的确定性数据）。"
            "Weather query: the weather of a city today or on a date (deterministic demo data)."
        ),
        parameters={
            "type": "object",
            "properties": {
                "city": {
                    "type": "string",
                    "description": "城市名，中文或英文均可 (city name, in Chinese or English)",
                },
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "温度单位 (temperature unit)",
                },
                "date": {
                    "type": "string",
                    "format": "date",
                    "description": "日期 YYYY-MM-DD，默认今天 (date, today by default)",
                },
            },
            "required": ["city"],
        },
    )

    def __init__(self, *, today: Callable[[], dt.date] = dt.date.today) -> None:
        self._today = today

    def __repr__(self) -> str:
        return "WeatherQuery()"

    def execute(self, arguments: dict[str, Any]) -> str:
        city = str(arguments["city"]).strip()
        if not city:
            raise ComponentInputError("argument 'city' must not be blank")
        day = dt.date.fromisoformat(arguments["date"]) if arguments.get("date") else self._today()
        place = lookup_place(city)
        key = (place.en if place else city).casefold()
        seed = zlib.crc32(f"{key}|{day.isoformat()}".encode())
        celsius = seed % 36 - 5
        condition_zh, condition_en = _CONDITIONS[(seed >> 8) % len(_CONDITIONS)]
        if celsius <= 1 and condition_en in ("light rain", "showers", "thunderstorms"):
            condition_zh, condition_en = "小雪", "light snow"
        humidity = 20 + (seed >> 12) % 76
        wind_zh, wind_en = _WINDS[(seed >> 20) % len(_WINDS)]
        force = 1 + (seed >> 24) % 6
        fahrenheit = arguments.get("unit") == "fahrenheit"
        degrees, symbol = (round(celsius * 9 / 5 + 32), "°F") if fahrenheit else (celsius, "°C")
        is_today = day == self._today()
        if detect_language(city) == "zh":
            when = "今天" if is_today else f" {day.isoformat()}："
            return (
                f"{city}{when}{condition_zh}，气温{degrees}{symbol}，湿度{humidity}%，"
                f"{wind_zh}{force}级。"
            )
        when = "today" if is_today else f"on {day.isoformat()}"
        return (
            f"{city} {when}: {condition_en}, {degrees}{symbol}, humidity {humidity}%, "
            f"{wind_en} wind force {force}."
        )


class Calculator(CloudComponent):
    """Evaluates arithmetic safely: numbers, ``+ - * / // % **``, parentheses; no ``eval``."""

    info = ComponentInfo(
        name="Calculator",
        description=(
            "计算器：计算算术表达式，支持加减乘除、整除、取余、乘方和括号。"
            "Calculator: evaluates an arithmetic expression such as (3 + 4) * 2."
        ),
        parameters={
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "description": "算术表达式 (arithmetic expression), e.g. (3 + 4) * 2",
                },
            },
            "required": ["expression"],
        },
    )

    def __repr__(self) -> str:
        return "Calculator()"

    def execute(self, arguments: dict[str, Any]) -> str:
        expression = str(arguments["expression"]).strip()
        try:
            value = evaluate_arithmetic(expression)
        except ExpressionError as exc:
            raise ComponentInputError(f"cannot evaluate {expression!r}: {exc}") from exc
        return f"{expression} = {format_number(value)}"


def default_components() -> tuple[CloudComponent, ...]:
    """Return new instances of the built-in components: ``WeatherQuery`` and ``Calculator``."""
    return (WeatherQuery(), Calculator())
