"""The clients and their transports.

`AppClient` over requests, `AsyncAppClient` over aiohttp, and their streamed runs.
"""
