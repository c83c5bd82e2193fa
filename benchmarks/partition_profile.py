"""Where one partition's CPU goes in the distributed subgroup discovery (Dask and Spark run the same functions).

``spark_scale.py --profile-partition ROWS`` (and ``--permutations B``) calls :func:`profile_partition`: part 0 of
the planted table of ``dask_patterns.py`` (``ROWS`` rows), as a one-partition Dask DataFrame run in this process
(``scheduler="synchronous"``, no cluster, so every pass's CPU is this process'), then

1. every pass of the analysis by its function (the mining levels' supports, the candidates' classes and row
   hashes, the containment sample, the max-T's permuted counts, ...): calls, CPU seconds and the pickled bytes of
   its results (what the partition sends towards the driver), beside the CPU of the whole analysis;
2. the first max-T pass split in its parts: the rows' base codes, the cell counter built for the candidates, the
   keyed permutation draws (:meth:`~.maxt.KeyedScheme.columns`, the Feistel images of every row under every
   permutation, both schemes), the counts through the cells, and the packing to uint32.

The table has ``ROWS`` rows in all, so the keyed permutations run on ``[0, ROWS)`` (a partition of a larger table
runs them on the larger domain: the same work per entry, a few more bits).
"""

from __future__ import annotations

import functools
import pickle
import time
from collections import defaultdict
from typing import Any

import numpy as np

print = functools.partial(print, flush=True)  # noqa: A001 - the tables appear as they are computed


class _Stats:
    """CPU seconds, calls and result bytes of every pass function run in this process."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.sent: dict[str, int] = defaultdict(int)
        self.permuted: list[tuple[Any, ...]] = []

    def wrap(self, fn: Any) -> Any:
        @functools.wraps(fn)
        def run(*args: Any) -> Any:
            c0 = time.process_time()
            out = fn(*args)
            name = fn.__name__
            if name == "partition_count":  # the mining levels' supports vs the candidates' classes
                name += f" ({args[8]})"
            if name == "partition_permuted" and not self.permuted:
                self.permuted.append(args)
            self.cpu[name] += time.process_time() - c0
            self.calls[name] += 1
            self.sent[name] += len(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
            return out
        return run


def _passes(rows: int, n_permutations: int) -> tuple[_Stats, float]:
    import dask
    import dask.dataframe as dd
    from dask_patterns import _part

    from aif360_subjective._dask.parts import DaskParts
    from aif360_subjective.detectors import detect_subgroups

    frame, _ = _part(rows, 0, None)
    ddf = dd.from_pandas(frame, npartitions=1, sort=False)
    features = [c for c in frame.columns if c not in ("t", "p")]
    stats = _Stats()
    jobs = DaskParts._jobs  # noqa: SLF001 - the one place every pass's function goes through

    def timed_jobs(self: DaskParts, fn: Any, *rest: Any) -> list[Any]:
        return jobs(self, stats.wrap(fn), *rest)

    DaskParts._jobs = timed_jobs  # type: ignore[method-assign]  # noqa: SLF001
    try:
        with dask.config.set(scheduler="synchronous"):
            c0 = time.process_time()
            report = detect_subgroups(ddf[features], ddf["t"], ddf["p"], discovery="patterns", random_state=0,
                                      n_permutations=n_permutations)
            report.findings()
            total = time.process_time() - c0
    finally:
        DaskParts._jobs = jobs  # type: ignore[method-assign]  # noqa: SLF001
    return stats, total


def _pieces(args: tuple[Any, ...]) -> list[tuple[str, float, str]]:
    """The parts of one ``partition_permuted`` call, each timed (CPU seconds) as that function runs them."""
    from aif360_subjective.detectors._dask.counts import partition_codes
    from aif360_subjective.detectors._dask.passes import favourable, unpack_patterns
    from aif360_subjective.detectors.error_control.maxt import keyed_positions
    from aif360_subjective.detectors.mining.cell_counts import CellCounter

    frame, yt, _yp, start, strata, items, conds, packed, radix, pos_label, scheme, b_start, b_stop, need = args
    out: list[tuple[str, float, str]] = []

    def clock(name: str, fn: Any, note: str = "") -> Any:
        c0 = time.process_time()
        got = fn()
        out.append((name, time.process_time() - c0, note))
        return got

    codes = clock("base codes (partition_codes)", lambda: partition_codes(frame, items))
    patterns = clock("unpack the patterns", lambda: unpack_patterns(packed))
    counter = clock("CellCounter(...) for the candidates", lambda: CellCounter(codes, *conds, patterns, radix=radix),
                    f"{len(patterns):,} patterns")
    t = favourable(yt, pos_label).astype(np.int64)
    position, within = keyed_positions(t, None, start, (int(strata[0]), int(strata[1])))
    draws = counts = 0.0
    k, width = sum(need), b_stop - b_start
    result = np.zeros((counter.shape[1], k * width))
    for b0 in range(b_start, b_stop, 64):  # keyed_partition_counts' batches
        b1 = min(b_stop, b0 + 64)
        c0 = time.process_time()
        Y = scheme.columns(b0, b1, t, position, within, need)
        c1 = time.process_time()
        got = counter.count(Y)
        draws, counts = draws + c1 - c0, counts + time.process_time() - c1
        for j in range(k):
            result[:, j * width + b0 - b_start:j * width + b1 - b_start] = got[:, j * (b1 - b0):(j + 1) * (b1 - b0)]
    out.append(("keyed draws (KeyedScheme.columns)", draws,
                f"{len(t):,} rows x {width} permutations x {k} counts"))
    out.append(("counts through the cells", counts, ""))
    packed_out = clock("to uint32", lambda: result.astype(np.uint32))
    out.append(("result (pickled)", float("nan"), f"{len(pickle.dumps(packed_out, protocol=5)):,} bytes"))
    return out


def profile_partition(rows: int, n_permutations: int) -> None:
    """Print the two tables of the module's docstring."""
    stats, total = _passes(rows, n_permutations)
    print(f"\none partition of {rows:,} rows in this process, {n_permutations} permutations: CPU-s by pass")
    print(f"   {'pass (function)':36s} {'calls':>5s} {'CPU-s':>8s} {'share':>6s} {'result bytes':>14s}")
    for name in sorted(stats.cpu, key=stats.cpu.__getitem__, reverse=True):
        print(f"   {name:36s} {stats.calls[name]:5d} {stats.cpu[name]:8.2f} {stats.cpu[name] / total:6.1%} "
              f"{stats.sent[name]:14,}")
    rest = total - sum(stats.cpu.values())
    print(f"   {'the client (the rest)':36s} {'':5s} {rest:8.2f} {rest / total:6.1%}")
    print(f"   {'whole analysis':36s} {'':5s} {total:8.2f}")
    if not stats.permuted:
        return
    a = stats.permuted[0]
    print(f"\nthe first max-T pass (permutations {a[11]} to {a[12] - 1}) in its parts")
    print(f"   {'part':36s} {'CPU-s':>8s}  note")
    for name, cpu, note in _pieces(a):
        print(f"   {name:36s} {cpu:8.2f}  {note}")
