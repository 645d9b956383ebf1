"""A small MCP server for the official SDK's MCP client (the mcp version it pins)."""

from mcp.server.fastmcp import FastMCP

server = FastMCP("weather")


@server.tool()
def get_forecast(city: str) -> str:
    """Get tomorrow's forecast of a Chinese city."""
    return f"{city}: sunny, 26 degrees tomorrow"


@server.tool()
def translate(text: str) -> str:
    """Translate English to Chinese."""
    return {"hello world": "你好，世界"}.get(text.lower(), text)


if __name__ == "__main__":
    server.run("stdio")
