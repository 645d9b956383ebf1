"""Callable kinds: what the agent sees of functions, methods, objects and partials."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from appclient import ManifestError
from appclient._manifest import build_tool_spec
from appclient._manifest._signature import describe_signature, resolve_callable


def properties(func: Any, **options: Any) -> list[str]:
    """The property names of the tool built from ``func``."""
    return list(build_tool_spec(func, **options).schema["properties"])


def plain(city: str, days: int = 1) -> str:
    """Forecast for a city."""
    return city


async def fetch(url: str) -> str:
    """Fetch a page."""
    return url


def countdown(start: int):
    """Count down."""
    yield start


async def stream(count: int):
    """Stream numbers."""
    yield count


class Weather:
    """Weather tools."""

    def forecast(self, city: str) -> str:
        """Forecast."""
        return city

    @classmethod
    def units(cls, system: str) -> list[str]:
        """Units of a system."""
        return [system]

    @staticmethod
    def convert(celsius: float) -> float:
        """Celsius to Fahrenheit."""
        return celsius * 9 / 5 + 32


class Greeter:
    """Greets people by name.

    Args:
        name: Who to greet.
    """

    def __call__(self, name: str, excited: bool = False) -> str:  # noqa: D417 - on the class
        """Say hello.

        Args:
            excited: Add an exclamation mark.
        """
        return f"hello {name}" + ("!" if excited else "")


def search(api_key: str, query: str, *, limit: int = 5) -> list[str]:
    """Search the web."""
    return [query] * limit


def shapes(a: int, b: int = 2, /, c: int = 3, *args: int, d: int, **kwargs: str) -> None:
    """Every parameter kind."""


def logged(func: Any) -> Any:
    """A decorator that keeps the signature through functools.wraps."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


@logged
def wrapped(city: str) -> str:
    """A wrapped function."""
    return city


def test_plain_function():
    """A function's parameters become properties."""
    assert properties(plain) == ["city", "days"]


def test_async_function_is_marked_async():
    """An async function is described like any other and flagged is_async."""
    spec = build_tool_spec(fetch)
    assert spec.is_async
    assert list(spec.schema["properties"]) == ["url"]


def test_generator_is_marked_generator():
    """A generator function is flagged is_generator."""
    spec = build_tool_spec(countdown)
    assert spec.is_generator
    assert not spec.is_async


def test_async_generator_is_marked():
    """An async generator function is flagged is_async_generator."""
    assert build_tool_spec(stream).is_async_generator


def test_bound_method_hides_self():
    """A bound method has no self property and its name is the method's."""
    spec = build_tool_spec(Weather().forecast)
    assert (spec.name, properties(Weather().forecast)) == ("forecast", ["city"])
    assert "self" in spec.hidden


def test_method_through_its_class_hides_self_from_the_agent():
    """Weather.forecast (a function whose first parameter is self) shows no self property."""
    assert properties(Weather.forecast) == ["city"]


def test_method_through_its_class_takes_self_as_a_bound_value():
    """The program can still supply self to Weather.forecast with bound=."""
    station = Weather()
    spec = build_tool_spec(Weather.forecast, bound={"self": station})
    args, kwargs = spec.validate_arguments({"city": "Beijing"})
    assert (args, kwargs) == ((), {"self": station, "city": "Beijing"})


def test_classmethod_hides_cls():
    """A classmethod reached through its class hides cls."""
    assert properties(Weather.units) == ["system"]


def test_staticmethod_through_class_and_instance():
    """A staticmethod is a plain function, through the class or an instance."""
    assert properties(Weather.convert) == properties(Weather().convert) == ["celsius"]


def test_raw_staticmethod_object():
    """A staticmethod object taken from the class dict is unwrapped."""
    assert properties(vars(Weather)["convert"]) == ["celsius"]


def test_unbound_classmethod_object_is_an_error():
    """A raw classmethod object cannot be called, so it is refused."""
    with pytest.raises(ManifestError, match="classmethod"):
        build_tool_spec(vars(Weather)["units"])


