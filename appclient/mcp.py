"""The Model Context Protocol: MCP servers as local tools, and local tools as an MCP server.

Needs the ``mcp`` extra (``pip install 'appclient[mcp]'``); importing this module does not
import ``mcp``, using it does, and says which extra to install when it is missing.

Example:
    >>> from appclient import ToolRegistry
    >>> from appclient.mcp import MCPServerStdio
    >>> with ToolRegistry([MCPServerStdio("python", ["files_server.py"])]) as registry:
    ...     result = client.run_until_answer(query="read my todo note", tools=[registry])
"""

from __future__ import annotations

from ._tools._mcp import (
    MCPConnectionError,
    MCPServer,
    MCPServerHTTP,
    MCPServerStdio,
    protocol_names,
)
from ._tools._mcp_serve import serve_mcp

__all__ = [
    "MCPConnectionError",
    "MCPServer",
    "MCPServerHTTP",
    "MCPServerStdio",
    "protocol_names",
    "serve_mcp",
]
