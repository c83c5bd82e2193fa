"""The studentized statistics of the test of equal service: valid when annotators hold different numbers of
annotations.

An annotator with 5 annotations has a far noisier accuracy than one with 300. The size-weighted between-group sum
of squares (the "between" statistic) treats every annotator's value as equally noisy, so that permuting annotators
across groups is only valid when they are exchangeable: when one group holds the light annotators and another the
heavy ones, it rejects far too often although no group is served worse (37% at a 5% level in the design of issue
29). Here each group's mean is divided by an estimate of its own standard error, as in Welch's one-way analysis of
variance, and the permutation distribution of that studentized statistic is used (studentized permutation tests
are exact under exchangeability and asymptotically valid when only the variances differ: Janssen 1997; Chung and
Romano 2013).

**The variance of a group's mean.** A unit's value (an annotator's accuracy, MAE, ...) varies with its annotation
count ``n``: ``Var(x_i) = a + b / n_i`` (``a`` the spread of the annotators' true values, ``b / n_i`` the noise of
their ``n_i`` annotations). ``a`` and ``b`` are fitted by least squares on the units' squared deviations from
their group's mean (scaled by ``k_g / (k_g - 1)``, so that each is unbiased for equal variances), clipped at 0;
with equal counts ``b`` is not identified and ``a`` is the pooled within-group variance. A group of ``k_g``
units then has the model variance ``M_g = (a k_g + b sum_i 1/n_i) / k_g^2`` and Welch's variance
``W_g = s_g^2 / k_g``. The statistic uses their blend with ``k_g - 1`` and :data:`PRIOR_DF` degrees of freedom,
``V_g = ((k_g - 1) W_g + PRIOR_DF M_g) / (k_g - 1 + PRIOR_DF)``. The model rests on every annotation (``b``) and
every annotator (``a``), Welch's variance on the group's few annotators, so the model gets 1,000 degrees of
freedom: a group's own spread matters only for groups of hundreds of annotators (chosen on
``benchmarks/equal_service_designs.py``: with a few degrees of freedom, Welch's variance of a group of 5-10 light
annotators let the test reject more often than its level).
The price: when groups differ in how much their annotators disagree among themselves, not only in their counts,
the test leans on the pooled ``a`` and can reject more often than its level.

**The statistics**, from the groups' means ``m_g`` and ``V_g`` (``w_g = 1 / V_g``):

* across groups (the omnibus test): ``T = sum_g w_g (m_g - m*)^2`` with ``m* = sum_g w_g m_g / sum_g w_g``
  (Welch's numerator; about chi-square with ``G - 1`` degrees of freedom);
* each group against the rest: ``t_g = (r_g - m_g) / sqrt(V_g + R_g)`` with ``r_g`` the mean of the other groups'
  units (each unit once, as the group values are annotator means) and ``R_g = sum_{h != g} k_h^2 V_h /
  (N - k_g)^2`` its variance; the max-T over the groups (``max_g |t_g|``) gives every group an adjusted p-value
  that holds the family-wise error over the groups (Westfall and Young 1993).

Everything is computed from sums over each group's units (``[x, 1, 1/n, 1/n^2, x^2, x/n, x^2/n]``), so that the
permutation engine of :mod:`~aif360_subjective.opinion.equal_service` evaluates it on thousands of arrangements at
once.

References:
    Welch, B. L. (1951). On the comparison of several mean values: an alternative approach. Biometrika 38,
    330-336.
    Janssen, A. (1997). Studentized permutation tests for non-i.i.d. hypotheses and the generalized
    Behrens-Fisher problem. Statistics & Probability Letters 36, 9-21.
    Chung, E., Romano, J. P. (2013). Exact and asymptotically robust permutation tests. The Annals of
    Statistics 41(2), 484-507.
    Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley (max-T adjusted p-values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PRIOR_DF", "N_COLUMNS", "GroupMoments", "group_moments", "omnibus_and_max_t", "unit_columns"]

#: Degrees of freedom of the count model's variance in each group's blend with Welch's variance.
PRIOR_DF = 1000.0
#: Columns of :func:`unit_columns`.
N_COLUMNS = 7
#: A group mean's variance is never taken below this (values without any noise would give infinite weights).
_V_FLOOR = 1e-12


def unit_columns(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The additive columns of every unit: ``[x, 1, 1/n, 1/n^2, x^2, x/n, x^2/n]`` (``n`` its annotations).

    Args:
        values: the units' values (defined: NaN units are left out by the caller).
        counts: the units' annotation counts (>= 1).

    Returns:
        numpy.ndarray: shape ``(n_units, 7)``.
    """
    x = np.asarray(values, dtype=np.float64)
    inv = 1.0 / np.maximum(np.asarray(counts, dtype=np.float64), 1.0)
    return np.stack([x, np.ones_like(x), inv, inv**2, x**2, x * inv, x**2 * inv], axis=-1)


@dataclass(frozen=True)
class GroupMoments:
    """Every group's mean, units and mean variance under one or many arrangements (leading axes).

    Attributes:
        mean: ``m_g`` (NaN for groups without units).
        k: units per group.
        variance: ``V_g``, the variance of the group's mean (NaN when it cannot be estimated: no group holds two
            units).
        a, b: the count model ``Var(x_i) = a + b / n_i`` (one per arrangement).
    """

    mean: np.ndarray
    k: np.ndarray
    variance: np.ndarray
    a: np.ndarray
    b: np.ndarray


