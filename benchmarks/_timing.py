"""The one timer of the benchmarks: the fastest of a few runs, and what the last run returned."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Seconds of the fastest of ``repeat`` calls of ``fn`` (the least disturbed by other work), and the last
    call's result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
