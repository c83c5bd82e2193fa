"""How mined-pattern discovery scales: 50k / 200k / 1M rows x 10 columns (and 20k x 30) beside DivExplorer,
pysubgroup and SliceLine.

One table per size: :func:`aif360_subjective.datasets.make_planted_slice` with 8 categorical columns of 4 levels
and 2 numeric columns (uniform on [0, 1]), a planted 2-condition slice of 5 % of the rows whose
favourable-prediction rate is 0.2 lower, ``random_state=0``. Every method runs in a child process of its own (so
that its peak resident memory is its own), with a wall-clock limit (``--timeout``); a method past it is
reported as such, not waited for. The methods and their settings are those of ``benchmarks/slice_finders.py``:

* **ours**: ``detect_subgroups(X, y_true, y_pred, discovery="patterns", random_state=0)`` (mining, counts,
  max-T with its default permutations, the report), then the first subgroup of ``ranking("statistical_parity",
  kind="all", n=1)``;
* **DivExplorer** (``min_support=0.01``, outcome the favourable prediction, t >= 2) and **SliceLine**
  (``alpha=0.99, k=1, max_l=3``) on the table discretised as there (numeric columns in 5 quantile bins);
  discretisation is timed with them;
* **pysubgroup** (:func:`run_pysubgroup`: beam search, width 20, depth 3, weighted relative accuracy, target the
  unfavourable prediction; no test) on the same discretised table.

Each child's address space is capped (``--memory-gb``, default 8): a method past it fails with MemoryError
instead of taking a shared machine's memory. Each row also prints the 1-minute load average as the run starts.
Peers run up to ``--peers-up-to`` rows (default 1M); ``--sizes 5000000 --methods ours`` runs ours alone.

Printed per (size, method): seconds, CPU seconds of the method (``ru_utime + ru_stime`` of the child after the table
is made: the measure on a shared machine), peak resident memory of the child (MB, ``ru_maxrss``; it includes the
interpreter, the imports and the generated table), whether the first reported subgroup is the planted slice
(Jaccard >= 0.5); then per method the scaling exponent ``b`` of ``CPU seconds ~ rows^b`` between consecutive sizes.
``--columns 30`` runs the wide table (24 categorical, 6 numeric columns; ``--sizes 20000``).

``--profile ROWS --split`` adds, per max-T stage, the thread CPU seconds of its parts (counting the cells, of which
forming each block's cells; drawing the permuted columns; summing each candidate's cells).

``--account ROWS`` accounts for the whole CPU of the side-by-side run of ours (``child("ours")``, what the
table's "CPU s" counts) call by call: detecting (validation, mining, the candidates' metrics and the cell
counter), the ranking and the findings (each max-T in its parts, its intervals, its redundancy filter: forming
the bitsets, the pairs nested by their items, the exact check on the rows, the rest its sizes and sample product),
as a tree with each call's own CPU seconds; then the filter's pairs (the sample's candidates, those nested by the
items, those checked on the rows, the nested ones).

``--profile ROWS --resident`` adds what is resident as each stage starts: the process's resident MB before and
after glibc's ``malloc_trim(0)`` (the allocator's kept-but-freed memory), the largest arrays reachable from the table
and the report by attribute (each buffer once, at its shortest path), and, from the ranking's max-T on (tracemalloc,
8 frames: slow, so its CPU seconds are not a plain run's), the traced memory by the package's line that allocated it;
after each max-T stage, its traced peak above its start and what a snapshot near that peak holds that the start did
not, by line.

``--profile ROWS`` prints ours' memory per stage on one table (start, peak and end resident MB, CPU seconds; the
peak is reset between stages through ``/proc/self/clear_refs``, Linux). 200,000 rows, B = 200, on a loaded 2-core
machine, before and after issue 42 (pattern bitsets formed from their items' when read, a block's cells formed
from the codes, the permuted columns drawn one permutation at a time):

=================  ===========================  ==========================
stage              before: peak MB (CPU s)      after: peak MB (CPU s)
=================  ===========================  ==========================
table              238 (2.6)                    238 (3.2)
mining + counts    5,137 (16.4)                 604 (17.6)
max-T (ranking)    2,854 (10.7)                 785 (24.8)
=================  ===========================  ==========================

Before, 66,957 patterns held their row bitsets (1.6 GB at 200k rows, 8.4 GB at 1M: the 9-11 KB per row), three
copies at the mining's end; the counter held every row's cell in each of the 175 column sets (1 KB per row); a
max-T batch held (rows, 50) index and float arrays (about 2 KB per row per batch in flight).

Run: ``python benchmarks/scale_patterns.py`` (all three sizes and the wide table, 300 s limit per run);
``--sizes 50000 200000`` for the quick run. DivExplorer and SliceLine are optional (``pip install divexplorer
sliceline``); a missing one is reported as missing. pysubgroup 0.9.0 declares numpy < 2 but its beam search runs
on numpy 2: install it without its requirements (``pip install --no-deps pysubgroup``), in a folder of its own on
``PYTHONPATH`` if need be.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

METHODS = ("ours", "DivExplorer", "pysubgroup", "SliceLine")
_MODULE = {"DivExplorer": "divexplorer", "pysubgroup": "pysubgroup", "SliceLine": "sliceline"}


def table(n: int, seed: int = 0, n_categorical: int = 8, n_numeric: int = 2):
    from aif360_subjective.datasets import make_planted_slice

    return make_planted_slice(n, n_conditions=2, planted_share=0.05, effect=0.2, n_categorical=n_categorical,
                              n_numeric=n_numeric, random_state=seed)


def _status_mb(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(float(line.split()[1]) / 1024.0 for line in f if line.startswith(field))


def _split_timers() -> dict[str, float]:
    """Thread CPU seconds of the max-T's parts, summed over every thread that runs them (the counter's workers and
    the draws): the pieces are wrapped in place, for this process only. Returns the running totals."""
    import threading

    from aif360_subjective.detectors.error_control import maxt
    from aif360_subjective.detectors.mining import cell_counts

    totals = {"cell counts": 0.0, "of which forming cells": 0.0, "permuted columns": 0.0, "candidate sums": 0.0}
    lock = threading.Lock()

    def add(key: str, seconds: float) -> None:
        with lock:
            totals[key] += seconds

    def timed(key: str, fn):
        def wrapper(*args, **kwargs):
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                add(key, time.thread_time() - t0)
        return wrapper

    def timed_blocks(fn):
        def wrapper(*args, **kwargs):
            it = fn(*args, **kwargs)
            while True:  # the time of forming each block's cells (each next), not of the caller's products
                t0 = time.thread_time()
                try:
                    item = next(it)
                except StopIteration:
                    add("of which forming cells", time.thread_time() - t0)
                    return
                add("of which forming cells", time.thread_time() - t0)
                yield item
        return wrapper

    def timed_deferred(fn):
        def wrapper(*args, **kwargs):
            return timed("candidate sums", fn(*args, **kwargs))  # the pass now (counted as cells), the sums later
        return wrapper

    counter = cell_counts.CellCounter
    counter.cell_counts = timed("cell counts", counter.cell_counts)
    counter._cell_blocks = timed_blocks(counter._cell_blocks)
    counter.deferred = timed_deferred(counter.deferred)
    maxt.permuted_columns = timed("permuted columns", maxt.permuted_columns)
    return totals


#: What ``--account`` times, as (module, attribute, label): the calls of the main thread the side-by-side run of ours
#: makes (``child("ours")``: :func:`slice_finders.run_ours`), each timed with the process's CPU (every thread's).
_ACCOUNTED = (
    ("slice_finders", "detect_subgroups", "detect_subgroups"),
    ("aif360_subjective.detectors.detect", "as_frame", "validation (as_frame)"),
    ("aif360_subjective.detectors.detect", "mine", "mining (items, patterns)"),
    ("aif360_subjective.detectors.mining.cell_counts.CellCounter", "__init__", "cell counter (built)"),
    ("aif360_subjective.detectors.detect", "candidate_metrics", "candidate metrics"),
    ("aif360_subjective.detectors.report.SubgroupReport", "ranking", "ranking"),
    ("aif360_subjective.detectors.report.SubgroupReport", "findings", "findings"),
    ("aif360_subjective.detectors.significance", "run_max_t", "max-T"),
    ("aif360_subjective.detectors.significance", "kind_intervals", "intervals, p and q"),
    ("aif360_subjective.detectors.ranking", "redundant_among", "redundancy filter"),
    ("aif360_subjective.detectors.significance", "redundant_among", "redundancy filter"),
    ("aif360_subjective.detectors.redundancy", "containment_of", "containment (the rest: sizes, sample product)"),
    ("aif360_subjective.detectors.candidates.Candidates", "bits", "forming the bitsets"),
    ("aif360_subjective.detectors.mining.pattern_mining.MinedPatterns", "held_by_items", "nested by the items"),
    ("aif360_subjective.detectors.redundancy", "held_on", "exact check on the rows"),
    ("slice_finders", "_members_of_first", "members of the first"),
)


def _tally_pairs() -> dict[str, int]:
    """The redundancy filter's pairs, summed over its calls (wrapped in place, for this process only): the sample's
    candidate pairs, those nested by the items (no row check), those checked on the rows, and the nested pairs."""
    from aif360_subjective.detectors import redundancy
    from aif360_subjective.detectors.candidates import Candidates

    tally = {"candidates": 0, "nested by the items": 0, "checked on the rows": 0, "nested": 0}
    known_of, contain = Candidates.known_containment, redundancy.containment_of

    def known_containment(self, positions):
        known = known_of(self, positions)
        if known is None:
            return None

        def counted(g, s):
            out = known(g, s)
            tally["candidates"] += len(g)
            tally["nested by the items"] += int(out.sum())
            tally["checked on the rows"] += len(g) - int(out.sum())
            return out
        return counted

    def containment_of(*args, **kwargs):
        out = contain(*args, **kwargs)
        tally["nested"] += len(out[0])
        return out

    Candidates.known_containment = known_containment
    redundancy.containment_of = containment_of
    return tally


def account(n: int) -> None:
    """Where the side-by-side run of ours spends its CPU: ``child("ours")`` on one table, each call of
    :data:`_ACCOUNTED` timed with the process's CPU seconds (every thread's: the max-T's workers run inside its
    call), printed as a tree with each call's own seconds (its time less its timed callees'), then the max-T's
    parts (:func:`_split_timers`, thread CPU) and what no timed call holds."""
    import functools
    import importlib
    import threading

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    totals = _split_timers()
    pairs = _tally_pairs()
    spent: dict[tuple[str, ...], list[float]] = {}  # path -> [seconds with callees, callees' seconds]
    parts: dict[tuple[str, ...], dict[str, float]] = {}  # each max-T call's parts
    stack: list[str] = []

    def timed(label: str, fn):
        @functools.wraps(fn)  # its signature read through (run_ours asks whether detect_subgroups has discovery=)
        def wrapper(*args, **kwargs):
            if threading.current_thread() is not threading.main_thread() or label in stack:
                return fn(*args, **kwargs)
            stack.append(label)
            path = tuple(stack)
            spent.setdefault(path, [0.0, 0.0])  # listed in the order the calls begin
            before = dict(totals)
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds = time.process_time() - t0
                if label == "max-T":
                    parts[path] = {k: totals[k] - before[k] for k in totals}
                stack.pop()
                spent[path][0] += seconds
                if len(path) > 1:
                    spent[path[:-1]][1] += seconds
        return wrapper

    for where, name, label in _ACCOUNTED:
        try:
            owner = importlib.import_module(where)
        except ModuleNotFoundError:  # a class: module.Class
            mod_name, cls_name = where.rsplit(".", 1)
            owner = getattr(importlib.import_module(mod_name), cls_name)
        setattr(owner, name, timed(label, getattr(owner, name)))
    t0 = time.process_time()
    out = child("ours", n)
    whole = time.process_time() - t0
    b = table(n)  # the table's own CPU, for the record (child makes it before its clock starts)
    del b
    print(f"{n:,} rows: child('ours') {out['cpu']:.1f} CPU s as the side-by-side run counts it "
          f"(from the table made), {out['peak_mb']:,.0f} MB peak; {whole:.1f} CPU s with the table")
    print(f"{'call':<48} {'CPU s':>8} {'own CPU s':>10}")
    for path, (with_callees, callees) in spent.items():
        print(f"{'  ' * (len(path) - 1) + path[-1]:<48} {with_callees:>8.1f} {with_callees - callees:>10.1f}")
        if path in parts:  # the max-T's parts (thread CPU of its workers and draws); the rest its statistics
            got = parts[path]
            rest = with_callees - got["cell counts"] - got["permuted columns"] - got["candidate sums"]
            print(f"{'  ' * len(path)}" + ", ".join(f"{k} {v:.1f}" for k, v in got.items())
                  + f"; the rest (statistics, margins, observed z) {rest:.1f}")
    top = sum(v[0] for p, v in spent.items() if len(p) == 1)
    print(f"outside every timed call (the table, the planted slice's check): {whole - top:.1f}")
    print("redundancy filter's pairs (every call): " + ", ".join(f"{k} {v:,}" for k, v in pairs.items()))


def _array_bytes(x) -> tuple[int, int] | None:
    """(id of the memory, bytes) of an array-like that holds memory (a numpy array: its base's buffer, so that views
    are counted once; a sparse matrix: its arrays; a pandas object: its columns' arrays), or None."""
    import pandas as pd
    import scipy.sparse as sp

    if isinstance(x, np.ndarray):
        base = x
        while isinstance(base.base, np.ndarray):
            base = base.base
        return id(base), base.nbytes
    if sp.issparse(x):
        return id(x), sum(getattr(x, a).nbytes for a in ("data", "indices", "indptr", "row", "col") if hasattr(x, a))
    if isinstance(x, pd.DataFrame | pd.Series | pd.Index):
        return id(x), int(np.sum(x.memory_usage(deep=False)))
    return None


def _holders(roots: dict[str, object], top: int = 14, depth: int = 9) -> tuple[list[tuple[str, int]], int]:
    """The largest arrays reachable from ``roots`` by attributes, cached properties, dict values and list or tuple
    items (breadth first, each object and each array's memory counted once, at the shortest path that reaches it),
    largest first; and their total bytes. A closure's cells and a generator's frame are not followed."""
    import types

    seen: set[int] = set()
    found: dict[int, tuple[str, int]] = {}
    level = list(roots.items())
    for _ in range(depth):
        nxt: list[tuple[str, object]] = []
        for path, obj in level:
            if id(obj) in seen or isinstance(obj, str | bytes | int | float | type | types.ModuleType
                                             | types.FunctionType | types.BuiltinFunctionType):
                continue
            seen.add(id(obj))
            got = _array_bytes(obj)
            if got is not None:
                if got[0] not in found:
                    found[got[0]] = (path, got[1])
                continue
            if isinstance(obj, dict):
                nxt.extend((f"{path}[{k!r}]", v) for k, v in obj.items())
            elif isinstance(obj, list | tuple | set | frozenset):
                nxt.extend((f"{path}[{i}]", v) for i, v in enumerate(obj))
            else:
                attrs = dict(getattr(obj, "__dict__", {}))
                for cls in type(obj).__mro__:
                    for slot in getattr(cls, "__slots__", ()):
                        if hasattr(obj, slot):
                            attrs[slot] = getattr(obj, slot)
                nxt.extend((f"{path}.{k}", v) for k, v in attrs.items())
        level = nxt
    ranked = sorted(found.values(), key=lambda pb: -pb[1])
    return ranked[:top], sum(b for _, b in found.values())


def _trimmed_mb() -> float:
    """The resident MB after glibc's ``malloc_trim(0)`` (the free memory of every arena given back to the system;
    the current resident MB where there is no glibc)."""
    import ctypes
    import ctypes.util

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    return _status_mb("VmRSS")


def _print_resident(name: str, roots: dict[str, object]):
    """What is resident as a stage starts: the arrays reachable from ``roots`` (:func:`_holders`), then Python's
    traced memory by the line that allocated it (tracemalloc: numpy's buffers and Python's objects, not
    the allocator's kept-but-freed memory). Returns the snapshot."""
    import gc
    import tracemalloc

    gc.collect()
    rss = _status_mb("VmRSS")
    print(f"  resident as '{name}' starts: {rss:,.0f} MB; after glibc's malloc_trim(0) {_trimmed_mb():,.0f} MB (the "
          "allocator's kept-but-freed memory given back)")
    ranked, total = _holders(roots)
    print(f"  {total / 2**20:,.0f} MB of arrays reachable from the table and the report; the largest:")
    for path, size in ranked:
        print(f"    {size / 2**20:>9,.1f} MB  {path}")
    snap = tracemalloc.take_snapshot()
    stats = snap.statistics("traceback")
    print(f"  traced (tracemalloc) {sum(st.size for st in stats) / 2**20:,.0f} MB; by the package's line that "
          "allocated it, the largest:")
    _print_lines((st.traceback, st.size, st.count) for st in stats)
    return snap


def _print_lines(allocations, top: int = 12) -> None:
    """Allocations (traceback, bytes, blocks) summed by the innermost line of the package or of the benchmarks that
    made them (else the innermost line), largest first."""
    here = ("aif360_subjective", "benchmarks")
    sizes: dict[str, list[int]] = {}
    for traceback, size, count in allocations:
        frames = list(traceback)[::-1]  # most recent first (a Traceback lists the oldest first)
        ours = next((f for f in frames if any(h in f.filename for h in here)), frames[0])
        got = sizes.setdefault(f"{Path(ours.filename).name}:{ours.lineno}", [0, 0])
        got[0] += size
        got[1] += count
    for key, (size, count) in sorted(sizes.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"    {size / 2**20:>9,.1f} MB  {key} ({count:+,} blocks)")


class _PeakSnapshot:
    """A tracemalloc snapshot near a stage's traced peak: a thread polls the traced memory every 20 ms and takes a
    snapshot each time it is 2 % above the last one's (an allocation made and freed between two polls is missed:
    the snapshot's total is printed beside the traced peak)."""

    def __init__(self) -> None:
        import threading

        self.snapshot = None
        self.at = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        import tracemalloc

        while not self._stop.wait(0.02):
            now = tracemalloc.get_traced_memory()[0]
            if now > 1.02 * self.at:
                self.snapshot, self.at = tracemalloc.take_snapshot(), now

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.snapshot


def _print_growth(start, peak) -> None:
    """The allocations held at ``peak`` and not at ``start`` (two tracemalloc snapshots), by the package's line
    that made them (:func:`_print_lines`)."""
    grown = [(st.traceback, st.size_diff, st.count_diff) for st in peak.compare_to(start, "traceback")
             if st.size_diff > 0]
    print(f"  held near the traced peak, not at the start: {sum(g[1] for g in grown) / 2**20:,.0f} MB; by the "
          "package's line that allocated it, the largest:")
    _print_lines(grown)


def profile(n: int, n_permutations: int, split: bool = False, resident: bool = False) -> None:
    """Peak resident memory and CPU seconds per stage of ours on one table (Linux: the peak is reset between
    stages through ``/proc/self/clear_refs``); with ``split``, each max-T stage's thread CPU seconds in its parts
    (:func:`_split_timers`); with ``resident``, what is resident as each stage starts (:func:`_print_resident`)
    and the stage's traced peak above its start (tracemalloc, which slows the run: its CPU seconds are not a
    plain run's)."""
    import tracemalloc

    from aif360_subjective.detectors import detect_subgroups

    totals = _split_timers() if split else None
    roots: dict[str, object] = {}

    def stage(name, fn):
        if resident and name.startswith("max-T"):
            if not tracemalloc.is_tracing():  # from the max-T on (the mining's many small objects trace slowly)
                tracemalloc.start(8)  # 8 frames: the package's line under numpy's and pandas'
            first = _print_resident(name, roots)
            poll = _PeakSnapshot()
            tracemalloc.reset_peak()
            traced0 = tracemalloc.get_traced_memory()[0]
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")  # resets the peak resident size (VmHWM)
        start, t0 = _status_mb("VmRSS"), time.process_time()
        before = dict(totals) if totals is not None else {}
        out = fn()
        print(f"{name:<26} {start:>9.0f} {_status_mb('VmHWM'):>9.0f} {_status_mb('VmRSS'):>9.0f} "
              f"{time.process_time() - t0:>8.1f}", flush=True)
        if totals is not None and name.startswith("max-T"):
            print("  " + ", ".join(f"{k} {totals[k] - before[k]:.1f}" for k in totals) + " (thread CPU s)", flush=True)
        if resident and name.startswith("max-T"):
            now, peak = tracemalloc.get_traced_memory()
            at_peak = poll.stop()
            print(f"  traced: {traced0 / 2**20:,.0f} MB at the start, peak {peak / 2**20:,.0f} MB "
                  f"(+{(peak - traced0) / 2**20:,.0f}), {now / 2**20:,.0f} MB at the end; the snapshot near the "
                  f"peak {poll.at / 2**20:,.0f} MB", flush=True)
            if at_peak is not None:
                _print_growth(first, at_peak)
        return out

    print(f"{n:,} rows, B = {n_permutations}\n{'stage':<26} {'start MB':>9} {'peak MB':>9} {'end MB':>9} {'CPU s':>8}")
    b = roots["table"] = stage("table", lambda: table(n))
    rep = roots["report"] = stage("mining + counts", lambda: detect_subgroups(
        b.X, b.y_true, b.y_pred, discovery="patterns", random_state=0, n_permutations=n_permutations))
    stage("max-T (ranking)", lambda: rep.ranking("statistical_parity", kind="all", n=1))
    stage("max-T (findings)", lambda: rep.findings(0.05))  # every test: the four permuted counts
    if resident:
        _print_resident("the end", roots)
        tracemalloc.stop()


def run_pysubgroup(D, y_true, y_pred, outcome: str = "SP", depth: int = 3, beam_width: int = 20):
    """pysubgroup's beam search (``BeamSearch(beam_width)``, ``depth`` conditions, weighted relative accuracy,
    10 results) for the rows whose prediction is unfavourable (``SP``: a lower favourable rate is the
    disadvantage), on the discretised table (one equality selector per column value); the first result is
    reported (no test). ``outcome`` other than ``SP`` is not run here."""
    import pysubgroup as ps
    from slice_finders import Run

    if outcome != "SP":
        raise ValueError(f"run_pysubgroup: outcome {outcome!r}; only 'SP' is run here")
    t0 = time.perf_counter()
    df = D.reset_index(drop=True).copy()
    df["_unfavourable"] = np.asarray(y_pred) == 0
    task = ps.SubgroupDiscoveryTask(df, ps.BinaryTarget("_unfavourable", True),
                                    ps.create_selectors(df, ignore=["_unfavourable"]), result_set_size=10,
                                    depth=depth, qf=ps.WRAccQF())
    result = ps.BeamSearch(beam_width=beam_width).execute(task)
    seconds = time.perf_counter() - t0
    if not result.results:
        return Run(None, False, seconds=seconds)
    return Run(np.asarray(result.results[0][1].covers(df), dtype=bool), True, seconds=seconds)


def _installed(module: str) -> bool:
    """Whether ``module`` is importable as a package (a left-over folder without files is a namespace package with
    no origin: not installed)."""
    spec = importlib.util.find_spec(module)
    return spec is not None and spec.origin is not None


def child(method: str, n: int, columns: int = 10) -> dict:
    """One run in this process: seconds, CPU seconds, peak memory, whether the planted slice came first
    (``columns``: 10 = 8 categorical and 2 numeric; 30 = 24 and 6)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import slice_finders as sf

    b = table(n, n_categorical=columns * 4 // 5, n_numeric=columns // 5)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    if method == "ours":
        run = sf.run_ours(b.X, b.y_true, b.y_pred, "SP", "patterns", 0)
        seconds = run.seconds
    else:
        t0 = time.perf_counter()
        D = sf.discretise(b.X)
        prep = time.perf_counter() - t0
        fn = {"DivExplorer": sf.run_divexplorer, "SliceLine": sf.run_sliceline, "pysubgroup": run_pysubgroup}[method]
        run = fn(D, b.y_true, b.y_pred, "SP")
        seconds = prep + run.seconds
    hit = False
    if run.found is not None:
        inter = np.logical_and(run.found, b.planted).sum()
        union = np.logical_or(run.found, b.planted).sum()
        hit = bool(union and inter / union >= 0.5)
    use = resource.getrusage(resource.RUSAGE_SELF)
    cpu = use.ru_utime + use.ru_stime - cpu0.ru_utime - cpu0.ru_stime  # the method's, not the table's
    return {"seconds": seconds, "cpu": cpu, "peak_mb": use.ru_maxrss / 1024.0, "hit": hit}  # kB on Linux


def _capped(gb: float):
    """A child's address space capped at ``gb`` GB (a method past it fails with MemoryError instead of taking a
    shared machine's memory: SliceLine asked for 19.8 GB at 50,000 rows)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (int(gb * 2**30), int(gb * 2**30)))
    return cap


def run_one(method: str, n: int, timeout: float, columns: int = 10, memory_gb: float = 8.0) -> dict:
    if method in _MODULE and not _installed(_MODULE[method]):
        return {"status": "not installed"}
    cmd = [sys.executable, __file__, "--child", method, str(n), str(columns)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                             preexec_fn=_capped(memory_gb))
    except subprocess.TimeoutExpired:
        return {"status": f"> {timeout:g} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": f"failed: {last[:60]}"}
    return {"status": "ok", **json.loads(out.stdout.strip().splitlines()[-1])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[50_000, 200_000, 1_000_000])
    ap.add_argument("--wide", type=int, default=20_000, help="rows of the 30-column table run last (0: none)")
    ap.add_argument("--peers-up-to", type=int, default=1_000_000, help="largest table the other methods run on")
    ap.add_argument("--memory-gb", type=float, default=8.0, help="address space of each child (GB, default 8)")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run (default 300)")
    ap.add_argument("--columns", type=int, default=10, help="10 (8 categorical, 2 numeric) or 30 (24, 6)")
    ap.add_argument("--profile", type=int, metavar="ROWS", help="ours' memory and CPU per stage on one table")
    ap.add_argument("--permutations", type=int, default=200, help="B of --profile")
    ap.add_argument("--split", action="store_true",
                    help="with --profile: each max-T stage's thread CPU seconds counting cells, forming them, drawing "
                         "the permuted columns and summing the candidates")
    ap.add_argument("--resident", action="store_true",
                    help="with --profile: what is resident as each stage starts (the largest arrays reachable from "
                         "the table and the report; tracemalloc's largest allocating lines) and each stage's traced "
                         "peak; the allocator's free memory is given back (malloc_trim) as each stage starts, so its "
                         "peaks are not a plain run's")
    ap.add_argument("--account", type=int, metavar="ROWS",
                    help="where the side-by-side run of ours spends its CPU, call by call, on one table")
    ap.add_argument("--child", nargs=3, metavar=("METHOD", "ROWS", "COLUMNS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), int(args.child[2]))))
        return
    if args.account:
        account(args.account)
        return
    if args.profile:
        profile(args.profile, args.permutations, args.split, args.resident)
        return
    runs = [(n, args.columns) for n in args.sizes] + ([(args.wide, 30)] if args.wide else [])
    print(f"{'rows':>10} {'cols':>4}  {'method':<12} {'seconds':>9} {'CPU s':>8} {'peak MB':>8}  {'planted first':<13} "
          f"{'load':>5}")
    results: dict[str, list[tuple[int, float]]] = {m: [] for m in args.methods}
    for n, columns in runs:
        for m in args.methods:
            if m != "ours" and n > args.peers_up_to:
                continue
            load = os.getloadavg()[0]  # the machine's 1-minute load average as the run starts
            r = run_one(m, n, args.timeout, columns, args.memory_gb)
            if r["status"] != "ok":
                print(f"{n:>10,} {columns:>4}  {m:<12} {r['status']:>9} {'':>8} {'':>8}  {'':<13} {load:>5.1f}",
                      flush=True)
                continue
            if columns == args.columns:
                results[m].append((n, r["cpu"]))
            print(f"{n:>10,} {columns:>4}  {m:<12} {r['seconds']:>9.2f} {r['cpu']:>8.1f} {r['peak_mb']:>8.0f}  "
                  f"{'yes' if r['hit'] else 'no':<13} {load:>5.1f}", flush=True)
    print("\nscaling exponent b (CPU seconds ~ rows^b) between consecutive sizes:")
    for m, pts in results.items():
        parts = [f"{a:,}->{c:,}: b = {math.log(tc / ta) / math.log(c / a):.2f} (x{tc / ta:.1f})"
                 for (a, ta), (c, tc) in zip(pts, pts[1:], strict=False)]
        print(f"  {m:<12} {'; '.join(parts) if parts else 'fewer than two sizes finished'}")


if __name__ == "__main__":
    main()
