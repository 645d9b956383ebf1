"""Local tools.

The registry, dispatch, execution, the automatic round trip, tracing and MCP.
"""
