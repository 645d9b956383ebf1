"""The automatic round trip: query, tool calls, tool outputs, again, until the answer.

Placeholder so the client can inherit the mixin while the loop is being written.
"""

from __future__ import annotations


class RoundTripMixin:
    """Adds the automatic tool round trip to :class:`appclient.AppClient`."""
