"""Python callables as tools. Private package: `appclient` re-exports its public names.

``Manifest.from_function(f)`` gives the wire tool; ``build_tool_spec(f)`` the same plus
argument validation. ``_building`` documents which source wins for each fact.
"""

from ._building import build_tool_spec, default_tool_name
from ._decorators import get_overrides, manifest, manifest_parameter, manifest_return
from ._manifest import Manifest
from ._official_shape import from_list_form, normalize_tool
from ._spec import ParameterSpec, ToolSpec, check_tool_name
from ._tool_files import load_tools, save_tools

__all__ = [
    "Manifest",
    "ParameterSpec",
    "ToolSpec",
    "build_tool_spec",
    "check_tool_name",
    "default_tool_name",
    "from_list_form",
    "get_overrides",
    "load_tools",
    "manifest",
    "manifest_parameter",
    "manifest_return",
    "normalize_tool",
    "save_tools",
]
