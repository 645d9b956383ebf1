"""Named tool groups: register tools where they are defined, pick them up by group."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from appclient import InvalidRequestError, ManifestError
from appclient._tools._tool_groups import ToolGroup, register_tool, resolve_group, tool_group


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def mul(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def test_decorator_without_parentheses_returns_the_function() -> None:
    """@group.tool leaves the function an ordinary function."""
    group = ToolGroup("math")
    assert group.tool(add) is add
    assert add(1, 2) == 3
    assert group.names() == ["add"]


def test_decorator_with_options_records_them() -> None:
    """@group.tool(...) keeps the name and options for the registry."""
    group = ToolGroup("math")
    group.tool(name="times", requires_approval=True, timeout=3.0, bind={"b": 2})(mul)
    [entry] = group.entries()
    assert (entry.label, entry.requires_approval, entry.timeout) == ("times", True, 3.0)
    assert dict(entry.bind) == {"b": 2}


def test_entries_keep_their_order() -> None:
    """Tools come out in the order they were added."""
    group = ToolGroup("math")
    group.tool(mul)
    group.tool(add)
    assert group.names() == ["mul", "add"]
    assert [e.func for e in group] == [mul, add]
    assert len(group) == 2


def test_duplicate_names_are_refused() -> None:
    """A group cannot hold two different functions under the same name."""
    group = ToolGroup("math")
    group.tool(add)
    with pytest.raises(ManifestError, match="already has a tool named 'add'"):
        group.tool(name="add")(mul)


def test_redefining_a_function_replaces_its_entry() -> None:
    """Running the defining code again (a notebook cell, a reload) replaces, not refuses."""
    group = ToolGroup("math")
    namespace: dict[str, Any] = {"__name__": "notebook_cell"}
    source = "def area(w: int, h: int) -> int:\n    return w * h\n"
    exec(source, namespace)  # noqa: S102 - the same definition, run twice like a cell
    group.tool(namespace["area"])
    exec(source, namespace)  # noqa: S102 - the same definition, run twice like a cell
    group.tool(namespace["area"])
    assert [entry.func for entry in group] == [namespace["area"]]


def test_remove_takes_a_tool_out() -> None:
    """remove() drops a tool by name."""
    group = ToolGroup("math")
    group.tool(add)
    group.remove("add")
    assert "add" not in group


def test_tool_group_returns_the_same_group_for_a_name() -> None:
    """tool_group(name) is one process-wide group per name."""
    name = _unique("shared")
    assert tool_group(name) is tool_group(name)


def test_register_tool_adds_to_the_named_group() -> None:
    """register_tool(group) works like LazyLLM's fc_register(group)."""
    name = _unique("lazy")
    register_tool(name)(add)
    assert tool_group(name).names() == ["add"]


def test_register_tool_without_parentheses_keeps_the_function() -> None:
    """Bare @register_tool adds to the default "tool" group and leaves the function as is."""

    def register_tool_bare_probe(a: int) -> int:
        """Return a."""
        return a

    try:
        assert register_tool(register_tool_bare_probe) is register_tool_bare_probe
        assert "register_tool_bare_probe" in tool_group("tool")
    finally:
        tool_group("tool").remove("register_tool_bare_probe")


def test_resolve_by_name_and_by_object() -> None:
    """A group is found by its object or by its name."""
    name = _unique("find")
    group = tool_group(name)
    group.tool(add)
    assert resolve_group(name) == resolve_group(group)


def test_resolving_an_unknown_name_is_a_clear_error() -> None:
    """An unknown group name raises, naming it."""
    with pytest.raises(InvalidRequestError, match="no tool group named 'nope-"):
        resolve_group(_unique("nope"))


def test_group_needs_a_name() -> None:
    """An empty group name is refused."""
    with pytest.raises(InvalidRequestError):
        ToolGroup("")


def test_repr_lists_the_tools() -> None:
    """The repr shows the group name and its tools."""
    group = ToolGroup("math")
    group.tool(add)
    assert repr(group) == "ToolGroup('math', tools=['add'])"


def test_an_unknown_option_is_refused_as_python_would() -> None:
    """A misspelt option is a TypeError naming the closest one, as for a plain signature."""
    with pytest.raises(TypeError, match="did you mean 'requires_approval'"):
        register_tool(_unique("typo"), requires_aproval=True)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"tool\(\) got an unexpected keyword argument 'nme'"):
        ToolGroup("math").tool(nme="add")  # type: ignore[call-overload]
