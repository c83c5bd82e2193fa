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
their ``n_i`` annotations). For a mean over annotations (accuracy, "mae", "within_one") ``b`` is the variance of one
annotation's score pooled within the units, known from every annotation, and ``a`` is DerSimonian and Laird's
moment estimate with the weights ``n_i`` (:func:`_between_annotators`): a light annotator's squared deviation,
mostly noise, weighs by its few annotations. (The unweighted least-squares fit, still used for the other measures
where ``a`` and ``b`` are both fitted, let 10 annotators with 5-10 annotations set ``a`` for 30 with 40: its
standard error exceeded ``a`` itself.) A group of ``k_g`` units then has the model variance ``M_g = (a k_g + b
sum_i 1/n_i) / k_g^2`` and Welch's variance ``W_g = s_g^2 / k_g``; the statistic uses their blend with ``k_g - 1``
and :data:`PRIOR_DF` degrees of freedom, ``V_g = ((k_g - 1) W_g + PRIOR_DF M_g) / (k_g - 1 + PRIOR_DF)`` (the
model rests on every annotation and every annotator; a group's own spread matters only for groups of hundreds).

**The noise of the fitted variance.** ``a`` rests on the annotators' spread, a few dozen degrees of freedom:
``Var(a)`` (as if the weighted squared deviations were independent) gives each group's variance ``df_g = 2 V_g^2
k_g^2 / Var(a)`` degrees of freedom. Permuting the annotators does not reproduce this noise (the data's total spread
is fixed under the permutations), so that with one group of light annotators among heavy ones the permutation test
rejected 6-8 % of the time at 5 % (``benchmarks/equal_service_designs.py``). Hence:

* across groups (the omnibus test): Welch's numerator ``T = sum_g w_g (m_g - m*)^2`` (``w_g = 1 / V_g``, ``m* = sum_g
  w_g m_g / sum_g w_g``) with Welch's small-sample correction, ``F = (T / (G - 1)) / (1 + 2 (G - 2) lambda / (G^2 -
  1))`` on ``(G - 1, (G^2 - 1) / (3 lambda))`` degrees of freedom, ``lambda = sum_g (1 - w_g / W)^2 / df_g``
  (:func:`welch_omnibus`; the statistic is the chi-square value with ``G - 1`` degrees of freedom and the same
  tail). Its p-value is the **larger of the permutation p-value and Welch's F p-value**: the test holds its level
  where either does (the permutation exactly when annotators are exchangeable, Welch's F when only the counts
  differ);
* each group against the rest: ``t_g = (r_g - m_g) / sqrt(V_g + R_g)`` with ``r_g`` the mean of the other groups'
  units (each unit once, as the group values are annotator means) and ``R_g = sum_{h != g} k_h^2 V_h / (N -
  k_g)^2`` its variance, on Satterthwaite's ``df`` (:func:`contrast_df`); every ``|t_g|`` is turned into the normal
  value with the same tail (:func:`normal_equivalent`) and the max over the groups is permuted (max-T): every
  group gets an adjusted p-value that holds the family-wise error over the groups (Westfall and Young 1993).

Everything is computed from sums over each group's units (:func:`unit_columns`), so that the permutation engine of
:mod:`~aif360_subjective.opinion.equal_service` evaluates it on thousands of arrangements at once.

References:
    Welch, B. L. (1951). On the comparison of several mean values: an alternative approach. Biometrika 38,
    330-336.
    Janssen, A. (1997). Studentized permutation tests for non-i.i.d. hypotheses and the generalized
    Behrens-Fisher problem. Statistics & Probability Letters 36, 9-21.
    Chung, E., Romano, J. P. (2013). Exact and asymptotically robust permutation tests. The Annals of
    Statistics 41(2), 484-507.
    Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley (max-T adjusted p-values).
    DerSimonian, R., Laird, N. (1986). Meta-analysis in clinical trials. Controlled Clinical Trials 7, 177-188
    (the moment estimate of the spread between units with known within-unit variances).
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance components. Biometrics
    Bulletin 2(6), 110-114.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

__all__ = [
    "PRIOR_DF",
    "N_COLUMNS",
    "GroupMoments",
    "contrast_df",
    "contrasts",
    "group_moments",
    "larger_root",
    "normal_equivalent",
    "omnibus_and_max_t",
    "omnibus_tail",
    "t_from_normal",
    "unit_columns",
    "welch_omnibus",
]

