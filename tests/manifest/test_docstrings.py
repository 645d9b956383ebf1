"""Docstrings in every supported style become descriptions."""

from __future__ import annotations

import pytest

from appclient._manifest import build_tool_spec
from appclient._manifest._docstrings import DocInfo, parse_docstring

GOOGLE = """Get the weather.

    Only Chinese cities are supported.

    Args:
        city (str): The city name.
        days (int, optional): How many days. Defaults to 1.

    Returns:
        str: A weather report.

    Raises:
        ValueError: For an unknown city.

    Examples:
        >>> get_weather("Beijing")
    """

NUMPY = """Get the weather.

Only Chinese cities are supported.

Parameters
----------
city : str
    The city name.
days : int, optional
    How many days.

Returns
-------
str
    A weather report.

Raises
------
ValueError
    For an unknown city.

Examples
--------
>>> get_weather("Beijing")
"""

REST = """Get the weather.

Only Chinese cities are supported.

:param city: The city name.
:type city: str
:param int days: How many days.
:returns: A weather report.
:rtype: str
:raises ValueError: For an unknown city.
"""

EPYDOC = """Get the weather.

Only Chinese cities are supported.

@param city: The city name.
@type city: str
@param days: How many days.
@return: A weather report.
@rtype: str
@raise ValueError: For an unknown city.
"""

STYLES = {"google": GOOGLE, "numpy": NUMPY, "rest": REST, "epydoc": EPYDOC}


@pytest.mark.parametrize("text", STYLES.values(), ids=STYLES.keys())
def test_description_is_summary_and_body_only(text):
    """The description keeps the prose and drops every interface section."""
    assert parse_docstring(text).description == (
        "Get the weather.\n\nOnly Chinese cities are supported."
    )


@pytest.mark.parametrize("text", STYLES.values(), ids=STYLES.keys())
def test_parameter_descriptions(text):
    """Each style yields the parameter descriptions."""
    params = parse_docstring(text).params
    assert params["city"] == "The city name."
    assert params["days"].startswith("How many days.")


@pytest.mark.parametrize("text", STYLES.values(), ids=STYLES.keys())
def test_return_description(text):
    """Each style yields the return description."""
    assert parse_docstring(text).returns == "A weather report."


@pytest.mark.parametrize("text", STYLES.values(), ids=STYLES.keys())
def test_parameter_type_text(text):
    """The documented type of a parameter is kept as text."""
    assert parse_docstring(text).param_types["city"] == "str"


def test_google_docstring_with_a_dashed_line_keeps_its_args():
    """A Google docstring whose body underlines a heading with dashes is still read as Google."""
    text = "Get.\n\nFormat\n------\nOne line.\n\nArgs:\n    city: The city.\n"
    assert parse_docstring(text).params == {"city": "The city."}


def test_google_docstring_with_a_colon_line_keeps_its_args():
    """A Google docstring with a line that starts like a reST field is still read as Google."""
    text = "Get.\n\nArgs:\n    city: The city, see\n        :param docs elsewhere.\n"
    assert parse_docstring(text).params["city"].startswith("The city")


def test_google_note_after_args_stays_in_the_description():
    """A Google ``Note:`` section after ``Args:`` reaches the description, not the void."""
    text = "Get.\n\nArgs:\n    city: The city.\n\nNote:\n    Only Chinese cities.\n"
    parsed = parse_docstring(text)
    assert parsed.description == "Get.\n\nNote: Only Chinese cities."
    assert parsed.params == {"city": "The city."}


def test_numpy_notes_and_warnings_stay_in_the_description():
    """NumPy ``Notes`` and ``Warnings`` sections are prose for the agent: they are kept."""
    text = "Get.\n\nNotes\n-----\nOnly Chinese cities.\n\nWarnings\n--------\nSlow.\n"
    assert parse_docstring(text).description == (
        "Get.\n\nNotes: Only Chinese cities.\n\nWarnings: Slow."
    )


def test_rest_optional_marker_is_not_part_of_the_type():
    """The Sphinx ``:type days: int, optional`` documents the type int."""
    text = "Get.\n\n:param days: How many days.\n:type days: int, optional\n"
    assert parse_docstring(text).param_types["days"] == "int"


@pytest.mark.parametrize("text", STYLES.values(), ids=STYLES.keys())
def test_tool_from_each_style(text):
    """A function documented in any style gets descriptions on its tool."""

    def get_weather(city: str, days: int = 1) -> str:
        return city

    get_weather.__doc__ = text
    spec = build_tool_spec(get_weather)
    assert spec.description == (
        "Get the weather.\n\nOnly Chinese cities are supported.\n\nReturns a weather report."
    )
    assert spec.schema["properties"]["city"]["description"] == "The city name."


def test_no_docstring_is_empty():
    """No docstring gives empty facts."""
    assert parse_docstring(None) == DocInfo()


def test_prose_only_docstring_is_the_description():
    """A docstring without sections is the description, indentation removed."""
    assert parse_docstring("  Line one.\n\n    Line two.\n  ").description == (
        "Line one.\n\nLine two."
    )


def test_call_docstring_wins_and_the_class_docstring_fills_gaps():
    """A callable object: __call__'s docstring wins; its class docstring fills what it omits."""

    class Tool:
        """Tool.

        Args:
            a: A2
            b: B

        Returns:
            R
        """

        def __call__(self, a: int, b: int) -> int:  # noqa: D417 - b is on the class
            """Call it.

            Args:
                a: A1
            """
            return a

    spec = build_tool_spec(Tool())
    described = {p.name: p.description for p in spec.parameters}
    assert (described, spec.return_description) == ({"a": "A1", "b": "B"}, "R")
    assert spec.description == "Call it.\n\nReturns R"
