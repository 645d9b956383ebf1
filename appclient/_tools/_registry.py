"""The registry of local tools: what the agent may call, and how to call it.

It collects functions, toolkits (objects whose ``@manifest`` methods are tools named
``Class__method``), groups and MCP servers, gives the ``tools`` list of a run, and hands the
agent's calls to :mod:`~appclient._tools._dispatch`.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .._core._constants import DEFAULT_TOOL_TIMEOUT, DEFAULT_TOOL_WORKERS, TOOLKIT_NAME_SEPARATOR
from .._core._errors import InvalidRequestError, ManifestError, wrong_kind
from .._core._models import Tool
from .._manifest import (
    Manifest,
    build_tool_spec,
    check_tool_name,
    default_tool_name,
    get_overrides,
)
from .._manifest._coerce import is_one, listed
from ._dispatch import ApprovalCallback, Dispatcher
from ._execution import ToolRunner
from ._mcp import MCPServer, protocol_names, schema_check
from ._registered_tool import (
    RegisteredTool,
    advertised_tool,
    partial_values,
    secret_texts,
    tool_model,
)
from ._tool_groups import ToolGroup, ToolOptions, find_group_tool, resolve_group
from ._tool_results import serialize_result

if TYPE_CHECKING:
    from typing_extensions import Unpack


class _BuildOptions(ToolOptions, total=False):
    """What :meth:`ToolRegistry._build` takes besides a group's options."""

    allow_extra: bool
    tool: Mapping[str, Any] | Tool | None
    enabled: bool
    check: Callable[[Mapping[str, Any]], list[tuple[str, str]]] | None
    toolkit: object | None
    method: str | None