#: Degrees of freedom of the count model's variance in each group's blend with Welch's variance.
PRIOR_DF = 1000.0
#: Columns of :func:`unit_columns`.
N_COLUMNS = 11
#: A group mean's variance is never taken below this (values without any noise would give infinite weights).
_V_FLOOR = 1e-12
#: Degrees of freedom taken as infinite beyond this, and the smallest tail probability (no underflow to 0).
_DF_CAP = 1e12
_TAIL_FLOOR = 1e-300


def unit_columns(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The additive columns of every unit: ``[x, 1, 1/n, 1/n^2, x^2, x/n, x^2/n, n, n x, n x^2, n^2]`` (``n`` its
    annotations; the last four for the count-weighted fit of ``a``).

    Args:
        values: the units' values (defined: NaN units are left out by the caller).
        counts: the units' annotation counts (>= 1).

    Returns:
        numpy.ndarray: shape ``(n_units, N_COLUMNS)``.
    """
    x = np.asarray(values, dtype=np.float64)
    inv = 1.0 / np.maximum(np.asarray(counts, dtype=np.float64), 1.0)
    n = 1.0 / inv
    return np.stack([x, np.ones_like(x), inv, inv**2, x**2, x * inv, x**2 * inv, n, n * x, n * x**2, n**2], axis=-1)


@dataclass(frozen=True)
class GroupMoments:
    """Every group's mean, units and mean variance under one or many arrangements (leading axes).

    Attributes:
        mean: ``m_g`` (NaN for groups without units).
        k: units per group.
        variance: ``V_g``, the variance of the group's mean (NaN when it cannot be estimated: no group holds two
            units).
        a, b: the count model ``Var(x_i) = a + b / n_i`` (one per arrangement).
        var_a: the variance of the fitted ``a`` (0 when it is not estimated with noise).
    """

    mean: np.ndarray
    k: np.ndarray
    variance: np.ndarray
    a: np.ndarray
    b: np.ndarray
    var_a: np.ndarray


def group_moments(sums: np.ndarray, prior_df: float | None = None, within: float | None = None) -> GroupMoments:
    """The groups' means and the variances of their means from the sums of :func:`unit_columns` per group.

    Args:
        sums: ``(..., G, N_COLUMNS)`` sums per group (leading axes: arrangements).
        prior_df: degrees of freedom of the count model in the blend (None: :data:`PRIOR_DF`).
        within: the pooled variance of one annotation's score within a unit (:func:`pooled_within_variance`):
            then ``b = within`` and only ``a`` is fitted; None = both fitted.

    Returns:
        GroupMoments
    """
    prior_df = PRIOR_DF if prior_df is None else prior_df
    s, k, h, h2, q, r, p = (sums[..., j] for j in range(7))
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
    with np.errstate(divide="ignore", invalid="ignore"):
        if within is not None and np.isfinite(within):
            b = np.full(np.shape(lhs1), float(within))
            a, var_a = _between_annotators(sums, two, float(within))
        else:
            n1 = np.where(two, k, 0.0).sum(axis=-1)
            hs = np.where(two, h, 0.0).sum(axis=-1)
            h2s = np.where(two, h2, 0.0).sum(axis=-1)
            det = n1 * h2s - hs**2
            ok = det > 1e-9 * np.maximum(n1 * h2s, 1e-300)  # counts vary enough to tell a from b
            a = np.where(ok, (lhs1 * h2s - lhs2 * hs) / np.where(ok, det, 1.0), lhs1 / np.where(n1 > 0, n1, np.nan))
            b = np.where(ok, (n1 * lhs2 - hs * lhs1) / np.where(ok, det, 1.0), 0.0)
            # least squares under a, b >= 0: when one is negative the other alone is fitted
            a_only = lhs1 / np.where(n1 > 0, n1, np.nan)
            b_only = lhs2 / np.where(h2s > 0, h2s, np.nan)
            neg_a, neg_b = a < 0, b < 0
            a, b = (np.where(neg_a, 0.0, np.where(neg_b, a_only, a)),
                    np.where(neg_a, b_only, np.where(neg_b, 0.0, b)))
            # the least-squares fit's noise, as if the squared deviations were independent (chi-square, 1 df each)
            g2 = two.sum(axis=-1)
            var_a = 2.0 * (a**2 * n1 + 2.0 * a * b * hs + b**2 * h2s) / np.where(n1 > g2, n1 * (n1 - g2), np.nan)
        model = (a[..., None] * k + b[..., None] * h) / np.where(has, k, 1.0) ** 2
        welch = ss / np.where(two, k * (k - 1.0), 1.0)
        blend = np.where(two, ((k - 1.0) * welch + prior_df * model) / (k - 1.0 + prior_df), model)
    variance = np.where(has, np.maximum(blend, _V_FLOOR), np.nan)
    return GroupMoments(mean=mean, k=k, variance=variance, a=a, b=b, var_a=np.where(np.isfinite(var_a), var_a, 0.0))


def _between_annotators(sums: np.ndarray, two: np.ndarray, within: float) -> tuple[np.ndarray, np.ndarray]:
    """``a`` with ``b = within`` known, and the variance of its estimate.

    DerSimonian and Laird's moment estimator, pooled over the groups: with weights ``n_i`` (a unit's precision
    when ``a = 0``), ``E[sum_i n_i (x_i - x_w)^2] = a (S1 - S2 / S1) + b (k - 1)`` in each group (``x_w`` the
    weighted mean, ``S1 = sum n_i``, ``S2 = sum n_i^2``). The light units, whose squared deviations are mostly
    noise, weigh by their few annotations instead of as much as a heavy one (the unweighted fit let 10 annotators
    with 5-10 annotations set ``a`` for everyone). Its variance, as if the weighted squared deviations were
    independent with ``Var(n_i e_i^2) = 2 (n_i a + b)^2``: ``2 (a^2 S2 + 2 a b S1 + b^2 (N - G)) / scale^2``.
    """
    n1, nx, nxx, n2 = (sums[..., j] for j in range(7, 11))
    safe = np.where(two, n1, 1.0)
    wss = np.where(two, np.maximum(nxx - nx**2 / safe, 0.0), 0.0)
    dof = np.where(two, sums[..., 1] - 1.0, 0.0).sum(axis=-1)
    excess = wss.sum(axis=-1) - within * dof
    scale = np.where(two, n1 - n2 / safe, 0.0).sum(axis=-1)
    ok = scale > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(ok, np.maximum(excess / np.where(ok, scale, 1.0), 0.0), 0.0)
        s1 = np.where(two, n1, 0.0).sum(axis=-1)
        s2 = np.where(two, n2, 0.0).sum(axis=-1)
        var_a = 2.0 * (a**2 * s2 + 2.0 * a * within * s1 + within**2 * dof) / np.where(ok, scale, np.nan) ** 2
    return a, np.where(ok, var_a, np.nan)


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


def contrast_df(mom: GroupMoments) -> np.ndarray:
    """Satterthwaite's degrees of freedom of each contrast's squared standard error ``V_g + R_g``.

    Its noise is that of the fitted ``a`` (``b``, from every annotation, is taken as known), which enters with the
    coefficient ``1 / k_g + 1 / (N - k_g)``: ``df_g = 2 (V_g + R_g)^2 / (Var(a) (1 / k_g + 1 / (N - k_g))^2)``
    (infinite when ``a`` is not estimated with noise).

    Args:
        mom: the groups' moments.

    Returns:
        numpy.ndarray: shaped like ``mom.mean`` (NaN for groups without units or without a rest).
    """
    has = mom.k > 0
    k = np.where(has, mom.k, 0.0)
    v = np.where(has, mom.variance, 0.0)
    total_n = k.sum(axis=-1, keepdims=True)
    rest_n = total_n - k
    with np.errstate(divide="ignore", invalid="ignore"):
        se2 = v + ((k**2 * v).sum(axis=-1, keepdims=True) - k**2 * v) / rest_n**2
        coef = 1.0 / np.where(has, k, 1.0) + 1.0 / np.where(rest_n > 0, rest_n, 1.0)
        noise = mom.var_a[..., None] * coef**2
        df = np.where(noise > 0, 2.0 * se2**2 / np.where(noise > 0, noise, 1.0), np.inf)
    return np.where(has & (rest_n > 0), df, np.nan)


def larger_root(lead: np.ndarray, half_b: np.ndarray, const: np.ndarray) -> np.ndarray:
    """The larger root of ``lead d^2 - 2 half_b d + const = 0`` (a double root where the discriminant is
    negative by rounding): the detectable gaps of the test of equal service and of
    :func:`~aif360_subjective.opinion.excluded_groups`, whose standard error moves with the gap."""
    return np.asarray((half_b + np.sqrt(np.maximum(half_b**2 - lead * const, 0.0))) / lead, dtype=np.float64)


def normal_equivalent(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``|t|`` on ``df`` degrees of freedom as the standard normal value of the same two-sided tail:
    ``z = Phi^-1(1 - P(T_df > |t|))`` (tails below 1e-300 are taken as 1e-300). Groups whose standard errors rest
    on different degrees of freedom become comparable in the max-T."""
    with np.errstate(invalid="ignore"):
        tail = special.stdtr(np.minimum(df, _DF_CAP), -np.abs(t))
    return np.where(np.isfinite(t), -special.ndtri(np.maximum(tail, _TAIL_FLOOR)), np.nan)


