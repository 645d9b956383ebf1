"""The pure core.

Wire models, request bodies, answer decoding, SSE, tool formats, retries, limits and the one
exception tree (no sockets, no clock).
"""
