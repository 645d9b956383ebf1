"""Functions for the ``appclient manifest`` command tests."""

from __future__ import annotations

from appclient._manifest import manifest

NOT_CALLABLE = 42


@manifest
def lookup(word: str, limit: int = 3) -> list[str]:
    """Look a word up in the dictionary."""
    return [word] * limit


def undecorated(x: int) -> int:
    """Not selected when the module alone is named."""
    return x


class Toolkit:
    """A class whose static method is referenced as Toolkit.convert."""

    @staticmethod
    def convert(celsius: float) -> float:
        """Celsius to Fahrenheit."""
        return celsius * 9 / 5 + 32
