"""Compatibility tests: the official AppBuilder SDK against the reference server."""
