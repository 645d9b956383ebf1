"""Sample types and functions shared by the manifest tests.

Written with postponed annotations on purpose: every annotation here is a string that the
manifest builder has to evaluate in this module.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import pathlib
import typing
import uuid
from typing import Annotated, Any, Literal, Optional, Union

import typing_extensions
from pydantic import BaseModel, Field


class Unit(str, enum.Enum):
    """Temperature unit."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Level(enum.IntEnum):
    """Priority level."""

    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    """A plain enum with values of two kinds."""

    RED = "red"
    ONE = 1


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str = "Beijing"


@dataclasses.dataclass
class Point:
    """A point on a grid."""

    x: int
    y: int = 0


class Movie(typing.TypedDict):
    """A movie (a typing.TypedDict, refused by pydantic before Python 3.12)."""

    title: str
    year: int


class MoviePatch(typing.TypedDict, total=False):
    """Fields to change in a movie; all optional."""

    title: str
    year: int


class Rating(typing_extensions.TypedDict):
    """A rating with one optional field."""

    stars: int
    comment: typing_extensions.NotRequired[str]


class Node(BaseModel):
    """A tree node (recursive)."""

    value: int
    children: list[Node] = []


class Order(BaseModel):
    """An order with nested models."""

    address: Address
    points: list[Point] = []


def get_current_weather(location: str, unit: str) -> str:
    """获取指定中国城市的当前天气信息。

    仅支持中国城市的天气查询。参数 `location` 为中国城市名称，其他国家城市不支持天气查询。

    Args:
        location (str): 城市名，例如："北京"。
        unit (int): 温度单位，支持 "celsius" 或 "fahrenheit"。

    Returns:
        str: 天气情况描述
    """  # noqa: D415 - the seed's docstring, verbatim
    return "北京今天25度"


def scalars(
    text: str,
    count: int,
    ratio: float,
    flag: bool,
    nothing: None,
    maybe: Optional[int],  # noqa: UP045 - the typing spelling is what is under test
    either: int | None,
    union: Union[int, str],  # noqa: UP007 - the typing spelling is what is under test
    choice: Literal["a", "b"],
    anything: Any,
) -> None:
    """Scalar types, unions and literals."""


def enums(unit: Unit, level: Level = Level.LOW, mixed: Mixed = Mixed.RED) -> None:
    """String, integer and plain enums, with defaults."""


def containers(
    names: list[str],
    tags: set[int],
    pair: tuple[int, str],
    many: tuple[float, ...],
    scores: dict[str, float],
) -> None:
    """Lists, sets, tuples and dicts."""


def structured(
    address: Address,
    point: Point,
    movie: Movie,
    patch: MoviePatch,
    rating: Rating,
    order: Optional[Order] = None,  # noqa: UP045 - the typing spelling is what is under test
) -> None:
    """Models, dataclasses and TypedDicts."""


def annotated(
    city: Annotated[str, "The city to look up."],
    days: Annotated[int, Field(ge=1, le=7, description="How many days.")] = 1,
) -> None:
    """Annotated descriptions and Field constraints."""


def special(
    when: datetime.datetime,
    day: datetime.date,
    at: datetime.time,
    span: datetime.timedelta,
    ident: uuid.UUID,
    path: pathlib.Path,
    amount: decimal.Decimal,
    blob: bytes,
) -> None:
    """Types with a string format."""


def recursive(tree: Node) -> int:
    """Sum a tree."""
    return tree.value


def defaults(
    limit: int = 10,
    ratio: float = 0.5,
    name: str = "x",
    flag: bool = False,
    tags: list[str] | None = None,
    when: datetime.date = datetime.date(2024, 1, 1),
) -> None:
    """Parameters with defaults of several kinds."""


def untyped(limit=10, label="x", nothing=None, whatever=None, mystery=None):
    """Unannotated parameters.

    Args:
        limit: Typed from the default.
        label: Typed from the default.
        nothing (int): Typed from the docstring.
        whatever: No evidence at all.
        mystery (list of things): Prose, not a type.
    """


#: Functions whose generated arguments must validate (the property test walks them).
PROPERTY_FUNCTIONS = (
    get_current_weather,
    scalars,
    enums,
    containers,
    structured,
    annotated,
    special,
    defaults,
    untyped,
)
