"""How the reference server runs a turn.

The run engine, tool choice, events and streamed answers.
"""
