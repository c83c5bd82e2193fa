"""Uncertainty of the opinion-exclusion figures: a two-level bootstrap over annotators and annotations.

The opinion-exclusion metric summarises a model by the mean (performance) and the standard deviation
(unfairness) of per-group values, each group value being the mean performance of the group's annotators (or
the performance over the group's pooled annotations). Both numbers depend on which annotators happened to be
in each group and on which of their annotations were observed, so both are resampled here:

1. **Annotators within each group** (level 1): each group keeps its size and draws its annotators with
   replacement. Groups are *held fixed*, not re-formed from the resample: ADR bins keep their edges and every
   annotator keeps its bin (resampling is stratified by group), so an interval belongs to a named group. For
   groupings whose units are items or annotations (ambiguity, popularity), the resampled units are the
   (group, annotator) pairs the group's value is built from.
2. **Annotations within each drawn annotator** (level 2): the annotator's confusion counts are redrawn from a
   multinomial with its own observed proportions. Without this level a group of one or two annotators would
   show no spread at all and its interval would pretend certainty; with it, a single annotator with n
   annotations and accuracy a contributes the binomial spread a(1-a)/n.

Resampling at both levels counts the within-annotator noise twice in the level-1 variance (Davison & Hinkley
1997, §3.8), which widens the groups' intervals a little. Items are not resampled (the intervals are conditional
on the items annotated) unless :func:`crossed_group_values` is used. Measured coverage:
``benchmarks/opinion_coverage.py`` and the guide ("Reading the numbers").

Intervals are bias-corrected percentile intervals (Efron 1987). When the replicates lie almost entirely on one
side of the estimate, the interval is widened to contain it and the result says so (``extended``). The
unfairness's headline interval is not a bootstrap one: a standard deviation across noisy group values is biased
upwards and its bootstrap interval never reaches 0 (see :mod:`~aif360_subjective.opinion.equal_service`).

Everything is vectorised over replicates and annotators (chunks of replicates bound the memory); there is no
Python loop per annotation, annotator or replicate beyond the chunking.

References:
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
    Davison, A. C., Hinkley, D. V. (1997). Bootstrap Methods and their Application, §3.8 (hierarchical data).
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = [
    "BootstrapInterval",
    "Interval",
    "bootstrap_group_values",
    "bootstrap_interval",
    "crossed_group_values",
    "spread_across_groups",
    "mean_across_groups",
]

# Bound on replicates x pairs x cells held at once (about 160 MB of int64).
_MAX_CELLS = 20_000_000


class Interval(tuple[float, float]):
    """A confidence interval as the tuple ``(low, high)``; subclasses carry the details as attributes."""

    @property
    def low(self) -> float:
        return self[0]

    @property
    def high(self) -> float:
        return self[1]


class BootstrapInterval(Interval):
    """A bootstrap confidence interval: the tuple ``(low, high)`` with the details as attributes.

    Attributes:
        low, high: the interval's bounds (also ``interval[0]``, ``interval[1]``).
        estimate: the point estimate it belongs to.
        ci: the confidence level.
        n_boot: replicates drawn; ``n_valid`` of them gave a defined value.
        extended: True when the bias-corrected interval missed the estimate and was widened to contain it
            (the replicates lay almost all on one side of it).
    """

    estimate: float
    ci: float
    n_boot: int
    n_valid: int
    extended: bool

    def __new__(
        cls, low: float, high: float, *, estimate: float, ci: float, n_boot: int, n_valid: int, extended: bool = False
    ) -> BootstrapInterval:
        self = super().__new__(cls, (float(low), float(high)))
        self.estimate, self.ci, self.n_boot, self.n_valid, self.extended = (
            float(estimate), float(ci), int(n_boot), int(n_valid), bool(extended)
        )
        return self

    def __repr__(self) -> str:
        flag = ", extended to the estimate" if self.extended else ""
        return (f"BootstrapInterval(low={self.low:.4g}, high={self.high:.4g}, estimate={self.estimate:.4g}, "
                f"ci={self.ci:g}, n_valid={self.n_valid}/{self.n_boot}{flag})")


def _sorted_slots(pair_group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    order = np.argsort(pair_group, kind="stable")
    g_sorted = pair_group[order]
    sizes = np.bincount(pair_group, minlength=n_groups)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return order, g_sorted, sizes, starts


def _redraw_counts(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Multinomial redraw of every row of ``counts`` (..., K) with its own size and proportions.

    Chained binomials: cell k gets Binomial(remaining, c_k / remaining_mass), which is the multinomial and
    much faster than numpy's multinomial on large broadcast arrays.
    """
    counts = counts.astype(np.int64, copy=False)
    out = np.empty_like(counts)
    remaining = counts.sum(axis=-1)
    mass = remaining.astype(np.float64)
    for k in range(counts.shape[-1] - 1):
        ck = counts[..., k]
        p = np.zeros(ck.shape)
        np.divide(ck, mass, out=p, where=mass > 0)
        np.clip(p, 0.0, 1.0, out=p)
        draw = rng.binomial(remaining, p)
        out[..., k] = draw
        remaining = remaining - draw
        mass = mass - ck
    out[..., -1] = remaining
    return out


