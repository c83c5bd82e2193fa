"""Subgroup statistics for outcomes that are not a binary decision: means of a per-row value, S against the rest.

Multi-class, ordinal and regression models (and any model with a per-row loss) are audited through per-row
values whose subgroup mean is compared with the rest's mean (:class:`OutcomeColumn`): the absolute error, the
signed error, the prediction, whether a prediction is correct, whether a class is predicted. Every candidate's
counts are three sums over its rows (``n_S``, ``sum v``, ``sum v^2``), so one sparse product of the candidates'
memberships (or cells) with the value columns counts every candidate at once, observed or permuted
(:func:`moments`).

* **Statistic.** A studentized difference of means, Welch's ``t = (mean_S - mean_R) / sqrt(s_S^2/n_S + s_R^2/n_R)``
  for a continuous value: each side keeps its own variance, so a subgroup whose errors are merely more spread
  out is not mistaken for one whose errors are larger. The subgroup's variance is moderated towards the
  overall one with ``prior_df`` pseudo-rows, ``s_S^2 = (SS_S + prior_df s^2) / (n_S - 1 + prior_df)``: a
  two-row subgroup whose two errors happen to be equal would otherwise have a standard error of 0 and an
  unbounded t, which would dominate the permutation maximum of thousands of candidates (Smyth's moderated t;
  ``prior_df=0`` is Welch's). For a 0/1 value (a proportion: correct or not, class predicted or not) the
  pooled two-proportion z ``(p_S - p_R) / sqrt(p (1 - p) (1/n_S + 1/n_R))`` is used instead: its variance is
  fixed by the overall proportion, and it orders candidates exactly as the binary engine's hypergeometric z.
* **Max-T.** The values are permuted across rows (or whole clusters, :class:`~.resampling.Permuter`) and
  Westfall and Young's step-down max-T over every candidate, both directions and every value column gives
  family-wise adjusted p-values, as :func:`~.maxt.max_t` does for binary decisions (:func:`max_t_means`).
* **Intervals.** Welch's interval with Satterthwaite's degrees of freedom for a mean, Newcombe's hybrid
  score interval for a proportion; with clusters, the percentile interval of a cluster bootstrap
  (:func:`bootstrap_intervals`).

References:
    B. L. Welch, "The generalization of 'Student's' problem when several different population variances are
    involved", Biometrika 34, 1947.
    F. E. Satterthwaite, "An approximate distribution of estimates of variance components", Biometrics
    Bulletin 2, 1946.
    G. K. Smyth, "Linear models and empirical Bayes methods for assessing differential expression in
    microarray experiments", Statistical Applications in Genetics and Molecular Biology 3, 2004.
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993.
    A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", 1997 (resampling clusters).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from ..._progress import tracked
from ..._validation import check_ci
from .counters import Counter, as_counter
from .inference import newcombe_interval
from .maxt import (
    BATCH,
    DEFAULT_PERMUTATIONS,
    Families,
    MaxTResult,
    candidate_offsets,
    check_n_permutations,
    permutations_in,
    pipelined,
)
from .resampling import Permuter, cluster_bootstrap_weights

__all__ = [
    "OutcomeColumn",
    "standardise",
    "moments_z",
    "bootstrap_intervals",
    "max_t_means",
    "mean_inference",
    "moments",
    "welch_t",
]

Contrast = Literal["S-R", "R-S", "S-all"]


@dataclass(frozen=True)
class OutcomeColumn:
    """One per-row value whose subgroup mean is compared with the rest's.

    Attributes:
        metric: the metric's name (its registry entry).
        values: (rows,) float values.
        kind: ``"mean"`` (Welch's t) or ``"proportion"`` (0/1 values: the pooled z).
        contrast: the metric's value: ``"S-R"`` (``mean_S - mean_R``), ``"R-S"`` or ``"S-all"``
            (``mean_S - mean_all = (n_R / N)(mean_S - mean_R)``, as accuracy error).
        larger_is_worse: whether a larger metric value means the subgroup is disadvantaged (the registry's
            direction).
    """

    metric: str
    values: np.ndarray
    kind: Literal["mean", "proportion"] = "mean"
    contrast: Contrast = "S-R"
    larger_is_worse: bool = True

    @property
    def sign(self) -> float:
        """``z = sign (mean_S - mean_R) / se`` is positive when the subgroup is disadvantaged."""
        c = -1.0 if self.contrast == "R-S" else 1.0
        return c if self.larger_is_worse else -c


def standardise(V: np.ndarray, proportion: np.ndarray | None = None,
                unit: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Z, centre, scale)`` with ``V = centre + scale * Z`` column by column and ``Z`` centred (``unit``: with unit
    spread).

    The statistics compared are scale-free (a t, a z): computed on ``Z`` they do not depend on the unit of the
    values (a target in metres or in nanometres, ``1e-15`` or ``1e90``). Values whose squares would underflow or
    overflow (largest absolute value outside ``1e-50`` to ``1e50``) are first divided by their largest absolute
    value, so even values near ``1e308`` have a mean and a spread; other values take the plain formulas (the
    results of earlier versions, to the bit). Proportion columns (0/1 values, counted exactly) stay as they are
    (``centre`` 0, ``scale`` 1).

    Args:
        V: (rows, k) finite values.
        proportion: (k,) bool, the 0/1 columns left as they are.
        unit: scale the centred values to unit spread (False: only where the range requires it).

    Returns:
        tuple: ``Z`` (rows, k), ``centre`` (k,), ``scale`` (k,; 1 for a constant column).
    """
    V = np.asarray(V, dtype=np.float64)
    if V.ndim == 1:
        V = V[:, None]
    peak = np.max(np.abs(V), axis=0) if len(V) else np.ones(V.shape[1])
    wide = (peak > 1e50) | ((peak < 1e-50) & (peak > 0))
    pre = np.where(wide, peak, 1.0)  # divided first only where the squares would leave the float range
    W = V / pre if wide.any() else V
    mu = W.mean(axis=0)
    Z = W - mu
    spread = np.ones(V.shape[1])
    if unit or wide.any():
        sd = W.std(axis=0)
        spread = np.where((sd > 0) & (unit | wide), sd, 1.0)
        Z = Z / spread
    centre, scale = mu * pre, spread * pre
    if proportion is not None and np.any(proportion):
        prop = np.asarray(proportion, dtype=bool)
        Z[:, prop], centre[prop], scale[prop] = V[:, prop], 0.0, 1.0
    return Z, centre, scale


def moments(counter: Counter, V: np.ndarray, squares: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Per candidate: rows ``n_S`` (m,), sums (m, k) and sums of squares (m, k) of the (rows, k) values ``V``
    over its rows, in one product.

    Returns:
        tuple: ``(n_S, sums, sums_of_squares)``; the last is None without ``squares``.
    """
    V = np.asarray(V, dtype=np.float64)
    k = V.shape[1]
    cols = [np.ones((len(V), 1)), V] + ([V * V] if squares else [])
    # a column of ones beside float values: counted in float64 (the counters sum non-0/1 columns as weights)
    out = as_counter(counter).count(np.hstack(cols))
    return out[:, 0], out[:, 1:1 + k], out[:, 1 + k:] if squares else None


def welch_t(n_S: np.ndarray, s_S: np.ndarray, q_S: np.ndarray, N: float, s_T: float, q_T: float,
            prior_df: float = 2.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Welch's statistic of ``mean_S - mean_R`` from sums (arrays of one shape; R = all rows but S).

    Args:
        n_S, s_S, q_S: the subgroup's rows, sum and sum of squares.
        N, s_T, q_T: the same over all rows.
        prior_df: pseudo-rows of the overall variance added to the subgroup's (0: Welch's t).

    Returns:
        tuple: ``(difference, standard error, t)``; NaN where a side has fewer than 2 rows (fewer than 1 with
        ``prior_df > 0``) or the standard error is 0.
    """
    n_S = np.asarray(n_S, dtype=np.float64)
    n_R = N - n_S
    s_R, q_R = s_T - s_S, q_T - q_S
    var_all = (q_T - s_T * s_T / N) / (N - 1.0) if N > 1 else np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        m_S, m_R = s_S / n_S, s_R / n_R
        ss_S = np.maximum(q_S - s_S * m_S, 0.0)
        ss_R = np.maximum(q_R - s_R * m_R, 0.0)
        var_S = (ss_S + prior_df * var_all) / (n_S - 1.0 + prior_df)
        var_R = (ss_R + prior_df * var_all) / (n_R - 1.0 + prior_df)
        se = np.sqrt(var_S / n_S + var_R / n_R)
        d = m_S - m_R
        t = d / se
    low = 2.0 if prior_df == 0 else 1.0
    # a standard error below 1e-12 of the values' spread is rounding, not evidence: relative, so that the same data in
    # another unit (y * 1e-12) keep their statistics
    with np.errstate(invalid="ignore"):
        floor = 1e-12 * np.sqrt(var_all) if np.isfinite(var_all) and var_all > 0 else np.inf
    bad = (n_S < low) | (n_R < low) | ~(se > floor)
    return np.where(n_S > 0, d, np.nan), np.where(bad, np.nan, se), np.where(bad, np.nan, t)


def _pooled_z(n_S: np.ndarray, s_S: np.ndarray, N: float, s_T: float) -> np.ndarray:
    """Pooled two-proportion z of ``p_S - p_R`` (0/1 values: ``s`` counts the ones)."""
    n_R = N - n_S
    p = s_T / N if N > 0 else np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(p * (1.0 - p) * (1.0 / n_S + 1.0 / n_R))
        z = (s_S / n_S - (s_T - s_S) / n_R) / se
    return np.where((n_S > 0) & (n_R > 0) & (se > 0), z, np.nan)


def moments_z(a: np.ndarray, b: np.ndarray, kind: str = "mean") -> np.ndarray:
    """The z of ``mean_a - mean_b`` for rows summarised by ``(n, sum, sum of squares)`` (``a``, ``b``: (k, 3)
    each): Welch's t for a mean, the pooled z for a proportion; NaN where a side has too few rows."""
    n1, s1, q1 = a[:, 0], a[:, 1], a[:, 2]
    n2, s2, q2 = b[:, 0], b[:, 1], b[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "proportion":
            pooled = (s1 + s2) / (n1 + n2)
            z = (s1 / n1 - s2 / n2) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        else:
            v1 = np.maximum(q1 - s1 * s1 / n1, 0.0) / (n1 - 1.0)
            v2 = np.maximum(q2 - s2 * s2 / n2, 0.0) / (n2 - 1.0)
            z = (s1 / n1 - s2 / n2) / np.sqrt(v1 / n1 + v2 / n2)
    out: np.ndarray = np.where((n1 > 1) & (n2 > 1), z, np.nan)
    return out


class _Stat:
    """The z of every candidate for every outcome column, from sums (observed or permuted)."""

    def __init__(self, columns: list[OutcomeColumn], n_S: np.ndarray, prior_df: float):
        self.columns = columns
        self.n_S = n_S[:, None]
        V = np.column_stack([c.values for c in columns]).astype(np.float64)
        self.N = float(len(V))
        # centred and scaled: sums of squares without cancellation, the same statistic (t is scale-free); proportions
        # stay 0/1 (counted exactly)
        is_prop = np.array([c.kind == "proportion" for c in columns])
        self.V, self.centre, self.scale = standardise(V, is_prop)
        self.s_T = self.V.sum(axis=0)
        self.q_T = (self.V * self.V).sum(axis=0)
        self.prior_df = prior_df

    def z(self, j: int, s_S: np.ndarray, q_S: np.ndarray | None) -> np.ndarray:
        col = self.columns[j]
        if col.kind == "proportion":
            z = _pooled_z(self.n_S, s_S, self.N, float(self.s_T[j]))
        else:
            assert q_S is not None
            z = welch_t(self.n_S, s_S, q_S, self.N, float(self.s_T[j]), float(self.q_T[j]), self.prior_df)[2]
        return col.sign * z


def max_t_means(
    counter: Counter,
    columns: list[OutcomeColumn],
    n_permutations: int = DEFAULT_PERMUTATIONS,
    random_state: np.random.Generator | int | None = None,
    penalty: bool | np.ndarray = True,
    *,
    order: np.ndarray | None = None,
    groups: np.ndarray | None = None,
    design: str = "between",
    prior_df: float = 2.0,
) -> MaxTResult:
    """Step-down max-T adjusted p-values of every candidate for every outcome column, per column and globally.

    The value columns are permuted together (rows, or whole clusters with ``groups``), so the global family
    (every column, both directions, every candidate) has one permutation distribution.

    Args:
        counter: the candidates (a :class:`~.counters.Counter` or (rows, m) membership).
        columns: the outcome columns (each one "test" of the result, in order).
        n_permutations: B (>= 19).
        random_state: numpy Generator or int seed.
        penalty: as :func:`~.maxt.max_t` (``True`` size penalty, ``False`` none, or (m,) offsets).
        order, groups, design: as :func:`~.maxt.max_t` (canonical row order; clusters).
        prior_df: the moderation of the subgroups' variances (:func:`welch_t`).

    Returns:
        MaxTResult: ``z`` (m, columns), ``p_adjusted`` (m, columns, 2), ``p_two_sided``, ``p_global``; the
        tests are the columns' positions.
    """
    if not columns:
        raise ValueError("max_t_means needs at least one outcome column")
    B = check_n_permutations(n_permutations)
    rng = np.random.default_rng(random_state)
    counter = as_counter(counter)
    n, m = counter.shape
    k = len(columns)
    for c in columns:
        if len(c.values) != n:
            raise ValueError(f"outcome column {c.metric!r} has {len(c.values)} values for {n} rows")
    n_S = counter.count(np.ones((n, 1)))[:, 0]
    st = _Stat(columns, n_S, prior_df)
    need_sq = [c.kind == "mean" for c in columns]

    def zs(V: np.ndarray, b: int) -> list[np.ndarray]:
        """(m, b) z per column from (n, k * b) values (column j's permutations in block j)."""
        parts = [V] + [V[:, j * b:(j + 1) * b] ** 2 for j in range(k) if need_sq[j]]
        cnt = counter.count(np.hstack(parts))
        out, at = [], k * b
        for j in range(k):
            s_S = cnt[:, j * b:(j + 1) * b]
            q_S = None
            if need_sq[j]:
                q_S, at = cnt[:, at:at + b], at + b
            out.append(st.z(j, s_S, q_S))
        return out

    permuter = Permuter(n, order, groups, design)
    flips = None
    if permuter.blocks_of_any_size:  # clusters of unequal sizes: whole outcome blocks permuted among clusters
        from .cluster_permutation import ClusterColumn, ClusterPermutation

        assert groups is not None
        flips = ClusterPermutation(counter, groups, [ClusterColumn(c.values, None, c.sign) for c in columns])
        z_obs = flips.observed()
    else:
        z_obs = np.column_stack([z[:, 0] for z in zs(st.V, 1)])
    # the size penalty counts the units the permutations move: rows, or clusters when whole blocks of unequal sizes
    # move (a candidate's rows then change with the arrangement, its clusters do not)
    pen = (candidate_offsets(penalty, n_S, n, m) if flips is None
           else candidate_offsets(penalty, flips.clusters, flips.n_clusters, m))
    blocks = [s for j in range(k) for s in (z_obs[:, j] - pen[:, 0], -z_obs[:, j] - pen[:, 0])]
    members_of = [[j] for j in range(2 * k)] + [[2 * j, 2 * j + 1] for j in range(k)] + [list(range(2 * k))]
    fams = Families(blocks, members_of)

    def batch(idx: np.ndarray) -> list[np.ndarray]:
        if flips is not None:  # idx: the clusters' signs
            return flips.statistics(idx)
        b = idx.shape[1]
        return zs(np.hstack([st.V[idx, j] for j in range(k)]), b)

    def feed(z_b: list[np.ndarray]) -> None:
        stats_b = [s for z in z_b for s in (z - pen, -z - pen)]
        for s in stats_b:  # a permuted candidate without a statistic (no variance) is never the maximum
            s[np.isnan(s)] = -np.inf
        fams.add(stats_b)

    for result in tracked(pipelined(B, lambda pool, b: pool.submit(batch, permuter.draw(rng, b) if flips is None
                                                                 else flips.draw(rng, b))),
                          "max-T permutations", B, "permutations", permutations_in):
        feed(result)
    adj = fams.adjusted(B)
    p_adj = np.full((m, k, 2), np.nan)
    p_two = np.full((m, k), np.nan)
    n_test = []
    for j in range(k):
        p_adj[:, j, 0], p_adj[:, j, 1] = adj[2 * j], adj[2 * j + 1]
        p_two[:, j] = np.fmin(*adj[2 * k + j].reshape(2, m))
        n_test.append(len(fams.families[2 * k + j].order))
    p_glob = adj[-1].reshape(k, 2, m).transpose(2, 0, 1)
    return MaxTResult(z=z_obs, p_adjusted=p_adj, p_two_sided=p_two, p_global=p_glob, n_permutations=B,
                      n_hypotheses=(tuple(n_test), len(fams.families[-1].order)), offset=pen[:, 0].copy(),
                      tests=tuple(range(k)), unit=permuter.unit)


def _value(col: OutcomeColumn, d: np.ndarray, n_S: np.ndarray, N: float) -> np.ndarray:
    """The metric's value from ``d = mean_S - mean_R``."""
    if col.contrast == "R-S":
        return -np.asarray(d)
    if col.contrast == "S-all":
        return np.asarray((N - n_S) / N * d)
    return np.asarray(d)


def mean_inference(counter: Counter, columns: list[OutcomeColumn],
                   ci: float = 0.95) -> dict[str, dict[str, np.ndarray]]:
    """Per column: every candidate's value, interval and two-sided p-value against the rest (Welch's t with
    Satterthwaite's degrees of freedom for a mean; Newcombe's interval and the pooled z for a proportion).

    Returns:
        dict: metric -> {"value", "ci_low", "ci_high", "p", "mean_S", "mean_R"} arrays (m,); NaN where a
        side has too few rows.
    """
    ci = check_ci(ci)
    counter = as_counter(counter)
    N = float(counter.shape[0])
    V = np.column_stack([c.values for c in columns]).astype(np.float64)
    # centred sums on a unit scale: no cancellation, underflow or overflow in the sums of squares, whatever the
    # unit of the values; differences and bounds are scaled back
    Zc, centre, scale = standardise(V, unit=False)
    n_S, s_S, q_S = moments(counter, Zc)
    assert q_S is not None
    n_R = N - n_S
    out: dict[str, dict[str, np.ndarray]] = {}
    for j, col in enumerate(columns):
        vc = Zc[:, j]
        s_T, q_T = float(vc.sum()), float((vc * vc).sum())
        s, q = s_S[:, j], q_S[:, j]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            m_S, m_R = s / n_S * scale[j] + centre[j], (s_T - s) / n_R * scale[j] + centre[j]
        if col.kind == "proportion":
            ones_S = s * scale[j] + n_S * centre[j]  # back to counts of ones
            d, lo, hi = newcombe_interval(ones_S, n_S, float(V[:, j].sum()) - ones_S, n_R, ci)
            z = _pooled_z(n_S, ones_S, N, float(V[:, j].sum()))
            p = 2.0 * stats.norm.sf(np.abs(z))
        else:
            d, se, t = welch_t(n_S, s, q, N, s_T, q_T, prior_df=0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                a = np.maximum(q - s * s / n_S, 0.0) / (n_S - 1.0) / n_S  # s_S^2 / n_S
                b = np.maximum((q_T - q) - (s_T - s) ** 2 / n_R, 0.0) / (n_R - 1.0) / n_R
                df = (a + b) ** 2 / (a * a / (n_S - 1.0) + b * b / (n_R - 1.0))
            df = np.where(np.isfinite(df) & (df > 0), df, np.nan)
            q_t = stats.t.ppf(0.5 + ci / 2.0, df)
            lo, hi = d - q_t * se, d + q_t * se
            p = 2.0 * stats.t.sf(np.abs(t), df)
            d, lo, hi = d * scale[j], lo * scale[j], hi * scale[j]  # back to the values' unit
        v, vlo, vhi = _value(col, d, n_S, N), _value(col, lo, n_S, N), _value(col, hi, n_S, N)
        out[col.metric] = {"value": v, "ci_low": np.fmin(vlo, vhi), "ci_high": np.fmax(vlo, vhi), "p": p,
                           "mean_S": m_S, "mean_R": m_R}
    return out


def bootstrap_intervals(counter: Counter, columns: list[OutcomeColumn], groups: np.ndarray | None,
                        ci: float = 0.95, n_boot: int = 200,
                        random_state: np.random.Generator | int | None = None,
                        order: np.ndarray | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Percentile intervals of every candidate's value from a bootstrap that resamples clusters (rows without
    ``groups``) with replacement: a resampled cluster brings all its rows.

    Returns:
        dict: metric -> ``(ci_low, ci_high)`` arrays (m,).
    """
    ci = check_ci(ci)
    counter = as_counter(counter)
    n = counter.shape[0]
    rng = np.random.default_rng(random_state)
    V0 = np.column_stack([c.values for c in columns]).astype(np.float64)
    # centred on a unit scale: the sums are well conditioned and in range; differences are scaled back below
    V, _, scale = standardise(V0, unit=False)
    draws: list[list[np.ndarray]] = [[] for _ in columns]
    done = 0
    while done < n_boot:
        b = min(BATCH, n_boot - done)
        W = cluster_bootstrap_weights(rng, groups, n, b, order)
        cnt = counter.count(np.hstack([W] + [W * V[:, [j]] for j in range(len(columns))]))
        n_S, n_T = cnt[:, :b], W.sum(axis=0)[None, :]
        for j, col in enumerate(columns):
            s_S = cnt[:, (j + 1) * b:(j + 2) * b]
            s_T = (W * V[:, [j]]).sum(axis=0)[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                d = s_S / n_S - (s_T - s_S) / (n_T - n_S)
            d = d * scale[j]
            draws[j].append(_value(col, d, n_S, n_T) if col.contrast != "S-all" else (n_T - n_S) / n_T * d)
        done += b
    out = {}
    tail = (1.0 - ci) / 2.0 * 100.0
    for j, col in enumerate(columns):
        D = np.hstack(draws[j])
        ok = np.isfinite(D).sum(axis=1) >= 0.9 * n_boot  # candidates a resample often leaves empty: no interval
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: masked by ``ok`` below
            lo, hi = np.nanpercentile(D, [tail, 100.0 - tail], axis=1)
        out[col.metric] = (np.where(ok, lo, np.nan), np.where(ok, hi, np.nan))
    return out
