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


def tree_cpu_seconds() -> float:
    """CPU-seconds (user + system) of this process and every process below it, living or reaped: Spark's JVM and
    its Python workers, a Dask LocalCluster's workers. On a shared machine the wall seconds of two engines say
    little about their cost; the difference of two readings around a run says what the run used (Linux /proc)."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    used: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()  # noqa: SIM115 - one read of a proc file
        except OSError:
            continue  # ended meanwhile
        fields = stat[stat.rindex(")") + 2:].split()
        parent[int(entry)] = int(fields[1])
        used[int(entry)] = sum(int(x) for x in fields[11:15])  # utime, stime and the reaped children's
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += used.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total / tick
