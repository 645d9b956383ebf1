"""Every generated schema is valid JSON Schema and accepts only what validation accepts.

Arguments are drawn from each schema with hypothesis-jsonschema and must pass the tool's own
``validate_arguments``: the schema the agent reads and the validation the program runs agree.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator

from appclient._manifest import build_tool_spec

from .samples import PROPERTY_FUNCTIONS, recursive
from .schema_strategies import arguments_from_schema

_SETTINGS = settings(
    max_examples=20,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
_ALL = [*PROPERTY_FUNCTIONS, recursive]


@pytest.mark.parametrize("strict", [False, True], ids=["lax", "strict"])
@pytest.mark.parametrize("func", _ALL, ids=lambda f: f.__name__)
def test_schema_passes_the_meta_schema(func, strict):
    """The parameters schema is valid Draft 2020-12 JSON Schema."""
    Draft202012Validator.check_schema(build_tool_spec(func, strict=strict).schema)


@pytest.mark.parametrize("strict", [False, True], ids=["lax", "strict"])
@pytest.mark.parametrize("func", PROPERTY_FUNCTIONS, ids=lambda f: f.__name__)
def test_arguments_drawn_from_the_schema_validate(func, strict):
    """Arguments generated from the schema are accepted by validate_arguments."""
    spec = build_tool_spec(func, strict=strict)
    accepted: list[bool] = []

    @_SETTINGS
    @given(arguments_from_schema(spec.schema))
    def check(arguments):
        spec.validate_arguments(arguments)
        accepted.append(True)

    check()
    assert accepted