def group_moments(sums: np.ndarray, prior_df: float | None = None, within: float | None = None) -> GroupMoments:
    """The groups' means and the variances of their means from the sums of :func:`unit_columns` per group.

    Args:
        sums: ``(..., G, 7)`` sums per group (leading axes: arrangements).
        prior_df: degrees of freedom of the count model in the blend (None: :data:`PRIOR_DF`).
        within: the pooled variance of one annotation's score within a unit (:func:`pooled_within_variance`):
            then ``b = within`` and only ``a`` is fitted; None = both fitted.

    Returns:
        GroupMoments
    """
    prior_df = PRIOR_DF if prior_df is None else prior_df
    s, k, h, h2, q, r, p = (sums[..., j] for j in range(N_COLUMNS))
    has = k > 0
    safe_k = np.where(has, k, 1.0)
    mean = np.where(has, s / safe_k, np.nan)
    m0 = np.where(has, mean, 0.0)
    ss = np.maximum(q - s**2 / safe_k, 0.0)  # within-group sum of squares
    dn = np.maximum(p - 2.0 * m0 * r + m0**2 * h, 0.0)  # sum of squared deviations / n
    two = k >= 2
    corr = np.where(two, k / np.where(two, k - 1.0, 1.0), 0.0)
    lhs1 = (corr * ss).sum(axis=-1)
    lhs2 = (corr * dn).sum(axis=-1)
    n1 = np.where(two, k, 0.0).sum(axis=-1)
    hs = np.where(two, h, 0.0).sum(axis=-1)
    h2s = np.where(two, h2, 0.0).sum(axis=-1)
    det = n1 * h2s - hs**2
    ok = det > 1e-9 * np.maximum(n1 * h2s, 1e-300)  # counts vary enough to tell a from b
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(ok, (lhs1 * h2s - lhs2 * hs) / np.where(ok, det, 1.0), lhs1 / np.where(n1 > 0, n1, np.nan))
        b = np.where(ok, (n1 * lhs2 - hs * lhs1) / np.where(ok, det, 1.0), 0.0)
        # least squares under a, b >= 0: when one is negative the other alone is fitted
        a_only = lhs1 / np.where(n1 > 0, n1, np.nan)
        b_only = lhs2 / np.where(h2s > 0, h2s, np.nan)
        neg_a, neg_b = a < 0, b < 0
        a, b = np.where(neg_a, 0.0, np.where(neg_b, a_only, a)), np.where(neg_a, b_only, np.where(neg_b, 0.0, b))
        if within is not None and np.isfinite(within):
            b = np.full(np.shape(lhs1), float(within))
            a = np.maximum(0.0, (lhs1 - b * hs) / np.where(n1 > 0, n1, np.nan))
        model = (a[..., None] * k + b[..., None] * h) / np.where(has, k, 1.0) ** 2
        welch = ss / np.where(two, k * (k - 1.0), 1.0)
        blend = np.where(two, ((k - 1.0) * welch + prior_df * model) / (k - 1.0 + prior_df), model)
    variance = np.where(has, np.maximum(blend, _V_FLOOR), np.nan)
    return GroupMoments(mean=mean, k=k, variance=variance, a=a, b=b)


def contrasts(mom: GroupMoments) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group against the rest: ``(rest mean r_g, standard error sqrt(V_g + R_g), t_g = (r_g - m_g) / se)``.

    Args:
        mom: the groups' moments.

    Returns:
        tuple: three arrays shaped like ``mom.mean`` (NaN for groups without units or without a rest).
    """
    has = mom.k > 0
    k = np.where(has, mom.k, 0.0)
    m = np.where(has, mom.mean, 0.0)
    v = np.where(has, mom.variance, 0.0)
    total_n = k.sum(axis=-1, keepdims=True)
    total_s = (k * m).sum(axis=-1, keepdims=True)
    total_v = (k**2 * v).sum(axis=-1, keepdims=True)
    rest_n = total_n - k
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = (total_s - k * m) / rest_n
        rest_v = (total_v - k**2 * v) / rest_n**2
        se = np.sqrt(v + rest_v)
        t = (rest - m) / se
    bad = ~has | (rest_n <= 0)
    return np.where(bad, np.nan, rest), np.where(bad, np.nan, se), np.where(bad, np.nan, t)


def omnibus_and_max_t(sums: np.ndarray, within: float | None = None) -> np.ndarray:
    """The permutation engine's statistics: ``[T, max_g |t_g|]`` per arrangement (see the module).

    Args:
        sums: ``(B, G, 7)`` sums per arrangement and group.

    Returns:
        numpy.ndarray: shape ``(B, 2)``; NaN where the variances cannot be estimated.
    """
    mom = group_moments(sums, within=within)
    has = mom.k > 0
    w = np.where(has, 1.0 / np.where(has, mom.variance, 1.0), 0.0)
    m = np.where(has, mom.mean, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = (w * m).sum(axis=-1) / w.sum(axis=-1)
        omnibus = (w * (m - centre[..., None]) ** 2).sum(axis=-1)
    _, _, t = contrasts(mom)
    abs_t = np.abs(t)
    finite = np.isfinite(abs_t)
    max_t = np.where(finite.any(axis=-1), np.where(finite, abs_t, -np.inf).max(axis=-1), np.nan)
    return np.stack([omnibus, max_t], axis=-1)
