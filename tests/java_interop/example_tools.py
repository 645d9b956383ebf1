"""Local tools the Java interop test turns into tool files with ``appclient manifest``.

The Java suite (``java-interop/.../ManifestToolsTest.java``) loads the generated folder and
implements the same two tools in Java, proving that the tool file format crosses languages.
"""

from __future__ import annotations

from typing import Literal


def get_birthday(name: str) -> str:
    """Look up a classmate's birthday (查询同学的生日).

    Args:
        name: The classmate's name, for example 张三.

    Returns:
        The birthday, as a sentence.
    """
    return f"{name}同学的生日是2008年8月8日"


def convert_temperature(
    value: float, to_unit: Literal["celsius", "fahrenheit"] = "fahrenheit"
) -> str:
    """Convert a temperature between celsius and fahrenheit.

    Args:
        value: The temperature to convert.
        to_unit: The unit to convert to.

    Returns:
        The converted temperature with its unit.
    """
    if to_unit == "fahrenheit":
        return f"{value * 9 / 5 + 32:.1f} fahrenheit"
    return f"{(value - 32) * 5 / 9:.1f} celsius"
