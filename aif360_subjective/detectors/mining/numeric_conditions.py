"""Numeric conditions of the mined patterns: ranges of adjacent quantile bins and one-sided thresholds.

A numeric column with many values is cut at its quantiles. Two kinds of condition are built on the cut:

* **ranges**, every run of 1 to ``max_merge`` adjacent bins of the ``n_bins`` quantile bins
  (``25 ≤ age < 34``; ``age ∈ [25, 34)`` without thresholds, as before them);
* **one-sided thresholds** at the quantiles ``1/T, 2/T, ..., (T-1)/T`` (``T`` = ``thresholds``; 20: the 5 %,
  10 %, ..., 95 % quantiles), each on both sides: ``age ≥ 49`` and ``age < 49``. People write the subgroups they
  worry about this way ("over 50", "income below 20k"), and a condition on one side of a cut that leaves more
  than ``max_merge`` bins cannot be written as a range.

Both are runs of adjacent **base bins**: the base bins are cut at the union of the bin edges and the threshold
edges, so a range is the run between two bin edges and a threshold the run from the first base bin (``<``) or to
the last (``≥``). Every condition is thus a row set that is a run of base codes, the form the miner and the cell
counter (:mod:`.cell_counts`) take; a threshold that selects the same rows as a range is kept once, with its
one-sided text. The bin edges are computed exactly as without thresholds (the same quantiles of the same
column), so the ranges select the same rows with or without them.

**Readable cuts.** A threshold edge is a quantile, an interpolated number such as 48.5 or 21,437.6. Its text uses
the roundest number ``r`` with ``below < r <= at``, where ``at`` is the smallest value of the column at or above
the edge and ``below`` the largest value under it (:func:`readable_cut`): ``x ≥ r`` then selects exactly the rows
``x ≥ edge`` does, and on an integer column ``r`` is an integer the data holds or a rounder one (``age ≥ 49``, not
``age ≥ 48.5``). The cut is printed with thousands separators (``income < 21,400``).

References:
    Y. Chung et al., "Slice finder: automated data slicing for model validation", ICDE 2019 (slices cut at
    thresholds by decision trees).
    E. Pastor, L. de Alfaro and E. Baralis, "Looking for trouble: analyzing classifier behavior via pattern
    divergence", SIGMOD 2021 (numeric columns binned into intervals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["NumericCut", "base_edges", "bin_quantiles", "check_thresholds", "condition_text", "cut_neighbours",
           "cut_text", "numeric_items", "readable_cut", "threshold_quantiles"]

#: The sign of a one-sided condition, as its text reads (>= and < as people write them).
AT_LEAST, BELOW = "≥", "<"


def bin_quantiles(n_bins: int) -> np.ndarray:
    """The quantiles of the range bins' edges: ``0, 1/n_bins, ..., 1``."""
    return np.linspace(0.0, 1.0, n_bins + 1)


def threshold_quantiles(thresholds: int | None) -> np.ndarray:
    """The quantiles of the one-sided conditions: ``1/T, ..., (T-1)/T`` (none when ``thresholds`` is None)."""
    if thresholds is None:
        return np.zeros(0)
    return np.linspace(0.0, 1.0, int(thresholds) + 1)[1:-1]


def check_thresholds(thresholds: Any, n_rows: int) -> int | None:
    """``thresholds`` as the mining takes it (``n_rows``: the rows of a column it cuts; 0: not checked).

    Raises:
        TypeError: not an int or None.
        ValueError: below 2, or a grid finer than the rows: more quantile steps than rows (each step would hold
            less than one row).
    """
    if thresholds is None:
        return None
    if isinstance(thresholds, bool) or not isinstance(thresholds, int | np.integer):
        raise TypeError(f"thresholds must be an int >= 2 (quantile steps of the one-sided conditions) or None, got "
                        f"{thresholds!r}")
    if thresholds < 2:
        raise ValueError(f"thresholds must be >= 2 (quantile steps of the one-sided conditions) or None, got "
                         f"{thresholds}")
    if n_rows > 0 and thresholds > n_rows:
        raise ValueError(f"thresholds={thresholds} asks for quantile steps of 1/{thresholds} of the rows, finer than "
                         f"the {n_rows:,} rows allow (each step would hold less than one row); pass at most "
                         f"thresholds={max(2, n_rows)}, or None for ranges only")
    return int(thresholds)


