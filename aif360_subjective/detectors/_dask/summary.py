"""The first passes of subgroup discovery over a Dask DataFrame: what every column holds, and exact quantiles.

One pass (:func:`summarise`) returns, per partition, its length, whether its label Series line up with it, and
per feature column: its dtype, missing and infinite values, the kind of Python objects of an object column
(``pandas.api.types.infer_dtype``), its minimum and maximum, and its value counts while they have at most
:data:`MAX_VALUE_COUNTS` distinct values; for the labels, the counts of every (y_true, y_pred) pair. Only these
counts reach the client, which adds them (:func:`merge`).

**Exact quantile edges.** The in-memory items cut a numeric column at ``numpy.quantile(x, q)`` (linear
interpolation between the order statistics at ``floor((n - 1) q)`` and the next). Dask's own quantiles are
approximate (t-digest / per-partition percentiles merged), so a cut would move and the candidates with it. Here
the order statistics are found exactly:

* a column whose partitions all returned value counts: the k-th smallest value is read off the merged counts;
* any other: one pass counts the rows in :data:`HISTOGRAM_BINS` equal-width bins between the column's minimum and
  maximum; the bins holding the wanted ranks are then refined the same way (at most :data:`MAX_REFINEMENTS`
  passes) until each holds at most :data:`MAX_BIN_ROWS` rows, and a last pass returns the value counts of those
  few bins only, from which the ranks are read. The interpolation is numpy's own arithmetic
  (:func:`quantiles_from_order_statistics`), so the edges equal ``numpy.quantile`` bit for bit.

References:
    R. J. Hyndman and Y. Fan, "Sample quantiles in statistical packages", The American Statistician 50(4), 1996
    (definition 7, numpy's ``linear``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..._dask.parts import DaskParts
from .parts import Parts

__all__ = ["MAX_VALUE_COUNTS", "HISTOGRAM_BINS", "ColumnSummary", "TableSummary", "summarise", "merge",
           "exact_quantiles", "quantiles_from_order_statistics"]

#: Distinct values of one column in one partition up to which its value counts are returned.
MAX_VALUE_COUNTS = 10_000
#: Equal-width bins of one histogram pass of the exact quantiles.
HISTOGRAM_BINS = 4096
#: Rows of a bin holding a wanted rank below which its values are counted (a last pass) instead of refined.
MAX_BIN_ROWS = 200_000
#: Histogram refinements at most (a bin of one repeated value cannot be refined: its value counts are one entry).
MAX_REFINEMENTS = 3


@dataclass
class ColumnSummary:
    """What one feature column holds over every partition.

    Attributes:
        dtypes: the dtypes of the non-empty partitions.
        inferred: ``infer_dtype`` of each non-empty partition of an object column (empty otherwise).
        missing: missing values.
        infinite: infinite values (numeric columns).
        low, high: the minimum and maximum (numeric columns; NaN otherwise).
        counts: value -> rows over every partition, or None when a partition had more than
            :data:`MAX_VALUE_COUNTS` distinct values.
    """

    dtypes: set[str] = field(default_factory=set)
    inferred: set[str] = field(default_factory=set)
    missing: int = 0
    infinite: int = 0
    low: float = np.inf
    high: float = -np.inf
    counts: pd.Series | None = None


@dataclass
class TableSummary:
    """The merged summaries: rows per partition, the columns, the (y_true, y_pred) pair counts."""

    lengths: np.ndarray
    aligned: bool
    columns: dict[str, ColumnSummary]
    pairs: pd.Series
    pair_parts: list[pd.Series] = field(default_factory=list)

    @property
    def n(self) -> int:
        """Rows of the table."""
        return int(self.lengths.sum())

    @property
    def offsets(self) -> np.ndarray:
        """Global position of each partition's first row."""
        return np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _partition_summary(frame: pd.DataFrame, yt: pd.Series, yp: pd.Series) -> dict[str, Any]:
    cols: dict[str, Any] = {}
    for c in frame.columns:
        s = frame[c]
        missing = int(s.isna().sum())
        inferred = pd.api.types.infer_dtype(s, skipna=True) if s.dtype == object and len(s) else ""
        low = high = np.nan
        infinite = 0
        if _is_numeric(s) and len(s):
            x = s.to_numpy(dtype=np.float64, na_value=np.nan)
            infinite = int(np.isinf(x).sum())
            if missing < len(x):
                low, high = float(np.nanmin(x)), float(np.nanmax(x))
        counts = None
        if not inferred.startswith("mixed"):  # an unorderable mix: refused on the client, never sorted
            vc = s.value_counts(sort=False, dropna=True)
            counts = vc[vc > 0] if len(vc) <= MAX_VALUE_COUNTS or not _is_numeric(s) else None
        cols[c] = (str(s.dtype) if len(s) else "", inferred, missing, infinite, low, high, counts)
    aligned = len(yt) == len(frame) == len(yp) and yt.index.equals(frame.index) and yp.index.equals(frame.index)
    pairs = (pd.DataFrame({"t": yt.to_numpy(), "p": yp.to_numpy()}).value_counts(dropna=False, sort=False)
             if aligned else pd.Series(dtype=np.int64))  # refused on the client
    return {"n": len(frame), "aligned": bool(aligned), "columns": cols, "pairs": pairs}


