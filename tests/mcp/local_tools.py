"""Local functions that ``appclient mcp serve`` offers to MCP hosts in the tests."""

from __future__ import annotations

from appclient import ToolFile, ToolRegistry, manifest

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


@manifest
def repeat(text: str, times: int) -> str:
    """Repeat a text.

    Args:
        text: The text.
        times: How many times.
    """
    return text * times


@manifest
def chart() -> ToolFile:
    """Draw a chart."""
    return ToolFile(data=PNG, name="chart.png")


def secret_search(query: str, api_key: str) -> str:
    """Search with a key the host never sees.

    Args:
        query: What to look for.
        api_key: Bound by the program.
    """
    return f"{query}: 3 hits ({len(api_key)}-character key)"


registry = ToolRegistry([repeat])
registry.add(secret_search, api_key="s3cret-key")