class ToolRegistry(Dispatcher):
    """Local tools the agent may call, and the dispatcher that runs their calls.

    Example:
        >>> registry = ToolRegistry([get_weather])
        >>> registry.add(search, api_key=os.environ["SEARCH_KEY"])   # hidden, never echoed
        >>> msg = client.run(conversation_id, query, tools=registry.tools())
        >>> outputs = registry.dispatch(msg)                         # list[ToolOutput]

    Args:
        tools: Functions, toolkit objects, groups or registries to add (a list, or one).
        timeout: Default seconds a call may take, 60 when omitted (``None``, ``math.inf``: no
            limit). A late call is sent to the agent as a timeout error; the function runs on.
        approve: Callback asked before a tool marked ``requires_approval`` runs.
        max_workers: Calls of one round running at the same time.
        serialize: Turns a return value into output text (default: str as is, else JSON).
        clock: Returns seconds; used for the durations in records.
    """

    def __init__(
        self,
        tools: Iterable[Any] | Any = (),
        *,
        timeout: float | None = DEFAULT_TOOL_TIMEOUT,
        approve: ApprovalCallback | None = None,
        max_workers: int = DEFAULT_TOOL_WORKERS,
        serialize: Callable[[Any], str] = serialize_result,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.timeout = timeout
        self.approve = approve
        self.serialize = serialize
        self.runner = ToolRunner(max_workers=max_workers, clock=clock)
        self._tools: dict[str, RegisteredTool] = {}
        self._servers: list[MCPServer] = []
        self._lock = threading.Lock()
        self.extend(tools)

    def add(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        requires_approval: bool = False,
        strict: bool = False,
        allow_extra: bool = False,
        tool: Mapping[str, Any] | Tool | None = None,
        enable: bool = True,
        bind: Mapping[str, Any] | None = None,
        **bound: Any,
    ) -> RegisteredTool:
        """Register a function (or any callable) as a tool.

        Args:
            func: The callable; its signature and docstring (or ``@manifest``) describe it.
            name: The tool name (default: the function's or its ``@manifest`` name).
            description: The tool description (default: from the docstring).
            timeout: Seconds a call may take (default: the registry's; ``math.inf``: none).
            requires_approval: Ask the approval callback before each call.
            strict: Build the schema in strict mode (every property required, nullable).
            allow_extra: Drop argument keys the function does not know instead of refusing.
            tool: A ready tool dict (raw JSON Schema) to advertise instead of the generated
                one; the function still validates the arguments.
            enable: ``False`` registers it switched off (not advertised, unknown to the
                agent) until :meth:`set_enabled`.
            bind: Parameter values to supply, for names that clash with these options.
            **bound: Parameter values to supply (API keys, clients...): hidden from the
                schema, refused from the agent, redacted from every text.

        Returns:
            The registered tool.

        Raises:
            ManifestError: The name is invalid or taken, a bound name is not a parameter, or
                the callable cannot become a tool.
        """
        entry = self._build(
            func,
            name=name,
            description=description,
            timeout=timeout,
            requires_approval=requires_approval,
            strict=strict,
            allow_extra=allow_extra,
            tool=tool,
            bind={**(bind or {}), **bound},
            enabled=enable,
        )
        self._store_all([entry])
        return entry

    def _build(self, func: Callable[..., Any], **options: Unpack[_BuildOptions]) -> RegisteredTool:
        """Build a registry entry (not yet stored) from ``func`` and the options."""
        values = dict(options.get("bind") or {})
        name, tool = options.get("name"), options.get("tool")
        if tool is not None:
            tool = tool_model(tool)  # a clear ManifestError for anything else
            if name is None and tool.function is not None:
                name = tool.function.name
        spec = build_tool_spec(
            func,
            name=name,
            description=options.get("description"),
            strict=options.get("strict", False),
            bound=values,
            allow_extra=options.get("allow_extra", False),
        )
        return RegisteredTool(
            name=check_tool_name(spec.name),
            spec=spec,
            func=func,
            tool=advertised_tool(tool, spec.name) if tool is not None else spec.to_tool(),
            timeout=self._timeout(options.get("timeout")),
            bound=values,
            secrets=secret_texts([*values.values(), *partial_values(func)]),
            requires_approval=options.get("requires_approval", False),
            enabled=options.get("enabled", True),
            check=options.get("check"),
            toolkit=options.get("toolkit"),
            method=options.get("method"),
        )

    def add_mcp(
        self, server: MCPServer, *, requires_approval: bool = False
    ) -> list[RegisteredTool]:
        """Start an MCP server (if needed) and register its tools; it closes with the registry.

        Each tool keeps its JSON Schema under a :func:`~appclient.mcp.protocol_names` name;
        its calls time out after ``server.timeout``.

        Args:
            server: An :class:`~appclient.mcp.MCPServerStdio` or ``MCPServerHTTP``.
            requires_approval: Ask the approval callback before each call of its tools.

        Returns:
            The registered tools, in the server's order.

        Raises:
            MCPConnectionError: The server did not start or list its tools.
            InvalidRequestError: The ``mcp`` package is not installed.
        """
        mcp_tools = server.start()
        names = protocol_names(
            [t.name for t in mcp_tools], taken=self.names(), prefix=server.prefix
        )
        entries = []
        for advertised, mcp_tool in zip(names, mcp_tools, strict=True):  # in listing order
            schema = dict(mcp_tool.inputSchema or {"type": "object", "properties": {}})
            description = mcp_tool.description or ""
            function = {"name": advertised, "description": description, "parameters": schema}
            entries.append(
                self._build(
                    server.caller(mcp_tool.name),
                    tool={"type": "function", "function": function},
                    # No second timer: the server times its calls and ends a hung server.
                    timeout=math.inf,
                    requires_approval=requires_approval,
                    allow_extra=True,
                    check=schema_check(schema),
                )
            )
        self._store_all(entries)
        server.tool_names.update(names)
        with self._lock:
            self._servers.append(server)
        return entries

    def close(self) -> None:
        """Stop the MCP servers this registry started (their tools stay registered)."""
        with self._lock:
            servers, self._servers = self._servers, []
        for server in servers:
            server.close()

    def __enter__(self) -> ToolRegistry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add_toolkit(
        self,
        toolkit: object,
        *,
        prefix: str | None = None,
        timeout: float | None = None,
        requires_approval: bool = False,
        bind: Mapping[str, Any] | None = None,
        **bound: Any,
    ) -> list[RegisteredTool]:
        """Register every ``@manifest`` method of an object as a tool named ``Prefix__method``.

        Args:
            toolkit: An instance whose methods decorated with ``@manifest`` are the tools.
            prefix: The name before ``__`` (default: the class name).
            timeout: Seconds a call may take (default: the registry's).
            requires_approval: Ask the approval callback before each call of any method.
            bind: Parameter values to supply, for names that clash with these options.
            **bound: Values supplied to every method that has a parameter of that name.

        Returns:
            The registered tools, in the class's method order.

        Raises:
            ManifestError: The object has no ``@manifest`` methods, a name is too long or
                taken, or a bound name is a parameter of none of the methods.
        """
        kind = type(toolkit).__name__
        if isinstance(toolkit, type):
            raise ManifestError(f"pass an instance of {toolkit.__name__}, not the class itself")
        methods = [(attr, getattr(toolkit, attr)) for attr in _tool_method_names(type(toolkit))]
        if not methods:
            raise ManifestError(f"{kind} has no methods decorated with @manifest to use as tools")
        owner = prefix if prefix is not None else kind
        values = {**(bind or {}), **bound}
        unused = set(values)
        entries: list[RegisteredTool] = []
        for attr, method in methods:
            params = inspect.signature(method).parameters
            unused -= set(params)
            full = check_tool_name(f"{owner}{TOOLKIT_NAME_SEPARATOR}{default_tool_name(method)}")
            entries.append(
                self._build(
                    method,
                    name=full,
                    timeout=timeout,
                    requires_approval=requires_approval,
                    bind={k: v for k, v in values.items() if k in params},
                    toolkit=toolkit,
                    method=attr,
                )
            )
        if unused:
            raise ManifestError(
                f"cannot bind {', '.join(map(repr, sorted(unused)))}: no tool method of "
                f"{kind} has such a parameter"
            )
        self._store_all(entries)
        return entries

    def add_group(self, group: ToolGroup | str) -> list[RegisteredTool]:
        """Register every tool of a group (a :class:`ToolGroup` or the name of one).

        Args:
            group: The group, or the name given to :func:`appclient.tool_group`.

        Returns:
            The registered tools, in the group's order.
        """
        entries = [self._build(**vars(entry)) for entry in resolve_group(group)]
        self._store_all(entries)
        return entries

    def extend(self, items: Iterable[Any] | Any) -> None:
        """Add functions, toolkit objects, groups and other registries (a list, or just one).

        A string names a function of the ``"tool"`` group (:func:`register_tool`, as
        LazyLLM's ``tools=["get_current_weather"]``); an object with a ``run`` method
        (Lagent's ``BaseAction``) is that method, named after the object's class.

        Raises:
            InvalidRequestError: An item is a tool dict without a function, a name no group
                knows, or unsupported (the error says which: ``tools[2]``).
        """
        # A group iterates over its entries, yet is one item (a registry is, being callable).
        if is_one(items) or isinstance(items, ToolGroup):
            items = [items]
        for where, item in listed(items, where="tools", what="tools"):
            if isinstance(item, ToolRegistry):
                self._store_all(list(item))
            elif isinstance(item, MCPServer):
                self.add_mcp(item)
            elif isinstance(item, ToolGroup):
                self.add_group(item)
            elif isinstance(item, Manifest) and item.func is not None:
                self.add(item.func, tool=item)  # Manifest.from_function keeps its function
            elif isinstance(item, str):
                self._store_all([self._build(**vars(find_group_tool(item)))])
            elif isinstance(item, (Mapping, Tool)):
                raise InvalidRequestError(
                    f"{where}: a tool dict has no function to run; register the function with "
                    "registry.add(func, tool=that_dict)"
                )
            elif isinstance(item, type):
                raise InvalidRequestError(
                    f"{where}: {item.__qualname__} is a class: register an instance, "
                    f"{item.__qualname__}(), to use its @manifest methods as tools"
                )
            elif _tool_method_names(type(item)):
                self.add_toolkit(item)
            elif callable(item):
                self.add(item)
            elif callable(getattr(item, "run", None)):  # Lagent's BaseAction
                self.add(
                    item.run,
                    name=type(item).__name__,
                    description=None if item.run.__doc__ else inspect.getdoc(type(item)),
                    enable=getattr(item, "enable", True) is not False,
                )
            else:
                raise wrong_kind(
                    where,
                    "a function, a toolkit object (with @manifest methods), an action (with a "
                    "run method), a ToolGroup or a ToolRegistry",
                    item,
                )

    def set_enabled(self, name: str, *, enabled: bool) -> None:
        """Switch a registered tool on or off (Lagent's ``enable``).

        Raises:
            KeyError: No tool has that name.
        """
        with self._lock:
            self._tools[name] = dataclasses.replace(self._tools[name], enabled=enabled)

    def remove(self, name: str) -> RegisteredTool:
        """Unregister a tool and return it.

        Raises:
            KeyError: No tool has that name.
        """
        with self._lock:
            return self._tools.pop(name)

    def tools(self) -> list[dict[str, Any]]:
        """Return the tools list for ``AppClient.run(tools=...)``: copies, enabled tools only."""
        return [copy.deepcopy(entry.tool) for entry in self._snapshot() if entry.enabled]

    def names(self, *, enabled_only: bool = False) -> list[str]:
        """Return the tool names, in registration order (only those switched on, if asked)."""
        return [e.name for e in self._snapshot() if e.enabled or not enabled_only]

    def get(self, name: str) -> RegisteredTool | None:
        """Return the tool of that name, or ``None``."""
        return self._tools.get(name)

    def toolkit_method(self, name: str) -> tuple[object, str] | None:
        """Return ``(toolkit object, method name)`` for a toolkit tool name, else ``None``."""
        entry = self._tools.get(name)
        if entry is None or entry.toolkit is None or entry.method is None:
            return None
        return entry.toolkit, entry.method

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[RegisteredTool]:
        return iter(self._snapshot())

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry(tools={self.names()!r})"

    @property
    def json_schemas(self) -> dict[str, dict[str, Any]]:
        """Each tool's wire dict by name (AgentScope's ``ServiceToolkit.json_schemas``)."""
        return {tool["function"]["name"]: tool for tool in self.tools()}

    def _timeout(self, timeout: float | None) -> float | None:
        value = self.timeout if timeout is None else timeout
        if value is None or value == math.inf:
            return None
        if not value > 0:  # written so that NaN, which never expires, is refused too
            raise InvalidRequestError(f"a tool timeout must be positive seconds, got {value!r}")
        return float(value)

    def _store_all(self, entries: list[RegisteredTool]) -> None:
        """Add all the entries, or none when a name is taken."""
        with self._lock:
            seen = set(self._tools)
            for entry in entries:
                if entry.name in seen:
                    raise ManifestError(f"a tool named {entry.name!r} is already registered")
                seen.add(entry.name)
            self._tools.update((entry.name, entry) for entry in entries)

    def _snapshot(self) -> list[RegisteredTool]:
        with self._lock:
            return list(self._tools.values())


def _tool_method_names(cls: type) -> list[str]:
    """Public ``@manifest`` methods of a class (not ``@manifest_parameter`` alone), bases first."""
    names: dict[str, None] = {}
    for klass in reversed(cls.__mro__):
        for attr in vars(klass):
            if attr.startswith("_"):
                continue
            record = get_overrides(inspect.getattr_static(cls, attr))
            if record is not None and record.decorated:
                names[attr] = None
    return list(names)
