"""What only the garbage collector would free: frames a piece of code leaves in reference cycles."""

from __future__ import annotations

import gc
import types
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def frames_left_in_cycles() -> Iterator[list[str]]:
    """Run the block with the collector off; the list then names the frames only cycles hold.

    Frames, not all objects: other cycles (a pydantic model class dropped from a bounded
    cache, say) are normal garbage, while a frame in a cycle means a caught exception was
    kept alive with its traceback, and with it every local of the code that raised.
    """
    gc.collect()
    gc.disable()
    found: list[str] = []
    try:
        yield found
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found.extend(
            f"{item.f_code.co_name} ({item.f_code.co_filename}:{item.f_lineno})"
            for item in gc.garbage
            if isinstance(item, types.FrameType)
        )
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
