"""Precedence: which source wins for names, descriptions and types."""

from __future__ import annotations

import datetime
import json
from typing import Annotated

from pydantic import Field

from appclient._manifest import build_tool_spec, manifest, manifest_parameter
from appclient._manifest._building import tool_description
from appclient._manifest._decorators import ManifestOverrides
from appclient._manifest._docstrings import DocInfo

from .samples import get_current_weather


def described(
    field_only: Annotated[int, Field(description="from Field")],
    annotated_only: Annotated[int, "from Annotated"],
    doc_only: int,
    decorated: Annotated[int, "from Annotated"],
) -> None:
    """Descriptions from every source.

    Args:
        field_only: from the docstring
        annotated_only: from the docstring
        doc_only: from the docstring
        decorated: from the docstring
    """


manifest_parameter(name="decorated", description="from the decorator")(described)


def test_explicit_description_beats_decorator_and_docstring():
    """description= wins over @manifest and the docstring."""

    @manifest(description="From the decorator.")
    def tool(x: int) -> None:
        """From the docstring."""

    assert build_tool_spec(tool).description == "From the decorator."
    assert build_tool_spec(tool, description="Explicit.").description == "Explicit."


def test_parameter_description_precedence():
    """Decorator > Field/Annotated > docstring for parameter descriptions."""
    properties = build_tool_spec(described).schema["properties"]
    assert {name: p["description"] for name, p in properties.items()} == {
        "field_only": "from Field",
        "annotated_only": "from Annotated",
        "doc_only": "from the docstring",
        "decorated": "from the decorator",
    }


def test_signature_type_beats_docstring_type():
    """The seed's unit is typed str in the signature and int in the docstring: str wins."""
    assert build_tool_spec(get_current_weather).schema["properties"]["unit"]["type"] == "string"


def test_decorator_type_beats_annotation():
    """@manifest_parameter(type=...) replaces the annotation."""

    @manifest_parameter(name="count", type=int)
    def f(count: str) -> None:
        """F."""

    assert build_tool_spec(f).schema["properties"]["count"]["type"] == "integer"


def test_docstring_type_beats_default_type():
    """For an unannotated parameter, the docstring's type wins over the default's type."""

    def f(ratio=1) -> None:
        """F.

        Args:
            ratio (float): A ratio.
        """

    assert build_tool_spec(f).schema["properties"]["ratio"]["type"] == "number"


def test_field_default_description_beats_docstring():
    """A Field given as the default describes the parameter over the docstring."""

    def f(limit: int = Field(5, description="from Field")) -> None:
        """F.

        Args:
            limit: from the docstring
        """

    assert build_tool_spec(f).schema["properties"]["limit"]["description"] == "from Field"


def test_return_line_is_not_repeated():
    """A description that already states the return description is not extended."""
    doc = DocInfo(description="Adds. Returns the sum.", returns="the sum")
    text = tool_description(None, ManifestOverrides(), doc)
    assert (text.description, text.returns) == ("Adds. Returns the sum.", "the sum")


def test_return_line_follows_an_explicit_description():
    """An explicit description still gets the return line, so the agent reads it."""
    doc = DocInfo(description="Doc.", returns="The sum.")
    text = tool_description("Explicit.", ManifestOverrides(), doc)
    assert (text.description, text.returns) == ("Explicit.\n\nReturns the sum.", "The sum.")


def test_manifest_description_beats_docstring_but_not_explicit():
    """@manifest(description=...) beats the docstring, explicit description= beats both."""

    @manifest(description="decorator")
    def f() -> None:
        """Docstring."""

    assert build_tool_spec(f).description == "decorator"
    assert build_tool_spec(f, description="explicit").description == "explicit"


def test_decorator_examples_become_json():
    """A date in examples= is written as JSON text, so the tool goes through json.dumps."""

    @manifest_parameter(name="day", examples=[datetime.date(2024, 5, 1)])
    def plan(day: datetime.date) -> None:
        """Plan a day."""

    spec = build_tool_spec(plan)
    assert '"examples": ["2024-05-01"]' in json.dumps(spec.to_tool())
