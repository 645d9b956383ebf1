"""Tool return values become output text: strings as they are, everything else as JSON."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
import uuid
from pathlib import PurePosixPath
from typing import Any

import pytest
from pydantic import BaseModel

from appclient._tools._tool_results import ResultSerializationError, serialize_result


@dataclasses.dataclass
class Weather:
    """A dataclass result."""

    city: str
    temperature: float


class Forecast(BaseModel):
    """A pydantic result holding dataclasses."""

    city: str
    days: list[Weather]


class Unit(enum.Enum):
    """An enum result."""

    CELSIUS = "celsius"


class Readable:
    """An object whose own __str__ is its readable form."""

    def __str__(self) -> str:
        return "晴，25度"


class Opaque:
    """An object with no text form but its repr."""


def _chunks() -> Any:
    yield "北京"
    yield "晴"


CASES: list[tuple[str, Any, str]] = [
    ("str as is", "北京今天25度", "北京今天25度"),
    ("str that looks like json stays", '{"a": 1}', '{"a": 1}'),
    ("dict non-ascii kept", {"city": "北京"}, '{"city": "北京"}'),
    ("list", [1, "二"], '[1, "二"]'),
    ("tuple", (1, 2), "[1, 2]"),
    ("dataclass", Weather("北京", 25.0), '{"city": "北京", "temperature": 25.0}'),
    (
        "pydantic model with nested dataclass",
        Forecast(city="上海", days=[Weather("上海", 30.5)]),
        '{"city": "上海", "days": [{"city": "上海", "temperature": 30.5}]}',
    ),
    ("list of dataclasses", [Weather("a", 1.0)], '[{"city": "a", "temperature": 1.0}]'),
    ("None", None, "null"),
    ("True", True, "true"),
    ("int", 25, "25"),
    ("float", 2.5, "2.5"),
    ("enum member", Unit.CELSIUS, "celsius"),
    ("enum inside dict", {"unit": Unit.CELSIUS}, '{"unit": "celsius"}'),
    ("date", datetime.date(2024, 9, 23), "2024-09-23"),
    (
        "datetime in dict",
        {"at": datetime.datetime(2024, 1, 2, 3, 4)},
        '{"at": "2024-01-02T03:04:00"}',
    ),
    ("uuid", uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    ("path", PurePosixPath("/srv/a"), "/srv/a"),
    ("decimal", {"price": decimal.Decimal("1.50")}, '{"price": "1.50"}'),
    ("utf-8 bytes", "北京".encode(), "北京"),
    ("binary bytes", b"\xff\x00", "base64:/wA="),
    ("generator of text", _chunks(), "北京晴"),
    ("iterator of numbers", iter([1, 2]), "[1, 2]"),
    ("range", range(3), "[0, 1, 2]"),
    ("dict keys", {"a": 1, "b": 2}.keys(), '["a", "b"]'),
    ("dict values", {"a": 1}.values(), "[1]"),
    ("object with own __str__", Readable(), "晴，25度"),
    ("object with own __str__ nested", {"w": Readable()}, '{"w": "晴，25度"}'),
]


@pytest.mark.parametrize(("case", "value", "expected"), CASES, ids=[c[0] for c in CASES])
def test_values_serialise_to_the_expected_text(case: str, value: Any, expected: str) -> None:
    """Each kind of return value becomes the expected output text."""
    assert serialize_result(value) == expected


@pytest.mark.parametrize("value", [Opaque(), {"x": Opaque()}, ValueError("boom")])
def test_objects_without_a_text_form_are_refused(value: Any) -> None:
    """An object whose only text form is a repr is refused with a message naming its type."""
    with pytest.raises(ResultSerializationError, match="has no JSON form"):
        serialize_result(value)


@pytest.mark.parametrize("value", [float("nan"), {"t": float("inf")}, [float("-inf")]])
def test_non_finite_numbers_become_json_null(value: Any) -> None:
    """NaN and infinities, which JSON cannot hold, are sent as null so the output stays JSON."""
    decoded = json.loads(serialize_result(value), parse_constant=_refuse)
    assert decoded in (None, {"t": None}, [None])


def _refuse(constant: str) -> Any:
    raise AssertionError(f"{constant} is not JSON")


@pytest.mark.parametrize("value", [{"raw": b"\xff\x00"}, {frozenset({1}): "set as key"}])
def test_unwritable_nested_values_are_a_serialization_error(value: Any) -> None:
    """Nested binary bytes or unusable keys are refused as a result problem, not a crash."""
    with pytest.raises(ResultSerializationError, match="cannot be written as JSON"):
        serialize_result(value)


def test_python_repr_never_appears() -> None:
    """A dataclass never comes out as its repr."""
    assert "Weather(" not in serialize_result(Weather("北京", 1.0))