def _parts(X: Any, t: Any = None, p: Any = None) -> Parts:
    """``X`` as partitions: a :class:`~.parts.Parts` as it is, a Dask DataFrame (with its label Series) wrapped."""
    return X if hasattr(X, "total") else DaskParts(X, t, p)


def summarise(X: Any, t: Any = None, p: Any = None) -> TableSummary:
    """One pass over the partitions (a :class:`~.parts.Parts`, or the Dask DataFrame ``X`` and the Dask Series
    ``t`` and ``p``, as many partitions as ``X``, paired by position): see the module's docstring."""
    return merge(_parts(X, t, p).map(_partition_summary, labels=True))


def merge(parts: list[dict[str, Any]]) -> TableSummary:
    """The summaries of every partition added up."""
    columns: dict[str, ColumnSummary] = {}
    # per column, the partitions' value counts while every partition returned them (None once one did not)
    count_parts: dict[str, list[pd.Series] | None] = {}
    for part in parts:
        for c, (dtype, inferred, missing, infinite, low, high, counts) in part["columns"].items():
            col = columns.setdefault(c, ColumnSummary())
            seen = count_parts.setdefault(c, [])
            if dtype:
                col.dtypes.add(dtype)
            if inferred:
                col.inferred.add(inferred)
            col.missing += missing
            col.infinite += infinite
            if np.isfinite(low):
                col.low = min(col.low, low)
            if np.isfinite(high):
                col.high = max(col.high, high)
            if counts is None:
                count_parts[c] = None
            elif len(counts) and seen is not None:
                seen.append(counts)
    for c, col in columns.items():
        seen = count_parts[c]
        if seen is not None:
            col.counts = (pd.concat(seen).groupby(level=0, sort=False, observed=True).sum()
                          if seen else pd.Series(dtype=np.int64))
    pair_parts = [part["pairs"] for part in parts if len(part["pairs"])]
    pairs = (pd.concat(pair_parts).groupby(level=[0, 1], sort=False, dropna=False).sum() if pair_parts
             else pd.Series(dtype=np.int64))
    return TableSummary(lengths=np.array([part["n"] for part in parts], dtype=np.int64),
                        aligned=all(part["aligned"] for part in parts), columns=columns, pairs=pairs,
                        pair_parts=[part["pairs"] for part in parts])


def quantiles_from_order_statistics(kth: Callable[[np.ndarray], np.ndarray], n: int, q: np.ndarray) -> np.ndarray:
    """``numpy.quantile(x, q)`` (method ``"linear"``) of ``n`` values given ``kth(k)``, their k-th smallest
    values (0-based, an array of ranks): numpy's index and interpolation arithmetic, step for step, so the result
    is the same float."""
    virtual = (n - 1) * np.asarray(q, dtype=np.float64)
    prev = np.floor(virtual)
    nxt = prev + 1
    above = virtual >= n - 1  # numpy takes the largest value there (index -1)
    prev[above] = -1
    nxt[above] = -1
    prev_i, next_i = prev.astype(np.intp), nxt.astype(np.intp)
    gamma = np.asarray(virtual - prev_i, dtype=np.float64)
    a, b = kth(np.where(prev_i < 0, n - 1, prev_i)), kth(np.where(next_i < 0, n - 1, next_i))
    diff = b - a
    out = a + diff * gamma
    late = gamma >= 0.5
    out[late] = (b - diff * (1 - gamma))[late]
    result: np.ndarray = out
    return result


