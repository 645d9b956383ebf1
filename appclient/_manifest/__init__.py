"""Python callables as tools. Private package: `appclient` re-exports its public names.

Typical use::

    from typing import Literal

    from appclient import Manifest, build_tool_spec, manifest_parameter

    @manifest_parameter(name="city", description="City name, e.g. Beijing")
    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        '''Current weather of a Chinese city.'''

    tool = Manifest.from_function(get_weather)        # {"type": "function", "function": ...}
    spec = build_tool_spec(get_weather)                # the same, plus argument validation
    args, kwargs = spec.validate_arguments({"city": "北京"})

Which source wins for each fact (arguments, decorators, ``Field``/``Annotated``, the
docstring) is documented in ``_building``.
"""

from ._building import build_tool_spec, default_tool_name
from ._decorators import (
    ManifestOverrides,
    get_overrides,
    manifest,
    manifest_parameter,
    manifest_return,
)
from ._manifest import Manifest
from ._official_shape import from_list_form, normalize_tool
from ._spec import ParameterSpec, ToolSpec, check_tool_name
from ._tool_files import load_tools, save_tools

__all__ = [
    "Manifest",
    "ManifestOverrides",
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