def bootstrap_group_values(
    pair_group: np.ndarray,
    pair_counts: np.ndarray,
    n_groups: int,
    score: Callable[[np.ndarray], np.ndarray],
    *,
    aggregate: str = "annotator",
    n_boot: int = 1000,
    rng: np.random.Generator,
    levels: str = "both",
) -> np.ndarray:
    """Bootstrap replicates of every group's value.

    Args:
        pair_group: group code (0..n_groups-1) of every unit the group values are built from: an annotator,
            or a (group, annotator) pair.
        pair_counts: count matrix (n_pairs, K) of each unit's annotations in K cells (e.g. TP, FP, TN, FN, or
            correct, wrong): what ``score`` turns into a performance.
        n_groups: number of groups.
        score: maps counts (..., K) to a performance (...), NaN where undefined.
        aggregate: "annotator" (group value = mean of its units' performances, NaN ones skipped) or "pooled"
            (group value = performance of the summed counts).
        n_boot: number of replicates.
        rng: the random generator.
        levels: "both" (annotators, then their annotations) or "annotators" (level 1 only).

    Returns:
        numpy.ndarray: shape (n_boot, n_groups), NaN where a replicate leaves a group's value undefined (and
        for groups without units).
    """
    pair_group = np.asarray(pair_group, dtype=np.int64)
    pair_counts = np.asarray(pair_counts)
    n_pairs, n_cells = pair_counts.shape
    out = np.full((n_boot, n_groups), np.nan)
    if n_pairs == 0 or n_boot == 0:
        return out
    order, g_sorted, sizes, starts = _sorted_slots(pair_group, n_groups)
    counts_sorted = pair_counts[order]
    member = np.zeros((n_pairs, n_groups))
    member[np.arange(n_pairs), g_sorted] = 1.0
    has_units = sizes > 0
    chunk = max(1, _MAX_CELLS // max(1, n_pairs * n_cells))
    for b0 in range(0, n_boot, chunk):  # bounded memory; each chunk is fully vectorised
        b = min(chunk, n_boot - b0)
        u = rng.random((b, n_pairs))
        idx = starts[g_sorted] + np.floor(u * sizes[g_sorted]).astype(np.int64)
        c = counts_sorted[idx]  # (b, n_pairs, K)
        if levels == "both":
            c = _redraw_counts(c, rng)
        vals = _aggregate(c, member, score, aggregate)
        vals[:, ~has_units] = np.nan
        out[b0 : b0 + b] = vals
    return out


def _aggregate(c: np.ndarray, member: np.ndarray, score: Callable[[np.ndarray], np.ndarray],
               aggregate: str) -> np.ndarray:
    """Group values ``(b, n_groups)`` from replicate counts ``(b, n_pairs, K)`` (units in group order)."""
    if aggregate == "annotator":
        v = score(c)
        defined = ~np.isnan(v)
        total = np.where(defined, v, 0.0) @ member
        k = defined.astype(np.float64) @ member
        vals = np.full(total.shape, np.nan)
        np.divide(total, k, out=vals, where=k > 0)
        return vals
    pooled = np.stack([c[..., j].astype(np.float64) @ member for j in range(c.shape[-1])], axis=-1)
    return np.asarray(score(pooled), dtype=np.float64)


def crossed_group_values(
    pair_group: np.ndarray,
    row_unit: np.ndarray,
    row_cell: np.ndarray,
    row_item: np.ndarray,
    n_items: int,
    n_cells: int,
    n_groups: int,
    score: Callable[[np.ndarray], np.ndarray],
    *,
    aggregate: str = "annotator",
    n_boot: int = 1000,
    rng: np.random.Generator,
) -> np.ndarray:
    """Bootstrap replicates of every group's value, resampling items as well as annotators (crossed).

    Each replicate draws the items with replacement (multinomial weights over all items, shared by every
    annotator, so an item's difficulty moves every group at once) and, independently, the annotators within each
    group; a unit's counts are then its rows' cells weighted by their item's draw. This is the pigeonhole
    bootstrap of a crossed (annotators x items) design: it counts both sources of noise (slightly conservative,
    Owen 2007), where :func:`bootstrap_group_values` holds the items fixed.

    Args:
        pair_group: group code of every unit.
        row_unit: unit code of every annotation row (-1 = ungrouped).
        row_cell: cell (0..n_cells-1) of every row (e.g. TN, FP, FN, TP; or the error-histogram column).
        row_item: item code of every row.
        n_items, n_cells, n_groups: sizes.
        score, aggregate, n_boot, rng: as in :func:`bootstrap_group_values`.

    Returns:
        numpy.ndarray: shape (n_boot, n_groups).

    References:
        Owen, A. B. (2007). The pigeonhole bootstrap. The Annals of Applied Statistics 1(2), 386-411.
    """
    from scipy import sparse

    pair_group = np.asarray(pair_group, dtype=np.int64)
    n_pairs = len(pair_group)
    out = np.full((n_boot, n_groups), np.nan)
    if n_pairs == 0 or n_boot == 0:
        return out
    order, g_sorted, sizes, starts = _sorted_slots(pair_group, n_groups)
    rank = np.empty(n_pairs, dtype=np.int64)
    rank[order] = np.arange(n_pairs)  # unit code -> its slot in group order
    keep = row_unit >= 0
    key = rank[row_unit[keep]] * n_cells + row_cell[keep]
    counts = sparse.csr_matrix((np.ones(int(keep.sum())), (key, row_item[keep])), shape=(n_pairs * n_cells, n_items))
    member = np.zeros((n_pairs, n_groups))
    member[np.arange(n_pairs), g_sorted] = 1.0
    has_units = sizes > 0
    chunk = max(1, _MAX_CELLS // max(1, n_pairs * n_cells + n_items))
    for b0 in range(0, n_boot, chunk):
        b = min(chunk, n_boot - b0)
        weights = rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=b).T.astype(np.float64)
        c_all = np.asarray(counts @ weights).reshape(n_pairs, n_cells, b).transpose(2, 0, 1)  # (b, units, cells)
        u = rng.random((b, n_pairs))
        idx = starts[g_sorted] + np.floor(u * sizes[g_sorted]).astype(np.int64)
        c = c_all[np.arange(b)[:, None], idx]
        vals = _aggregate(c, member, score, aggregate)
        vals[:, ~has_units] = np.nan
        out[b0 : b0 + b] = vals
    return out


def spread_across_groups(values: np.ndarray) -> np.ndarray:
    """Population standard deviation across groups (last axis), undefined groups skipped; NaN if none."""
    values = np.atleast_2d(values)
    defined = ~np.isnan(values)
    k = defined.sum(axis=-1)
    filled = np.where(defined, values, 0.0)
    mean = np.divide(filled.sum(axis=-1), k, out=np.full(k.shape, np.nan), where=k > 0)
    dev = np.where(defined, values - mean[..., None], 0.0)
    var = np.divide((dev**2).sum(axis=-1), k, out=np.full(k.shape, np.nan), where=k > 0)
    return np.sqrt(var)


def mean_across_groups(values: np.ndarray) -> np.ndarray:
    """Mean across groups (last axis), undefined groups skipped; NaN if none."""
    values = np.atleast_2d(values)
    defined = ~np.isnan(values)
    k = defined.sum(axis=-1)
    return np.divide(np.where(defined, values, 0.0).sum(axis=-1), k, out=np.full(k.shape, np.nan), where=k > 0)


def bootstrap_interval(samples: np.ndarray, estimate: float, ci: float) -> BootstrapInterval:
    """Bias-corrected percentile interval of ``samples`` around ``estimate``.

    Args:
        samples: bootstrap replicates (NaN ones are ignored and not counted as valid).
        estimate: the point estimate from the data.
        ci: confidence level in (0, 1).

    Returns:
        BootstrapInterval: NaN bounds when the estimate or every replicate is undefined.

    References:
        Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185 (the BC interval).
    """
    samples = np.asarray(samples, dtype=np.float64).ravel()
    valid = samples[~np.isnan(samples)]
    n_boot, n_valid = len(samples), len(valid)
    if n_valid == 0 or not np.isfinite(estimate):
        return BootstrapInterval(np.nan, np.nan, estimate=estimate, ci=ci, n_boot=n_boot, n_valid=n_valid)
    below = (np.count_nonzero(valid < estimate) + 0.5 * np.count_nonzero(valid == estimate)) / n_valid
    below = min(max(below, 0.5 / n_valid), 1.0 - 0.5 / n_valid)
    z0 = ndtri(below)
    alpha = (1.0 - ci) / 2.0
    q = ndtr(2.0 * z0 + ndtri(np.array([alpha, 1.0 - alpha])))
    low, high = (float(x) for x in np.quantile(valid, q))
    extended = not (low <= estimate <= high)
    if extended:
        low, high = min(low, float(estimate)), max(high, float(estimate))
    return BootstrapInterval(low, high, estimate=estimate, ci=ci, n_boot=n_boot, n_valid=n_valid, extended=extended)
