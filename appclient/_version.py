"""The package version, read by the build and sent in User-Agent."""

__version__ = "0.1.0"
