"""What the reference server remembers.

State values, the memory and SQLite stores, idempotency and the run log.
"""
