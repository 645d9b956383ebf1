"""Named groups of tools, for projects that register tools where they are defined.

As LazyLLM's ``@fc_register("tool")``: a group (``tool_group("weather")``, filled by
``@register_tool("weather")`` or ``@group.tool``) only remembers the functions and their
options; a :class:`~appclient.ToolRegistry` makes them tools (``ToolRegistry([group])``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, TypeVar, cast, overload

from .._core._errors import InvalidRequestError, ManifestError, did_you_mean
from .._core._http_bodies import unexpected_options

if TYPE_CHECKING:
    from typing_extensions import Unpack


F = TypeVar("F", bound=Callable[..., Any])


class AddTool(Protocol):
    """The decorator :meth:`ToolGroup.tool` and :func:`register_tool` return."""

    def __call__(self, func: F, name: str | None = None, /) -> F: ...


class ToolOptions(TypedDict, total=False):
    """The options a group keeps for a tool: :meth:`appclient.ToolRegistry.add`'s of that name."""

    name: str | None
    description: str | None
    timeout: float | None
    requires_approval: bool
    strict: bool
    bind: Mapping[str, Any] | None


@dataclass(frozen=True, repr=False)
class GroupEntry:
    """A function in a group, with its :class:`ToolOptions`."""

    func: Callable[..., Any]
    name: str | None = None
    description: str | None = None
    timeout: float | None = None
    requires_approval: bool = False
    strict: bool = False
    bind: Mapping[str, Any] | None = None

    @property
    def label(self) -> str:
        """The name the entry is known by in its group (its name, or its function's)."""
        if self.name:
            return self.name
        name = getattr(self.func, "__name__", None)
        return name if isinstance(name, str) else type(self.func).__name__

    def __repr__(self) -> str:
        return f"GroupEntry({self.label!r}, requires_approval={self.requires_approval!r})"


class ToolGroup:
    """A named, ordered set of functions to register together.

    Args:
        name: The group's name (free text; what :func:`tool_group` looks up).
    """

    def __init__(self, name: str) -> None:
        if not name:
            raise InvalidRequestError("a tool group needs a non-empty name")
        self.name = name
        self._entries: dict[str, GroupEntry] = {}
        self._lock = threading.Lock()

    @overload
    def tool(self, func: F, /) -> F: ...

    @overload
    def tool(self, func: None = None, /, **options: Unpack[ToolOptions]) -> AddTool: ...

    def tool(self, func: F | None = None, /, **options: Unpack[ToolOptions]) -> F | AddTool:
        """Add a function to the group; usable as ``@group.tool`` or ``@group.tool(...)``.

        Args:
            func: The function (when used without parentheses).
            **options: The tool's :class:`ToolOptions`.

        Returns:
            The function, unchanged, or a decorator that adds it (and takes the tool name as
            a second argument, as LazyLLM's ``fc_register("tool")(func, "name")``).

        Raises:
            ManifestError: The group has a different function under that name (the same
                definition run again, as a notebook cell does, replaces it).
            TypeError: An unknown option.
        """
        if error := unexpected_options(options, ToolOptions.__annotations__, where="tool"):
            raise error

        def add(function: F, alias: str | None = None, /) -> F:
            entry = GroupEntry(function, **options)
            entry = replace(entry, name=alias or entry.name, bind=dict(entry.bind or {}))
            with self._lock:
                taken = self._entries.get(entry.label)
                if taken is not None and _definition(taken.func) != _definition(function):
                    raise ManifestError(
                        f"tool group {self.name!r} already has a tool named {entry.label!r}"
                    )
                self._entries[entry.label] = entry
            return function

        return add(func) if func is not None else cast(AddTool, add)

    def remove(self, name: str) -> None:
        """Take a tool out of the group.

        Raises:
            KeyError: The group has no tool of that name.
        """
        with self._lock:
            del self._entries[name]

    def entries(self) -> tuple[GroupEntry, ...]:
        """Return the group's entries, in the order they were added."""
        with self._lock:
            return tuple(self._entries.values())

    def names(self) -> list[str]:
        """Return the names the group's tools are known by."""
        return [entry.label for entry in self.entries()]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[GroupEntry]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"ToolGroup({self.name!r}, tools={self.names()!r})"


def _definition(func: Callable[..., Any]) -> object:
    """Where a function is defined (module and qualified name), else the object itself."""
    qualname = getattr(func, "__qualname__", None)
    if not isinstance(qualname, str):  # a callable object: only itself is the same tool
        return func
    return getattr(func, "__module__", None), qualname


_GROUPS: dict[str, ToolGroup] = {}
_GROUPS_LOCK = threading.Lock()


def tool_group(name: str) -> ToolGroup:
    """Return the process-wide group of that name (``"tool"`` is LazyLLM's default), made once."""
    with _GROUPS_LOCK:
        return _GROUPS.setdefault(name, ToolGroup(name))


@overload
def register_tool(group: F, /) -> F: ...


@overload
def register_tool(group: str = "tool", **options: Unpack[ToolOptions]) -> AddTool: ...


def register_tool(group: str | F = "tool", **options: Unpack[ToolOptions]) -> F | AddTool:
    """Decorator adding a function to the named process-wide group (LazyLLM's ``fc_register``).

    Usable as ``@register_tool("group", ...)``, ``@register_tool()`` or bare
    ``@register_tool`` (the ``"tool"`` group).

    Args:
        group: The group's name (or, used bare, the function itself).
        **options: The tool's :class:`ToolOptions`.

    Returns:
        A decorator that returns the function unchanged (used bare: the function itself).
    """
    if callable(group):  # bare @register_tool: the "group" is the function being decorated
        return tool_group("tool").tool(group)
    if error := unexpected_options(options, ToolOptions.__annotations__, where="register_tool"):
        raise error
    return tool_group(group).tool(**options)


def find_group_tool(name: str, *, group: str = "tool") -> GroupEntry:
    """Return the entry a process-wide group holds under ``name`` (LazyLLM's tool names)."""
    found = _GROUPS.get(group)
    entries = {entry.label: entry for entry in found.entries()} if found is not None else {}
    if name in entries:
        return entries[name]
    hint = did_you_mean(name, entries)
    known = ", ".join(repr(label) for label in entries) or "none yet"
    raise InvalidRequestError(
        f"no tool named {name!r} was registered with register_tool({group!r}) "
        f"(registered: {known}){hint}; pass the function itself, or register it first"
    )


def resolve_group(group: ToolGroup | str) -> tuple[GroupEntry, ...]:
    """Return the entries of a group given as an object or as a process-wide name."""
    found = group if isinstance(group, ToolGroup) else _GROUPS.get(group)
    if found is None:
        with _GROUPS_LOCK:
            listing = ", ".join(repr(n) for n in sorted(_GROUPS)) or "none yet"
        raise InvalidRequestError(f"no tool group named {group!r} (groups: {listing})")
    return found.entries()