def readable_cut(below: float, at: float) -> float:
    """The roundest number ``r`` with ``below < r <= at``: ``x >= r`` selects the same values as ``x >= at`` when no
    value lies strictly between ``below`` and ``at``.

    Rounder means a multiple of a larger power of ten (then of five times one): 50 before 45 before 47, 0 before
    anything. ``below`` may be ``-inf`` (no value under the cut).

    Args:
        below: the largest value under the cut.
        at: the smallest value at or above it (finite, > ``below``).

    Returns:
        float: ``r``; ``at`` itself when no rounder number fits (as when the two differ in their last bit).
    """
    if not below < at:
        raise ValueError(f"readable_cut needs below < at, got {below!r} and {at!r}")
    if below < 0.0 <= at:
        return 0.0
    top = max(abs(at), abs(below) if math.isfinite(below) else abs(at))
    e = math.floor(math.log10(top)) + 1
    # steps 10^e, 5 x 10^(e-1), 10^(e-1), ... down to 15 significant digits (float64 resolves about 15.9)
    for exp in range(e, e - 16, -1):
        for step in (10.0 ** exp, 5.0 * 10.0 ** (exp - 1)):
            r = round(math.floor(at / step) * step, max(0, 1 - exp))  # rounding clears 0.30000000000000004
            if below < r <= at:
                return float(r)
    return float(at)


def cut_text(r: float) -> str:
    """``r`` as people write it: thousands separators, the shortest decimals that are the same number (``21,400``,
    ``0.35``, ``-3``)."""
    if float(r).is_integer() and abs(r) < 1e15:
        return f"{int(r):,}"
    text = repr(float(r))  # the shortest text that reads back as the same float64
    if "e" in text or "inf" in text or "nan" in text:
        return text
    whole, _, frac = text.partition(".")
    return f"{int(whole):,}.{frac}" if whole not in ("-0",) else f"-0.{frac}"


def condition_text(value: tuple[float, float, bool]) -> str:
    """A numeric condition ``(low, high, closed)`` of a readable cut without its column: ``≥ 49``, ``< 21,400``,
    ``≥ 44 and < 49``."""
    low, high, closed = value
    if math.isinf(low):
        return f"{BELOW} {cut_text(high)}"
    if math.isinf(high):
        return f"{AT_LEAST} {cut_text(low)}"
    return f"{AT_LEAST} {cut_text(low)} and {'≤' if closed else BELOW} {cut_text(high)}"