def t_from_normal(z: float | np.ndarray, df: np.ndarray) -> np.ndarray:
    """The inverse of :func:`normal_equivalent`: the ``|t|`` on ``df`` degrees of freedom with the tail of ``|z|``
    (computed from the tail, ``-F_df^-1(Phi(-|z|))``, so that large ``z`` keep their precision)."""
    with np.errstate(invalid="ignore"):
        out = -special.stdtrit(np.minimum(df, _DF_CAP), special.ndtr(-np.abs(z)))
    return np.asarray(out, dtype=np.float64)


def welch_omnibus(mom: GroupMoments) -> tuple[np.ndarray, np.ndarray]:
    """Welch's numerator ``T`` and its chi-square equivalent after Welch's small-sample correction.

    ``F = (T / (G - 1)) / (1 + 2 (G - 2) lambda / (G^2 - 1))`` on ``(G - 1, (G^2 - 1) / (3 lambda))`` degrees of
    freedom, ``lambda = sum_g (1 - w_g / W)^2 / df_g`` with ``df_g = 2 V_g^2 k_g^2 / Var(a)`` the degrees of
    freedom of each group's variance (Welch 1951, with the count model's degrees of freedom in place of
    ``k_g - 1``). Returned as the chi-square value with ``G - 1`` degrees of freedom and the same tail, so that it
    reads like ``T`` (they agree when ``a`` is known).

    Args:
        mom: the groups' moments.

    Returns:
        tuple: ``(T, chi-square equivalent)`` per arrangement.
    """
    has = mom.k > 0
    v = np.where(has, mom.variance, 1.0)
    w = np.where(has, 1.0 / v, 0.0)
    m = np.where(has, mom.mean, 0.0)
    n_groups = has.sum(axis=-1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        total_w = w.sum(axis=-1)
        centre = (w * m).sum(axis=-1) / total_w
        omnibus = (w * (m - centre[..., None]) ** 2).sum(axis=-1)
        noise = mom.var_a[..., None] / np.where(has, mom.k, 1.0) ** 2
        inv_df = np.where(has & (noise > 0), noise / (2.0 * v**2), 0.0)
        lam = ((1.0 - w / total_w[..., None]) ** 2 * inv_df).sum(axis=-1)
        dfn = n_groups - 1.0
        f = omnibus / dfn / (1.0 + 2.0 * (n_groups - 2.0) * lam / (n_groups**2 - 1.0))
        dfd = np.where(lam > 0, (n_groups**2 - 1.0) / (3.0 * np.where(lam > 0, lam, 1.0)), _DF_CAP)
        tail = special.fdtrc(dfn, np.minimum(dfd, _DF_CAP), f)
        equivalent = special.chdtri(dfn, np.maximum(tail, _TAIL_FLOOR))
    ok = (n_groups >= 2) & np.isfinite(omnibus)
    return np.where(ok, omnibus, np.nan), np.where(ok, equivalent, np.nan)


def omnibus_tail(equivalent: float, n_groups: int) -> float:
    """The parametric p-value of :func:`welch_omnibus`'s chi-square equivalent on ``n_groups`` groups (NaN when
    undefined)."""
    if n_groups < 2 or not np.isfinite(equivalent):
        return float("nan")
    return float(special.chdtrc(n_groups - 1.0, equivalent))


def omnibus_and_max_t(sums: np.ndarray, within: float | None = None) -> np.ndarray:
    """The permutation engine's statistics: ``[T', max_g z_g]`` per arrangement (see the module): ``T'`` Welch's
    corrected omnibus as a chi-square value (:func:`welch_omnibus`), ``z_g`` each group's ``|t_g|`` as a normal
    value (:func:`normal_equivalent`).

    Args:
        sums: ``(B, G, N_COLUMNS)`` sums per arrangement and group.
        within: as in :func:`group_moments`.

    Returns:
        numpy.ndarray: shape ``(B, 2)``; NaN where the variances cannot be estimated.
    """
    mom = group_moments(sums, within=within)
    _, omnibus = welch_omnibus(mom)
    _, _, t = contrasts(mom)
    z = normal_equivalent(t, contrast_df(mom))
    finite = np.isfinite(z)
    max_t = np.where(finite.any(axis=-1), np.where(finite, z, -np.inf).max(axis=-1), np.nan)
    return np.stack([omnibus, max_t], axis=-1)