def _kth_of_counts(values: np.ndarray, counts: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """k-th smallest of a multiset given as sorted distinct ``values`` and their ``counts``."""
    cum = np.cumsum(counts)
    return lambda k: values[np.searchsorted(cum, k, side="right")]


def _wanted_ranks(n: int, q: np.ndarray) -> np.ndarray:
    virtual = (n - 1) * q
    prev = np.minimum(np.floor(virtual), n - 1).astype(np.int64)
    return np.unique(np.concatenate([prev, np.minimum(prev + 1, n - 1)]))


def _edges(low: float, high: float) -> np.ndarray:
    """The :data:`HISTOGRAM_BINS` + 1 edges of equal-width bins of [low, high] (the same floats on every worker)."""
    e = low + (high - low) * (np.arange(HISTOGRAM_BINS + 1, dtype=np.float64) / HISTOGRAM_BINS)
    e[-1] = high
    return e


def _in_span(x: np.ndarray, low: float, high: float, closed: bool) -> np.ndarray:
    return (x >= low) & ((x <= high) if closed else (x < high))


def _partition_histograms(frame: pd.DataFrame, jobs: list[tuple[str, tuple[float, float, bool]]]) -> np.ndarray:
    """(jobs, bins) rows of each span in each of its bins: bin ``b`` is ``[e[b], e[b + 1])`` of :func:`_edges`, the
    last one closed when the span is (value comparisons, so that a bin is again a span of values)."""
    out = np.zeros((len(jobs), HISTOGRAM_BINS), dtype=np.int64)
    for j, (c, (low, high, closed)) in enumerate(jobs):
        x = frame[c].to_numpy(dtype=np.float64)
        x = x[_in_span(x, low, high, closed)]
        out[j] = np.bincount(np.searchsorted(_edges(low, high)[1:-1], x, side="right"), minlength=HISTOGRAM_BINS)
    return out


def _partition_values(frame: pd.DataFrame, ranges: dict[str, list[tuple[float, float, bool]]]) -> dict[str, pd.Series]:
    out = {}
    for c, spans in ranges.items():
        x = frame[c].to_numpy(dtype=np.float64)
        keep = np.zeros(len(x), dtype=bool)
        for low, high, closed in spans:
            keep |= _in_span(x, low, high, closed)
        out[c] = pd.Series(x[keep]).value_counts(sort=False)
    return out


def exact_quantiles(X: Any, summary: TableSummary, columns: list[str], q: np.ndarray) -> dict[str, np.ndarray]:
    """``numpy.quantile(column, q)`` of each of ``columns`` of ``X`` (a :class:`~.parts.Parts` or a Dask
    DataFrame), exactly (see the module's docstring): from the summary's value counts where it holds them, else by
    histogram passes.

    Returns:
        dict: column -> the quantiles (float64).
    """
    parts = _parts(X)
    n = summary.n
    ranks = _wanted_ranks(n, q)
    out: dict[str, np.ndarray] = {}
    # column -> per wanted rank: (low, high, closed, rows below the span)
    spans: dict[str, list[tuple[float, float, bool, int]]] = {}
    for c in columns:
        col = summary.columns[c]
        if col.counts is not None:
            vc = col.counts.copy()
            vc.index = vc.index.astype(np.float64)
            vc = vc.groupby(level=0).sum().sort_index()
            out[c] = quantiles_from_order_statistics(_kth_of_counts(vc.index.to_numpy(), vc.to_numpy()), n, q)
        else:
            spans[c] = [(col.low, col.high, True, 0)] * len(ranks)
    for _ in range(MAX_REFINEMENTS + 1):
        wide = {c: sorted({s[:3] for s in sp if s[0] < s[1]}) for c, sp in spans.items()}
        # every span of a column is refined in its own histogram; a span of one value needs no refinement
        jobs = [(c, s) for c, ss in wide.items() for s in ss]
        if not jobs:
            break
        counts_of_span: dict[tuple[str, tuple[float, float, bool]], np.ndarray] = {}
        for j0 in range(0, len(jobs), 64):  # one pass for up to 64 spans
            batch = jobs[j0:j0 + 64]
            summed = parts.total(_partition_histograms, batch)
            for job, h in zip(batch, summed, strict=True):
                counts_of_span[job] = h
        done = True
        for c, sp in spans.items():
            new = []
            for (low, high, closed, below), r in zip(sp, ranks, strict=True):
                if not low < high:
                    new.append((low, high, closed, below))
                    continue
                h = counts_of_span[(c, (low, high, closed))]
                cum = np.cumsum(h) + below
                k = int(np.searchsorted(cum, r, side="right"))
                e = _edges(low, high)
                last = k == HISTOGRAM_BINS - 1
                new.append((float(e[k]), float(e[k + 1]), last and closed, int(cum[k] - h[k])))
                done = done and h[k] <= MAX_BIN_ROWS
            spans[c] = new
        if done:
            break
    if spans:
        # the last pass: value counts of the spans holding the wanted ranks; a value sits in the span its bin says
        per_col = {c: sorted({s[:3] for s in sp}) for c, sp in spans.items()}
        got = parts.map(_partition_values, per_col)
        for c, sp in spans.items():
            vc = pd.concat([g[c] for g in got]).groupby(level=0).sum().sort_index()
            values, counts = vc.index.to_numpy(dtype=np.float64), vc.to_numpy()
            table: dict[int, float] = {}
            for (low, high, closed, below), r in zip(sp, ranks, strict=True):
                inside = _in_span(values, low, high, closed)
                v, k = values[inside], counts[inside]
                table[int(r)] = float(v[np.searchsorted(np.cumsum(k), r - below, side="right")])

            def kth(k: np.ndarray, table: dict[int, float] = table) -> np.ndarray:
                return np.array([table[int(i)] for i in k])

            out[c] = quantiles_from_order_statistics(kth, n, q)
    return out
