"""Small MCP servers and local tools for the MCP tests."""
