"""Counting mined patterns over a Dask DataFrame: per partition, then summed; only counts reach the client.

The counts of a pattern are sums over its rows, and a sum over rows splits across partitions. Each partition
encodes its rows with the items' base codes (:func:`partition_codes`: a categorical value's position among the
column's values, a numeric value's quantile bin, from the edges the items carry), counts every pattern through
its cells with the in-memory :class:`~.cell_counts.CellCounter` (told the whole table's radix, so that every
code has its cell) and returns ``(patterns, c)`` counts; the client adds them. Integer counts are summed
exactly, so the result equals the in-memory counter's on the same rows whatever the partitioning.

Permuted counts for a max-T do not split that way if the permutation moves rows: it moves them across
partitions. They do split for **keyed permutations** (:mod:`.keyed_permutation`): a permutation of the rows'
classes is fixed by the class counts and a bijection ``pi_b`` of the row positions, which a partition evaluates
at its own rows' global positions from ``(seed, b, position)`` alone. :func:`permuted_counts` counts every
pattern's rows in its rows' permuted classes per partition and sums them (a tree of sums), equal to the
in-memory :class:`~.maxt.KeyedCounts` for any partitioning; :func:`~.maxt.max_t_from_counts` turns them into the
max-T's adjusted p-values, those of ``max_t(..., permutation="keyed")`` on the same rows.

A Rademacher multiplier max-T (each row's weights from a hash of its position) also splits; it was tried before
the keyed permutations and removed: it approximates the permutation distribution where the keyed scheme is that
distribution (``benchmarks/keyed_maxt.py`` prints the family-wise error of the three schemes).

References:
    J. Gray et al., "Data cube: a relational aggregation operator generalizing group-by, cross-tab, and
    sub-totals", Data Mining and Knowledge Discovery 1(1), 1997.
    J. Black and P. Rogaway, "Ciphers with arbitrary finite domains", CT-RSA 2002 (the keyed permutations).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from ..._dask._partitions import tree_reduce
from ..mining.cell_counts import CellCounter
from ..mining.pattern_mining import Items, MinedPatterns

__all__ = ["column_coding", "count_patterns", "keyed_partition_counts", "partition_class_counts", "partition_codes",
           "permuted_counts"]


def column_coding(items: Items, c_pos: int) -> tuple[str, Any]:
    """How column ``c_pos`` is coded: ("values", its sorted values) or ("edges", its quantile bin edges)."""
    own = np.flatnonzero(items.column == c_pos)
    vals = [items.values[j] for j in own]
    if items.edges is not None:  # the base bins' edges as recorded (ranges and one-sided conditions)
        recorded = items.edges[c_pos]
        if recorded is not None:
            return "edges", recorded
        order = np.argsort(items.lo[own], kind="stable")
        return "values", pd.Index([vals[i] for i in order])
    if vals and isinstance(vals[0], tuple):  # numeric ranges: bin b is [edges[b], edges[b + 1])
        edges = np.zeros(int(items.hi[own].max()) + 1)
        for j, (low, high, _closed) in zip(own, vals, strict=True):
            edges[items.lo[j]], edges[items.hi[j]] = low, high
        return "edges", edges
    order = np.argsort(items.lo[own], kind="stable")
    return "values", pd.Index([vals[i] for i in order])


def partition_codes(frame: pd.DataFrame, items: Items) -> np.ndarray:
    """(rows, columns) int64 base codes of ``frame``'s rows under ``items`` (the in-memory coding of
    :func:`~.pattern_mining.build_items`: values by their position, numbers by their quantile bin).

    Raises:
        ValueError: a value the items do not know (a level that was not in the table the items were built from).
    """
    codes = np.zeros((len(frame), len(items.columns)), dtype=np.int64)
    for c_pos, c in enumerate(items.columns):
        kind, arg = column_coding(items, c_pos)
        if kind == "edges":
            x = frame[c].to_numpy(dtype=np.float64)
            codes[:, c_pos] = np.searchsorted(arg[1:-1], x, side="right")
            continue
        pos = arg.get_indexer(frame[c].to_numpy())
        if (pos < 0).any():
            bad = frame[c].to_numpy()[np.flatnonzero(pos < 0)[0]]
            raise ValueError(f"column {c!r} holds the value {bad!r}, which the mined items do not know (expected one "
                             f"of {list(arg[:10])}{' ...' if len(arg) > 10 else ''})")
        codes[:, c_pos] = pos
    return codes


def _shipped(mined: MinedPatterns) -> tuple[Any, Any]:
    """The items (without the mining table's rows: its membership matrix and codes) and the patterns, each one
    Dask key shared by every partition's task (not a copy per task)."""
    import dask

    # no rows: the codes emptied, and no indicator held (the matrix is then formed from the codes, empty too)
    light = dataclasses.replace(mined.items, indicator=None,
                                codes=np.zeros((0, len(mined.items.columns)), dtype=mined.items.codes.dtype))
    return dask.delayed(light, pure=True), dask.delayed(list(mined.patterns), pure=True)


def _radix(items: Items) -> np.ndarray:
    return np.array([int(items.hi[items.column == c].max()) if (items.column == c).any() else 1
                     for c in range(len(items.columns))], dtype=np.int64)


def _partition_count(frame: pd.DataFrame, Y: np.ndarray, items: Items, patterns: list[tuple[int, ...]],
                     radix: np.ndarray) -> np.ndarray:
    counter = CellCounter(partition_codes(frame, items), items.column, items.lo, items.hi, patterns, radix=radix)
    return counter.count(np.asarray(Y))


def count_patterns(X: Any, Y: Any, mined: MinedPatterns) -> np.ndarray:
    """(patterns, c) counts of every mined pattern's rows where each column of ``Y`` is 1 (weights: summed),
    counted per partition of the Dask DataFrame ``X`` and summed on the client.

    Args:
        X: Dask DataFrame with the items' columns.
        Y: Dask DataFrame (or Series) of 0/1 or weight columns, partitioned as ``X`` (same divisions).
        mined: the patterns (mined from the same rows, or from rows coded the same way).

    Returns:
        numpy.ndarray: equal to ``mined.counter().count(Y)`` on the same rows, in memory.

    Raises:
        ValueError: ``X`` and ``Y`` from different collections (other partitions).
    """
    import dask

    if Y.ndim == 1:
        Y = Y.to_frame()
    _pair(X, Y, what="Y")
    radix = _radix(mined.items)
    # unoptimised graphs: optimised, a projection of fewer columns may fuse Parquet files into fewer partitions
    # than the other, and the partitions would no longer pair
    items, patterns = _shipped(mined)
    parts = [dask.delayed(_partition_count)(x, y.to_numpy(), items, patterns, radix)
             for x, y in zip(X.to_delayed(optimize_graph=False), Y.to_delayed(optimize_graph=False), strict=True)]
    return np.asarray(tree_reduce(parts, sum).compute())


def _pair(X: Any, *others: Any, what: str = "the labels") -> None:
    """Refuse ``others`` partitioned otherwise than ``X`` (``what`` names them in the message)."""
    for o in others:
        if X.npartitions != o.npartitions or tuple(X.divisions) != tuple(o.divisions):
            raise ValueError(f"X and {what} come from different Dask collections ({X.npartitions} vs "
                             f"{o.npartitions} partitions, or other divisions): pass columns of one Dask DataFrame")


def _classes_of(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    for name, v in (("t", t), ("p", p)):
        bad = ~np.isin(v, (0, 1))
        if bad.any():
            raise ValueError(f"{name} must hold 0/1 values, got {v[np.flatnonzero(bad)[0]].item()!r}")
    return (2 * np.asarray(t, dtype=np.int64) + np.asarray(p, dtype=np.int64)).astype(np.int64)


def _partition_classes(t: Any, p: Any) -> np.ndarray:
    return np.bincount(_classes_of(np.asarray(t), np.asarray(p)), minlength=4).astype(np.int64)


def partition_class_counts(t: Any, p: Any) -> np.ndarray:
    """(partitions, 4) each partition's rows of each (truth, prediction) class (:data:`~.maxt.CLASSES`), from one
    pass over the Dask Series ``t`` and ``p`` (0/1, partitioned alike): the table's class counts are its column
    sums, and the rows (and the rows of each truth) before a partition its cumulative sums.

    Raises:
        ValueError: other partitions, or a value other than 0/1.
    """
    import dask

    _pair(t, p)
    parts = [dask.delayed(_partition_classes)(a, b)
             for a, b in zip(t.to_delayed(optimize_graph=False), p.to_delayed(optimize_graph=False), strict=True)]
    return np.asarray(dask.compute(*parts), dtype=np.int64).reshape(len(parts), 4)


def keyed_partition_counts(counter: Any, t: np.ndarray, start: int, strata_start: tuple[int, int], scheme: Any,
                           b_start: int, b_stop: int, need: tuple[bool, bool, bool, bool], batch: int = 64
                           ) -> np.ndarray:
    """(candidates, k b) one partition's permuted counts under the keyed permutations ``b_start`` to ``b_stop - 1``:
    the blocks of :meth:`~.maxt.KeyedScheme.columns` (one per needed count, k of them), ``batch`` permutations at a
    time (the rows' 0/1 columns stay rows x 4 batch).

    Args:
        counter: the partition's candidates (a :class:`~.counters.Counter` of its rows).
        t: the partition's truths (0/1).
        start: rows before the partition; ``strata_start``: rows of truth 0 and of truth 1 before it.
        scheme: the :class:`~.maxt.KeyedScheme` (seed and the table's class counts).
    """
    from ..error_control.maxt import keyed_positions

    position, within = keyed_positions(t, None, start, strata_start)
    k, width = sum(need), b_stop - b_start
    out = np.zeros((counter.shape[1], k * width))
    for b0 in range(b_start, b_stop, batch):
        b1 = min(b_stop, b0 + batch)
        got = counter.count(scheme.columns(b0, b1, t, position, within, need))
        for j in range(k):  # block j of this batch into block j of the whole range
            out[:, j * width + b0 - b_start:j * width + b1 - b_start] = got[:, j * (b1 - b0):(j + 1) * (b1 - b0)]
    return out


def _partition_permuted(frame: pd.DataFrame, t: Any, start: int, strata_start: tuple[int, int], items: Items,
                        patterns: list[tuple[int, ...]], radix: np.ndarray, scheme: Any, b_start: int, b_stop: int,
                        need: tuple[bool, bool, bool, bool]) -> np.ndarray:
    counter = CellCounter(partition_codes(frame, items), items.column, items.lo, items.hi, patterns, radix=radix)
    return keyed_partition_counts(counter, np.asarray(t, dtype=np.int64), start, strata_start, scheme, b_start,
                                  b_stop, need)


def permuted_counts(X: Any, t: Any, p: Any, mined: MinedPatterns, seed: int, b_start: int, b_stop: int,
                    need: tuple[bool, bool, bool, bool] = (True, True, True, True),
                    classes: np.ndarray | None = None) -> np.ndarray:
    """(patterns, b_stop - b_start, 4) every mined pattern's counts under the keyed permutations of the max-T
    (:class:`~.maxt.KeyedScheme`; :data:`~.maxt.COUNTS`), counted per partition of the Dask DataFrame ``X`` and
    summed on the client: equal to :class:`~.maxt.KeyedCounts` on the same rows in memory (positions ``0`` to
    ``N - 1`` in the partitions' order), whatever the partitioning.

    Each partition computes its rows' permuted classes from the seed, the table's class counts and the rows'
    global positions (its offset among all rows, and among the rows of each truth, from ``classes``), counts its
    patterns' rows in them through the cells, and returns (patterns, k b) counts; the client adds them up by a
    tree of sums. Only counts travel.

    Args:
        X: Dask DataFrame with the items' columns.
        t, p: Dask Series of truths and predictions (0/1), partitioned as ``X``.
        mined: the patterns.
        seed: the key (an int in [0, 2**64); :func:`~.keyed_permutation.seed_of`).
        b_start, b_stop: the permutations.
        need: which counts to compute (:func:`~.maxt.counts_needed`); the others are NaN.
        classes: (partitions, 4) :func:`partition_class_counts` of ``t`` and ``p`` (default: one pass to get them).

    Returns:
        numpy.ndarray: the counts :func:`~.maxt.max_t_from_counts` takes (from a provider, batch by batch).

    Raises:
        ValueError: ``X``, ``t`` and ``p`` from different collections; values other than 0/1; ``classes`` of
            the wrong shape.

    References:
        J. Black and P. Rogaway, "Ciphers with arbitrary finite domains", CT-RSA 2002.
    """
    import dask

    from ..error_control.keyed_permutation import seed_of
    from ..error_control.maxt import KeyedScheme

    _pair(X, t, p)
    classes = partition_class_counts(t, p) if classes is None else np.asarray(classes, dtype=np.int64)
    if classes.shape != (X.npartitions, 4):
        raise ValueError(f"classes must be ({X.npartitions}, 4) class counts per partition, got {classes.shape}")
    scheme = KeyedScheme(seed_of(seed), classes.sum(axis=0))
    before = np.vstack([np.zeros((1, 4), dtype=np.int64), np.cumsum(classes, axis=0)[:-1]])
    starts = before.sum(axis=1)
    strata = np.column_stack([before[:, 0] + before[:, 1], before[:, 2] + before[:, 3]])
    radix = _radix(mined.items)
    items, patterns = _shipped(mined)
    shipped_scheme = dask.delayed(scheme, pure=True)
    jobs = [dask.delayed(_partition_permuted)(x, a, int(s0), (int(s[0]), int(s[1])), items, patterns, radix,
                                              shipped_scheme, int(b_start), int(b_stop), tuple(need))
            for x, a, s0, s in zip(X.to_delayed(optimize_graph=False), t.to_delayed(optimize_graph=False), starts,
                                   strata, strict=True)]
    counts = np.asarray(tree_reduce(jobs, sum).compute())
    return KeyedScheme.assemble(counts, int(b_stop) - int(b_start), tuple(need))  # type: ignore[arg-type]