def cut_neighbours(x: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per edge, the largest value of ``x`` under it (``-inf``: none) and the smallest at or above it (``inf``:
    none). Reduced over parts of a column by the maximum and the minimum."""
    s = np.sort(np.asarray(x, dtype=np.float64))
    k = np.searchsorted(s, edges, side="left")
    below = np.where(k > 0, s[np.maximum(k - 1, 0)] if len(s) else -np.inf, -np.inf)
    at = np.where(k < len(s), s[np.minimum(k, len(s) - 1)] if len(s) else np.inf, np.inf)
    return below.astype(np.float64), at.astype(np.float64)


@dataclass(frozen=True)
class NumericCut:
    """The conditions of one numeric column (see the module's docstring).

    Attributes:
        labels: readable condition per item.
        values: per item ``(low, high, closed)``: the rows ``low <= x < high`` (``<= high`` when closed); a
            threshold is ``(r, inf, False)`` for ``x ≥ r`` and ``(-inf, r, False)`` for ``x < r``.
        lo, hi: per item, the run of base bins it covers, ``lo <= code < hi``.
        edges: the base bins' edges: base bin ``b`` is ``[edges[b], edges[b + 1])``, the last one closed.
        n_thresholds: one-sided conditions among the items.
    """

    labels: list[str]
    values: list[tuple[float, float, bool]]
    lo: list[int]
    hi: list[int]
    edges: np.ndarray
    n_thresholds: int


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def base_edges(bin_edges: np.ndarray, threshold_edges: np.ndarray | None) -> np.ndarray:
    """The base bins' edges: the bin edges and the threshold edges strictly inside them (a cut at the minimum or
    the maximum keeps every row on one side), sorted and distinct."""
    if threshold_edges is None:
        return np.asarray(bin_edges, dtype=np.float64)
    t = np.asarray(threshold_edges, dtype=np.float64)
    t = t[(t > bin_edges[0]) & (t < bin_edges[-1])]
    return np.unique(np.concatenate([np.asarray(bin_edges, dtype=np.float64), t]))


def numeric_items(c: str, bin_edges: np.ndarray, threshold_edges: np.ndarray | None, max_merge: int,
                  below: np.ndarray | None = None, at: np.ndarray | None = None) -> NumericCut:
    """Ranges of 1 to ``max_merge`` adjacent bins (leaving out the run of every bin) and the one-sided conditions
    at the inner threshold edges, as runs of base bins (:func:`base_edges`).

    With ``threshold_edges`` (None: ranges only, labelled ``age ∈ [43.7, 48.6)`` by their edges to 4 significant
    digits, as before one-sided conditions) every cut is written as :func:`readable_cut` of its neighbours, and
    a range as people write it: ``44 ≤ age < 49`` (the rows of ``[43.7, 48.6)``), and one from the minimum or to
    the maximum as the one-sided condition it is (``age < 34``, ``age ≥ 78``).

    Args:
        c: the column's name.
        bin_edges: the distinct bin edges (at least 3).
        threshold_edges: the threshold edges (any: repeated ones and those outside ``(min, max)`` are left out),
            or None.
        max_merge: longest run of bins forming one range.
        below, at: with ``threshold_edges``, per base edge, :func:`cut_neighbours` of the column.

    Returns:
        NumericCut
    """
    edges = base_edges(bin_edges, threshold_edges)
    n_base = len(edges) - 1
    bin_pos = np.searchsorted(edges, bin_edges)  # exact: every bin edge is an edge of the base bins
    readable = threshold_edges is not None
    if threshold_edges is not None:
        if below is None or at is None or len(below) != len(edges) or len(at) != len(edges):
            raise ValueError("numeric_items needs the neighbours of every base edge with threshold_edges")
        cut = [float(edges[0])] + [readable_cut(float(b), float(a)) for b, a in zip(below[1:-1], at[1:-1],
                                                                                   strict=True)] + [float(edges[-1])]
        t_pos = np.searchsorted(edges, np.unique(np.asarray(threshold_edges, dtype=np.float64)))
        t_pos = t_pos[(t_pos > 0) & (t_pos < n_base)]
        t_pos = t_pos[np.isin(edges[t_pos], threshold_edges)]
    else:
        cut, t_pos = [float(e) for e in edges], np.zeros(0, dtype=np.int64)
    # the thresholds first, by their run: a range over the same run takes the threshold's words
    one_sided: dict[tuple[int, int], tuple[str, tuple[float, float, bool]]] = {}
    for p in t_pos.tolist():
        r = cut[p]
        one_sided[(0, p)] = (f"{c} {BELOW} {cut_text(r)}", (-math.inf, r, False))
        one_sided[(p, n_base)] = (f"{c} {AT_LEAST} {cut_text(r)}", (r, math.inf, False))
    n_b = len(bin_edges) - 1
    labels, values, lo, hi = [], [], [], []
    for width in range(1, max_merge + 1):
        for a_bin in range(n_b - width + 1):
            b_bin = a_bin + width
            if a_bin == 0 and b_bin == n_b:
                continue
            run = (int(bin_pos[a_bin]), int(bin_pos[b_bin]))
            if run in one_sided:
                label, value = one_sided.pop(run)
            elif readable and run[0] == 0:  # from the minimum: one-sided in words
                label, value = f"{c} {BELOW} {cut_text(cut[run[1]])}", (-math.inf, cut[run[1]], False)
            elif readable and run[1] == n_base:  # to the maximum
                label, value = f"{c} {AT_LEAST} {cut_text(cut[run[0]])}", (cut[run[0]], math.inf, False)
            elif readable:
                low, high = cut[run[0]], cut[run[1]]
                label, value = f"{cut_text(low)} ≤ {c} < {cut_text(high)}", (low, high, False)
            else:
                closed = b_bin == n_b
                low, high = cut[run[0]], cut[run[1]]
                label = f"{c} ∈ [{_fmt(low)}, {_fmt(high)}{']' if closed else ')'}"
                value = (low, high, bool(closed))
            labels.append(label)
            values.append(value)
            lo.append(run[0])
            hi.append(run[1])
    n_thr = sum(1 for v in values if math.isinf(v[0]) or math.isinf(v[1]))
    # the rest by their cut, "<" before "≥"
    for (a_run, b_run), (label, value) in sorted(one_sided.items(),
                                                 key=lambda kv: (kv[0][1], 0) if kv[0][0] == 0 else (kv[0][0], 1)):
        labels.append(label)
        values.append(value)
        lo.append(a_run)
        hi.append(b_run)
    return NumericCut(labels, values, lo, hi, edges, n_thr + len(one_sided))
