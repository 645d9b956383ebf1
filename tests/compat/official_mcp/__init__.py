"""The official SDK's MCP client pattern, run in a venv of its own."""
