"""The public facades export exactly what they list, sorted; moved names still import, warning."""

from __future__ import annotations

import importlib
import warnings

import pytest

import appclient
import appclient.errors
import appclient.server
import appclient.testing
import appclient.types
from appclient._core import _errors

FACADES = [
    "appclient",
    "appclient.errors",
    "appclient.formats",
    "appclient.mcp",
    "appclient.server",
    "appclient.testing",
    "appclient.types",
]

#: Every name a facade stopped exporting -> the module that exports it now.
MOVED = {
    "appclient": {
        **dict.fromkeys(
            [
                "BadRequestError",
                "ConflictError",
                "ConnectError",
                "ConnectTimeoutError",
                "DeadlineExceededError",
                "NotFoundError",
                "PayloadTooLargeError",
                "PermissionDeniedError",
                "RequestTimeoutError",
                "ResponseDecodeError",
                "ResponseTooLargeError",
                "ServerError",
                "StreamInterruptedError",
                "ToolApprovalDeniedError",
                "ToolArgumentsError",
                "ToolExecutionError",
                "ToolNotFoundError",
                "ToolTimeoutError",
                "UnprocessableEntityError",
            ],
            "appclient.errors",
        ),
        **dict.fromkeys(
            [
                "AsyncRunStream",
                "Event",
                "ParameterSpec",
                "RegisteredTool",
                "RoundRecord",
                "RoundTripResult",
                "RunStream",
                "ToolCallRecord",
                "ToolGroup",
                "ToolSpec",
                "Usage",
            ],
            "appclient.types",
        ),
    },
    "appclient.server": dict.fromkeys(
        ["FaultInjector", "ReferenceServer", "ScriptedAgent"], "appclient.testing"
    ),
    "appclient.testing": dict.fromkeys(
        [
            "Agent",
            "AgentInput",
            "CloudComponent",
            "ComponentInfo",
            "Decision",
            "PlannedCall",
            "ToolResult",
            "Turn",
        ],
        "appclient.server",
    ),
}
MOVED_NAMES = [(old, name, new) for old, names in MOVED.items() for name, new in names.items()]


def _facade(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:  # pragma: no cover - only while a facade is missing
        pytest.fail(f"facade {name} cannot be imported: {exc}")


@pytest.mark.parametrize("name", FACADES)
def test_all_is_sorted_and_unique(name: str) -> None:
    """Every facade's __all__ is sorted and has no repeats."""
    exported = list(_facade(name).__all__)
    assert exported == sorted(exported)
    assert len(exported) == len(set(exported))


@pytest.mark.parametrize("name", FACADES)
def test_every_exported_name_exists(name: str) -> None:
    """Every name in __all__ is an attribute of the facade."""
    module = _facade(name)
    missing = [item for item in module.__all__ if not hasattr(module, item)]
    assert missing == []


@pytest.mark.parametrize("name", FACADES)
def test_public_names_are_all_listed(name: str) -> None:
    """Every public, non-module attribute of a facade is listed in __all__."""
    module = _facade(name)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and not isinstance(value, type(importlib))
        and attr not in {"annotations"}
    }
    assert public - set(module.__all__) == set()


def test_no_name_is_exported_by_both_the_server_and_testing() -> None:
    """The agent API lives in appclient.server, the test helpers in appclient.testing."""
    assert set(appclient.server.__all__) & set(appclient.testing.__all__) == set()


def test_the_top_level_is_the_names_users_write() -> None:
    """The top level keeps the common errors only; appclient.errors has the whole tree."""
    tree = {
        name
        for name, value in vars(_errors).items()
        if isinstance(value, type) and issubclass(value, _errors.AppClientError)
    }
    assert set(appclient.errors.__all__) == tree
    assert set(appclient.__all__) & tree == {
        "APIStatusError",
        "AppClientError",
        "AuthenticationError",
        "InvalidRequestError",
        "ManifestError",
        "MaxRoundsExceededError",
        "RateLimitError",
        "RunError",
        "ToolError",
        "TransportError",
    }
    assert len(appclient.__all__) == 45


@pytest.mark.parametrize(("old", "name", "new"), MOVED_NAMES)
def test_a_moved_name_warns_and_is_the_same_object(old: str, name: str, new: str) -> None:
    """The old path still works for one release, warning with the new import path."""
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"importing {name} from {old} ") as caught:
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)
    assert f"from {new} import {name}" in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the code that asked, not at appclient


@pytest.mark.parametrize(("old", "name", "new"), MOVED_NAMES)
def test_a_moved_name_is_listed_where_it_lives_now(old: str, name: str, new: str) -> None:
    """Each moved name is exported by its new home and no longer by its old one."""
    assert name in importlib.import_module(new).__all__
    assert name not in importlib.import_module(old).__all__


def test_from_import_of_a_moved_name_warns() -> None:
    """``from appclient import ServerError`` (the common spelling) warns too."""
    with pytest.warns(DeprecationWarning, match=r"from appclient\.errors import ServerError"):
        from appclient import ServerError
    assert ServerError is appclient.errors.ServerError


@pytest.mark.parametrize("name", FACADES)
def test_an_unknown_name_is_an_attribute_error(name: str) -> None:
    """Names that never existed fail as usual, without a warning."""
    module = _facade(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no_such_name"):
            module.no_such_name  # noqa: B018


def test_star_import_brings_no_moved_name() -> None:
    """``from appclient import *`` follows __all__, so it warns about nothing."""
    namespace: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec("from appclient import *", namespace)  # noqa: S102
    assert "ServerError" not in namespace
    assert "AppClient" in namespace