def test_callable_object_uses_call_signature_and_docstring():
    """An object with __call__ is described by __call__'s parameters and docstring."""
    spec = build_tool_spec(Greeter())
    assert spec.name == "Greeter"
    assert spec.description == "Say hello."
    described = {p.name: p.description for p in spec.parameters}
    assert described == {"name": "Who to greet.", "excited": "Add an exclamation mark."}


def test_partial_hides_bound_positional_argument():
    """functools.partial's positional arguments are hidden from the agent."""
    spec = build_tool_spec(functools.partial(search, "secret-key"))
    assert properties(functools.partial(search, "secret-key")) == ["query", "limit"]
    assert spec.name == "search"


def test_partial_hides_bound_keyword_argument():
    """functools.partial's keywords are hidden too, even though Python would allow overriding."""
    assert properties(functools.partial(search, api_key="k", limit=3)) == ["query"]


def test_partial_bound_argument_is_refused_from_the_agent():
    """An argument for a partial-bound parameter is an error, never an override."""
    spec = build_tool_spec(functools.partial(search, api_key="k"))
    with pytest.raises(Exception, match="api_key"):
        spec.validate_arguments({"query": "x", "api_key": "mine"})


def test_wrapped_function_uses_the_original_signature():
    """A functools.wraps wrapper is described by the function it wraps."""
    spec = build_tool_spec(wrapped)
    assert (spec.name, properties(wrapped), spec.description) == (
        "wrapped",
        ["city"],
        "A wrapped function.",
    )


def test_star_args_and_kwargs_are_not_properties():
    """*args and **kwargs never become properties, let alone required ones."""
    schema = build_tool_spec(shapes).schema
    assert list(schema["properties"]) == ["a", "b", "c", "d"]
    assert schema["required"] == ["a", "d"]


def test_kwargs_type_describes_additional_properties():
    """An annotated **kwargs opens the object for extra keys of that type."""
    assert build_tool_spec(shapes).schema["additionalProperties"] == {"type": "string"}


def test_lambda_needs_a_name():
    """A lambda without an explicit name is refused with a message saying so."""
    with pytest.raises(ManifestError, match="lambda"):
        build_tool_spec(lambda x: x)


def test_lambda_with_a_name_works():
    """A lambda with an explicit name becomes a tool."""
    assert build_tool_spec(lambda x: x, name="identity").name == "identity"


def test_class_is_refused():
    """A class is not a tool; the error says what to pass instead."""
    with pytest.raises(ManifestError, match="instance with __call__"):
        build_tool_spec(Weather)


def test_non_callable_is_refused():
    """Something that is not callable cannot become a tool."""
    with pytest.raises(ManifestError, match="not callable"):
        build_tool_spec(42)  # type: ignore[arg-type]


def test_resolve_partial_of_method_counts_both():
    """A partial over a bound method skips self and the partial's argument."""
    target = resolve_callable(functools.partial(Weather().forecast, "Beijing"))
    assert target.skip == 2


def test_describe_signature_marks_preset_parameters():
    """describe_signature marks self as preset and evaluates annotations."""
    info = describe_signature(resolve_callable(Weather().forecast))
    assert [(p.name, p.name in info.preset) for p in info.parameters] == [
        ("self", True),
        ("city", False),
    ]
    assert info.parameters[1].annotation is str
    assert info.return_annotation is str


def test_callable_object_without_a_call_docstring_uses_its_class_docstring():
    """When __call__ says nothing, the class docstring describes the tool."""

    class Counter:
        """Counts words in a text."""

        def __call__(self, text: str) -> int:
            return len(text.split())

    assert build_tool_spec(Counter()).description == "Counts words in a text."


def test_the_return_description_is_a_sentence_not_a_heading():
    """A docstring's Returns section reaches the description in plain words, no 'Returns:'."""

    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: The first.
            b: The second.

        Returns:
            The sum of both.
        """
        return a + b

    description = build_tool_spec(add).description
    assert description == "Add two numbers.\n\nReturns the sum of both."
    assert "Returns:" not in description
