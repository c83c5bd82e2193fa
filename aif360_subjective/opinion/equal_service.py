"""Can the analysis say "no exclusion"? The test of equal service, an unfairness interval that can reach 0, and the
verdict sentence.

The unfairness (the population std of the groups' values) is never 0 on real data: even when every group is served
equally, its groups' values differ by noise, so the std is biased upwards and a bootstrap interval around it does
not reach 0. Three tools answer the question the std cannot:

1. :func:`exclusion_test`, a **permutation test of equal service**. Null hypothesis: annotators are exchangeable
   across groups (every group is served equally). Annotators are permuted across the groups (group sizes kept),
   the statistic recomputed on every permutation; the p-value is the share of permutations at least as extreme
   as the data (Monte Carlo: ``(1 + count) / (1 + n_permutations)``; exact enumeration when there are no more
   distinct permutations than ``n_permutations``). The default statistic is the size-weighted between-group sum
   of squares ``sum_g k_g (m_g - m)^2`` (one-way ANOVA's numerator; for pooled groups ``N_g`` annotations and the
   pooled values): a small group that disagrees weighs by its size, not as much as a large one, which gives the
   test its power against a dissenting minority (``benchmarks/opinion_coverage.py`` compares it with the plain
   std). ADR bins are fitted on the same annotations their performance is scored on, which makes identical
   annotators look unequal; their test is therefore always cross-fitted (:func:`cross_fitted_test`).
2. :func:`unfairness_interval`, a confidence interval for the **true** spread across groups obtained by inverting
   the one-way ANOVA F test through the noncentral F distribution, in a version for unequal group sizes
   (Satterthwaite's moment match): it reaches 0 when the groups do not differ, and carries a debiased estimate.
3. :func:`~aif360_subjective.opinion.verdict.verdict_sentence` (re-exported here): one sentence from the test and
   the intervals.

References:
    Good, P. (2005). Permutation, Parametric and Bootstrap Tests of Hypotheses, 3rd ed. Springer (ch. 3, the
    p-value ``(1 + count) / (1 + B)``; ch. 7, the one-way layout).
    Phipson, B., Smyth, G. K. (2010). Permutation p-values should never be zero. Stat. Appl. Genet. Mol. Biol.
    9(1), Article 39.
    Steiger, J. H. (2004). Beyond the F test: effect size confidence intervals and tests of close fit in the
    analysis of variance and contrast analysis. Psychological Methods 9(2), 164-182 (inverting the noncentral F).
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance components. Biometrics
    Bulletin 2(6), 110-114.
    Chernozhukov, V. et al. (2018). Double/debiased machine learning. The Econometrics Journal 21(1)
    (cross-fitting).
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import optimize, stats

from .._deprecation import moved_names
from .._labels import cell_codes, confusion_counts, ratio
from .._validation import check_ci, check_random_state
from .annotations import EncodedAnnotations, cross_fit, rating_error_counts
from .bootstrap import Interval
from .core import count_score, counts_suffice, histograms_suffice, performance_from_histograms
from .core import unit_performance as _unit_performance
from .groups import assign_bins, enforce_min_group_size
from .options import ExclusionTestOptions, check_test_options
from .verdict import p_value_text

if TYPE_CHECKING:
    from .core import OpinionExclusionResult

__all__ = [
    "ExclusionTest",
    "UnfairnessInterval",
    "cross_fitted_test",
    "exclusion_test",
    "permutation_test",
    "unfairness_interval",
]

# Bound on permutations x slots held at once (a few arrays of this many int64: about 100 MB).
_MAX_CELLS = 4_000_000


# ----------------------------------------------------------------------------------------------
# the permutation engine
# ----------------------------------------------------------------------------------------------
def _n_arrangements(patterns: np.ndarray) -> int:
    """Number of distinct assignments of the pattern rows to the annotators (a multinomial coefficient)."""
    _, mult = np.unique(patterns, axis=0, return_counts=True)
    log_count = math.lgamma(len(patterns) + 1) - sum(math.lgamma(int(m) + 1) for m in mult)
    if log_count > 50.0:  # far beyond any number of permutations asked
        return 2**70
    return round(math.exp(log_count))


def _arrangements(patterns: np.ndarray) -> np.ndarray:
    """Every distinct arrangement of the pattern rows: ``(M, n)`` row indices, the data's own arrangement first.

    Chooses the positions of each distinct pattern among the positions left, in turn (only called when
    :func:`_n_arrangements` is at most the number of permutations asked, so the loop is bounded by it).
    """
    uniq, inverse = np.unique(patterns, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    rep = np.array([int(np.flatnonzero(inverse == u)[0]) for u in range(len(uniq))])  # one row per pattern
    mult = np.bincount(inverse, minlength=len(uniq))
    n = len(patterns)
    out: list[np.ndarray] = []

    def place(u: int, free: tuple[int, ...], row: np.ndarray) -> None:
        if u == len(uniq):
            out.append(row.copy())
            return
        for chosen in itertools.combinations(free, int(mult[u])):
            row[list(chosen)] = rep[u]
            place(u + 1, tuple(i for i in free if i not in chosen), row)

    place(0, tuple(range(n)), np.zeros(n, dtype=np.int64))
    arr = np.array(out, dtype=np.int64)
    own = np.all(inverse[None, :] == inverse[arr], axis=1)  # the observed arrangement (patterns, not rows)
    return np.concatenate([arr[own][:1], arr[~own]])


def _group_sums(patterns: np.ndarray, data: np.ndarray, n_groups: int) -> np.ndarray:
    """Group sums of ``data`` under every arrangement: patterns ``(B, n, h)`` group codes (-1 = no group),
    data ``(n, h, K)`` -> ``(B, n_groups, K)``."""
    b = patterns.shape[0]
    k = data.shape[-1]
    keep = patterns >= 0
    flat = (np.arange(b)[:, None, None] * n_groups + patterns)[keep]
    sums = np.empty((b, n_groups, k))
    for j in range(k):  # a handful of columns (value, count; or the confusion cells)
        w = np.broadcast_to(data[None, ..., j], patterns.shape)[keep]
        sums[..., j] = np.bincount(flat, weights=w, minlength=b * n_groups).reshape(b, n_groups)
    return sums


def permutation_test(
    patterns: np.ndarray,
    data: np.ndarray,
    n_groups: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_permutations: int,
    rng: np.random.Generator,
) -> tuple[float, float, int, bool]:
    """Permutation test of exchangeable annotators: their data move together onto other annotators' groups.

    Args:
        patterns: ``(n, h)`` group codes of each annotator's ``h`` slots (h = 1: its group; h > 1: several
            slots of one annotator, moved together); -1 = the slot has no group.
        data: ``(n, h, K)`` additive data of each slot (e.g. ``[value, 1]``, or confusion counts).
        n_groups: number of groups.
        statistic: maps group sums ``(B, n_groups, K)`` to one value per arrangement (larger = more unequal).
        n_permutations: Monte-Carlo permutations; every distinct arrangement is enumerated instead when there are
            no more of them.
        rng: random generator.

    Returns:
        tuple: ``(observed statistic, p-value, arrangements used, exact)``.
    """
    n = len(patterns)
    observed = float(statistic(_group_sums(patterns[None], data, n_groups))[0])
    if n < 2 or not np.isfinite(observed):
        return observed, np.nan, 0, False
    # values equal up to rounding count as "at least as extreme" (sums in another order differ in the last bits)
    tol = 1e-9 * max(1.0, abs(observed))
    if _n_arrangements(patterns) <= n_permutations:
        arr = _arrangements(patterns)
        null = statistic(_group_sums(patterns[arr], data, n_groups))
        return observed, float(np.count_nonzero(null >= observed - tol) / len(arr)), len(arr), True
    count = 0
    chunk = max(1, _MAX_CELLS // max(1, n * patterns.shape[1] * data.shape[-1]))
    for b0 in range(0, n_permutations, chunk):  # bounded memory; each chunk is vectorised
        b = min(chunk, n_permutations - b0)
        perm = np.argsort(rng.random((b, n)), axis=1)  # one uniform random permutation per row
        null = statistic(_group_sums(patterns[perm], data, n_groups))
        count += int(np.count_nonzero(null >= observed - tol))
    return observed, (1.0 + count) / (1.0 + n_permutations), n_permutations, False


def _between_values(sums: np.ndarray) -> np.ndarray:
    """Size-weighted between-group sum of squares of unit values from sums ``[value, 1]``:
    ``sum_g S_g^2 / k_g - S^2 / N``."""
    s, k = sums[..., 0], sums[..., 1]
    between = ratio(s**2, k, fill=0.0).sum(axis=-1) - ratio(s.sum(axis=-1) ** 2, k.sum(axis=-1), fill=0.0)
    return np.asarray(between, dtype=np.float64)


def _std_values(sums: np.ndarray) -> np.ndarray:
    """The unfairness (population std of the groups' means, empty groups skipped) from sums ``[value, 1]``."""
    from .bootstrap import spread_across_groups

    return spread_across_groups(ratio(sums[..., 0], sums[..., 1]))


def _pooled_statistic(score: Callable[[np.ndarray], np.ndarray], weighted: bool,
                      ) -> Callable[[np.ndarray], np.ndarray]:
    """Statistic on pooled groups from summed cells ``(B, G, K)``: ``sum_g N_g (s_g - s)^2`` (``s`` the
    N-weighted mean of the defined groups) or the std of the groups' pooled values."""
    from .bootstrap import spread_across_groups

    def stat(sums: np.ndarray) -> np.ndarray:
        values = score(sums)
        if not weighted:
            return spread_across_groups(values)
        n = np.where(np.isnan(values), 0.0, sums.sum(axis=-1))
        v = np.where(np.isnan(values), 0.0, values)
        mean = ratio((n * v).sum(axis=-1), n.sum(axis=-1), fill=0.0)
        return np.asarray((n * (v - mean[..., None]) ** 2).sum(axis=-1), dtype=np.float64)

    return stat


# ----------------------------------------------------------------------------------------------
# the test of equal service
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExclusionTest:
    """The test of equal service of one analysis (``result.exclusion_test``).

    Null hypothesis: every group is served equally, i.e. annotators are exchangeable across the groups.

    Attributes:
        statistic: the observed statistic (``statistic_name``; for the cross-fitted ADR test, that of the half
            with the smaller p-value).
        p_value: the permutation p-value (for the cross-fitted ADR test, twice the smaller of its two halves'
            p-values, at most 1: Bonferroni, valid whatever their dependence).
        method: how it was computed, in words.
        n_permutations: permutations used (per half for the cross-fitted test); all distinct ones when
            ``exact``.
        exact: every distinct permutation was enumerated (no Monte-Carlo error).
        statistic_name: "between" (size-weighted between-group sum of squares) or "std".
        n_groups: groups with at least one unit in the test.
        n_units: units permuted (annotators, or (group, annotator) units for item/annotation groupings).
        n_undefined_units: units left out because their performance is undefined (counted, not dropped
            silently).
        thin_groups: labels of the groups with fewer annotators than ``thin_threshold`` (they stay in the test:
            under the null a small group is as exchangeable as a large one, but it adds noise).
        thin_threshold: the threshold (the analysis' ``warn_group_size``).
        notes: caveats (e.g. groups found from the same annotations).
    """

    statistic: float
    p_value: float
    method: str
    n_permutations: int
    exact: bool = False
    statistic_name: str = "between"
    n_groups: int = 0
    n_units: int = 0
    n_undefined_units: int = 0
    thin_groups: tuple[Any, ...] = ()
    thin_threshold: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n_thin_groups(self) -> int:
        """Number of thin groups."""
        return len(self.thin_groups)

    def text(self) -> str:
        """``p = 0.41 (permutation of annotators across groups, 9,999 permutations)``; ``all 6 permutations`` when
        every distinct one was enumerated."""
        count = f"{'all ' if self.exact else ''}{self.n_permutations:,} permutations"
        return f"{p_value_text(self.p_value)} ({self.method}, {count})"


def _statistic_for(result: OpinionExclusionResult, name: str) -> tuple[Callable[[np.ndarray], np.ndarray], bool]:
    """(statistic on group sums, pooled?)."""
    opts = result.options
    assert opts is not None
    if opts.aggregate == "annotator":
        return (_between_values if name == "between" else _std_values), False
    _, score = count_score(result)
    return _pooled_statistic(score, name == "between"), True


def _thin(result: OpinionExclusionResult) -> tuple[tuple[Any, ...], int]:
    size = result.options.warn_group_size if result.options is not None else 0
    table = result.group_table
    return tuple(table.index[table["n_annotators"].to_numpy() < size]), size


def _unit_data(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``[value, 1]`` per unit, zeros for undefined units; and the defined mask."""
    defined = ~np.isnan(values)
    return np.stack([np.where(defined, values, 0.0), defined.astype(np.float64)], axis=-1), defined


def exclusion_test(
    result: OpinionExclusionResult,
    enc: EncodedAnnotations | None = None,
    *,
    n_permutations: int = 9999,
    statistic: str = "between",
    random_state: Any = None,
) -> ExclusionTest:
    """The test of equal service of an analysis: are some groups served worse than chance would make them?

    Annotator groupings (a Series, "demographic", "discovered"): annotators are permuted across the groups (each
    group keeps its size). Item and annotation groupings ("ambiguity", "popularity"): the (group, annotator) units
    are permuted as if exchangeable (an annotator's units in several groups are treated as independent; read the
    p-value as approximate). ADR bins: always the cross-fitted test (:func:`cross_fitted_test`), whatever
    ``adr_fit`` the headline used, because bins fitted on the scored annotations differ even between identical
    annotators.

    Args:
        result: an analysis (from either face).
        enc: the encoded annotations (needed for ADR bins only: the cross-fit needs the rows).
        n_permutations: Monte-Carlo permutations (>= 99); exact enumeration when there are no more distinct ones.
        statistic: "between" (size-weighted between-group sum of squares, default) or "std" (the unfairness).
        random_state: None, an int seed or a numpy Generator.

    Returns:
        ExclusionTest

    Raises:
        ValueError: ADR bins without the annotation rows (``enc``), a pooled aggregate with a callable measure,
            a result without options, or bad options.
        TypeError: a bad ``n_permutations`` or ``random_state`` type.
    """
    test = check_test_options(n_permutations, statistic)
    rng = check_random_state(random_state)
    opts = result.options
    if opts is None:
        raise ValueError("result carries no options: build it with opinion_exclusion() or the metric class")
    if opts.grouping == "adr":
        if enc is None:
            raise ValueError(
                "the test of equal service for ADR groups cross-fits ADR on one half of each annotator's items "
                "and needs the annotation rows (enc=); the Dask back end has only counts: compute on pandas"
            )
        return cross_fitted_test(result, enc, test, rng)
    thin, size = _thin(result)
    units = result.unit_performance
    n_groups = len(result.group_table)
    group = units["group"].cat.codes.to_numpy(np.int64) if n_groups else np.zeros(0, np.int64)
    stat, pooled = _statistic_for(result, test.statistic)
    if pooled:
        if result.unit_counts is None:
            raise ValueError("the pooled test redraws the units' counts, which this result does not carry "
                             "(a callable performance measure: use aggregate='annotator')")
        cells, _ = count_score(result)
        data = np.asarray(cells(result.unit_counts), dtype=np.float64)[:, None, :]
        defined = np.ones(len(group), dtype=bool)
    else:
        data, defined = _unit_data(units["performance"].to_numpy(np.float64))
        data = data[:, None, :]
    keep = defined
    unit_word = "annotators" if result.grouping_summary.unit == "annotator" else "(group, annotator) units"
    observed, p, used, exact = permutation_test(
        group[keep][:, None], data[keep], n_groups, stat, n_permutations=test.n_permutations, rng=rng
    )
    notes = []
    if opts.grouping == "discovered":
        notes.append("the groups were found by clustering the annotators' own labels (ADR, positive share), the "
                     "labels their performance is scored on: like ADR bins fitted on the same annotations, this "
                     "can make identical annotators look unequal; read a small p-value with care")
    if result.grouping_summary.unit != "annotator":
        notes.append(f"{unit_word} are permuted as if exchangeable; an annotator with units in several groups "
                     "makes the p-value approximate")
    return ExclusionTest(
        statistic=observed, p_value=p, method=f"permutation of {unit_word} across groups", n_permutations=used,
        exact=exact, statistic_name=test.statistic, n_groups=int(np.count_nonzero(np.bincount(
            group[keep], minlength=n_groups))), n_units=int(keep.sum()), n_undefined_units=int((~keep).sum()),
        thin_groups=thin, thin_threshold=size, notes=tuple(notes),
    )


def _half_values(result: OpinionExclusionResult, enc: EncodedAnnotations, row_half: np.ndarray, pooled: bool,
                 statistic: str) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray] | None]:
    """Per (annotator, half): ``[value, 1]`` (annotator aggregate) or the cells the pooled score reads, shape
    ``(n_annotators, 2, K)``; and for pooled groups the statistic on those cells (None: the result's)."""
    opts = result.options
    assert opts is not None
    k = len(enc.annotators)
    codes = 2 * enc.annotator_codes + row_half
    if not pooled:
        values = _unit_performance(opts.performance, codes, 2 * k, enc, nan_policy=opts.nan_policy)
        return _unit_data(values)[0].reshape(k, 2, 2), None
    if histograms_suffice(opts.performance):
        counts, cells = rating_error_counts(enc, np.arange(enc.n), codes, 2 * k)
        if counts is None or cells is None:
            raise ValueError(f"the pooled test of {opts.performance_name} needs a discrete rating scale (the "
                             "absolute errors take too many distinct values): use aggregate='annotator'")
        errors = np.asarray(cells, np.float64)

        def score(c: np.ndarray) -> np.ndarray:
            return performance_from_histograms(opts.performance, c, errors, opts.nan_policy)

        return np.asarray(counts, np.float64).reshape(k, 2, -1), _pooled_statistic(score, statistic == "between")
    if not counts_suffice(opts.performance):
        raise ValueError("the pooled test needs named performance measures (a callable cannot be pooled from "
                         "counts): use aggregate='annotator'")
    cells_of, _ = count_score(result)
    counts = confusion_counts(codes, 2 * k, cell_codes(enc.t, enc.p))
    return np.asarray(cells_of(counts), np.float64).reshape(k, 2, -1), None


def cross_fitted_test(
    result: OpinionExclusionResult, enc: EncodedAnnotations, test: ExclusionTestOptions, rng: np.random.Generator
) -> ExclusionTest:
    """The test of equal service for ADR bins, cross-fitted.

    Each annotator's items are split in two halves
    (:func:`~aif360_subjective.opinion.annotations.item_halves`). Half 1: annotators are binned by their ADR on
    the first half (the analysis' ``bins`` rule over the ADRs of that half, then its ``min_group_size`` rule) and
    scored on the second; the test
    permutes annotators across these bins. Half 2 swaps the halves. Within one half the bins and the scores come
    from disjoint items, so under exchangeable annotators the permutation test is exact; the two halves' p-values
    are combined as ``min(1, 2 min(p1, p2))`` (Bonferroni), which holds the level whatever their dependence.
    (Permuting both halves together is not valid: an annotator's bin on one half is correlated with its score on
    the same half, which the other direction uses.)

    Args:
        result: an ADR analysis (``adr_fit`` "same" or "cross").
        enc: its encoded annotations.
        test: validated test options.
        rng: random generator.

    Returns:
        ExclusionTest
    """
    opts = result.options
    assert opts is not None
    pooled = opts.aggregate == "pooled"
    fit = cross_fit(enc, opts.tie, opts.adr_reference)
    data, own_stat = _half_values(result, enc, fit.row_half, pooled, test.statistic)
    stat = own_stat if own_stat is not None else _statistic_for(result, test.statistic)[0]
    outcomes = []
    n_units = n_undefined = 0
    for half in (0, 1):  # bins from this half, scores from the other
        adr = fit.adr[:, half]
        codes, labels, _notes = assign_bins(adr, opts.bins)
        # the analysis' size rule on this half's bins too (merge or drop bins below min_group_size)
        sizes = np.bincount(codes[codes >= 0], minlength=len(labels))
        codes, labels, _size_notes = enforce_min_group_size(codes, labels, sizes, opts.min_group_size,
                                                            opts.small_groups, True)
        scored = data[:, 1 - half, :]
        defined = scored[:, -1] > 0 if not pooled else scored.sum(axis=-1) > 0
        keep = (codes >= 0) & defined
        n_units = max(n_units, int(keep.sum()))
        n_undefined = max(n_undefined, int(((codes >= 0) & ~defined).sum()))
        outcomes.append(permutation_test(codes[keep][:, None], scored[keep][:, None, :], len(labels), stat,
                                         n_permutations=test.n_permutations, rng=rng))
    best = int(np.nanargmin([o[1] for o in outcomes])) if np.isfinite([o[1] for o in outcomes]).any() else 0
    p = min(1.0, 2.0 * min(o[1] for o in outcomes)) if all(np.isfinite(o[1]) for o in outcomes) else np.nan
    thin, size = _thin(result)
    return ExclusionTest(
        statistic=outcomes[best][0], p_value=p,
        method="cross-fitted permutation test (ADR bins from one half of each annotator's items, performance on "
               "the other, both ways, Bonferroni-combined)",
        n_permutations=min(o[2] for o in outcomes), exact=all(o[3] for o in outcomes),
        statistic_name=test.statistic, n_groups=len(result.group_table), n_units=n_units,
        n_undefined_units=n_undefined, thin_groups=thin, thin_threshold=size,
    )


# ----------------------------------------------------------------------------------------------
# the unfairness interval
# ----------------------------------------------------------------------------------------------
class UnfairnessInterval(Interval):
    """A confidence interval for the true spread across groups: the tuple ``(low, high)`` with details.

    Attributes:
        low, high: the bounds (``low`` is 0 when the spread is indistinguishable from noise).
        estimate: the unfairness (the paper's population std of the groups' values, biased upwards by noise).
        debiased: the unfairness with the noise's expected share removed:
            ``sqrt(max(0, S - (1 - 1/G) sum_g v_g) / G)`` with ``S = sum_g (m_g - mean)^2`` and ``v_g`` the
            variance of group g's value.
        ci: confidence level.
        method: "noncentral F" (within-group variance of the units) or "noncentral chi-square" (bootstrap
            variances of the groups' values), or why there is no interval.
        df: ``(df1, df2)`` of the (noncentral) F; df2 = inf for the chi-square.
        n_boot, n_valid: 0 (not a bootstrap; kept so code reading a bootstrap interval's attributes still runs).
    """

    estimate: float
    debiased: float
    ci: float
    method: str
    df: tuple[float, float]
    n_boot: int = 0
    n_valid: int = 0

    def __new__(cls, low: float, high: float, *, estimate: float, debiased: float, ci: float, method: str,
                df: tuple[float, float] = (np.nan, np.nan)) -> UnfairnessInterval:
        self = super().__new__(cls, (float(low), float(high)))
        self.estimate, self.debiased, self.ci, self.method = float(estimate), float(debiased), float(ci), method
        self.df = (float(df[0]), float(df[1]))
        return self

    @property
    def indistinguishable_from_noise(self) -> bool:
        """Whether the interval reaches 0: the spread across groups is indistinguishable from noise."""
        return bool(self.low == 0.0)

    @property
    def extended(self) -> bool:
        """Always False: an inverted test is never widened (the bootstrap intervals' flag)."""
        return False

    def __repr__(self) -> str:
        flag = ", the spread across groups is indistinguishable from noise" if self.indistinguishable_from_noise else ""
        return (f"UnfairnessInterval(low={self.low:.4g}, high={self.high:.4g}, estimate={self.estimate:.4g}, "
                f"debiased={self.debiased:.4g}, ci={self.ci:g}, method={self.method!r}{flag})")


def _satterthwaite(w: np.ndarray) -> tuple[float, float, float]:
    """For independent group values with variances ``sigma^2 w_g``: ``(tr(CW), c, nu)`` with ``C = I - J/G``,
    so that ``S = sum_g (m_g - mean)^2`` is about ``sigma^2 c chi'^2_nu(lambda)``, ``lambda = G theta^2 /
    (sigma^2 c)`` (equal sizes: ``c = 1/k``, ``nu = G - 1``, the one-way ANOVA exactly)."""
    g = len(w)
    tr1 = float(w.sum() * (1.0 - 1.0 / g))
    tr2 = float((w**2).sum() * (1.0 - 2.0 / g) + w.sum() ** 2 / g**2)
    return tr1, tr2 / tr1, tr1**2 / tr2


def _invert(f_obs: float, df1: float, df2: float, ci: float) -> tuple[float, float]:
    """Noncentrality bounds ``(lambda_low, lambda_high)`` of a (noncentral) F observed at ``f_obs``."""
    alpha = (1.0 - ci) / 2.0

    def cdf(nc: float) -> float:
        if np.isinf(df2):
            return float(stats.ncx2.cdf(f_obs * df1, df1, nc)) if nc > 0 else float(stats.chi2.cdf(f_obs * df1, df1))
        return float(stats.ncf.cdf(f_obs, df1, df2, nc)) if nc > 0 else float(stats.f.cdf(f_obs, df1, df2))

    def bound(target: float) -> float:
        if cdf(0.0) <= target:  # even no spread leaves the data this far up: the bound is 0
            return 0.0
        hi = max(1.0, f_obs * df1)
        while cdf(hi) > target:  # the cdf decreases in the noncentrality
            hi *= 2.0
        return float(optimize.brentq(lambda nc: cdf(nc) - target, 0.0, hi, xtol=1e-10, rtol=1e-10))

    return bound(1.0 - alpha), bound(alpha)


def unfairness_interval(result: OpinionExclusionResult, ci: float = 0.95,
                        group_variances: np.ndarray | None = None) -> UnfairnessInterval:
    """Confidence interval of the true unfairness by inverting the one-way ANOVA test (noncentral F).

    The target is the population std of the groups' *expected* values (their values without the noise of which
    annotators and annotations were observed). With ``S = sum_g (m_g - mean)^2`` over the G groups' values and
    ``v_g = sigma^2 w_g`` their variances, ``S / (sigma^2 c)`` is about a noncentral chi-square with ``nu``
    degrees of freedom and noncentrality ``G theta^2 / (sigma^2 c)`` (Satterthwaite's moment match; exact for
    equal sizes). Annotator aggregate: ``w_g = 1 / k_g`` (k_g defined units), ``sigma^2`` the pooled within-group
    variance of the units with ``N - G`` degrees of freedom, so ``F = S / (nu c sigma^2)`` is a noncentral F,
    inverted for the noncentralities whose F would put the data at the ``1 - alpha/2`` and ``alpha/2``
    quantiles; a lower bound below 0 is 0. Pooled groups, or annotator groups without two units in some group
    (``N - G < 2``): ``v_g`` from the bootstrap variances of the groups' values (``group_variances``) and the
    noncentral chi-square.

    Args:
        result: an analysis.
        ci: confidence level.
        group_variances: bootstrap variances of the groups' values (in group-table order), for the fallback.

    Returns:
        UnfairnessInterval: NaN bounds when no interval can be set (the reason in ``method``).

    References:
        Steiger (2004); Satterthwaite (1946) (see the module).
    """
    ci = check_ci(ci)
    table = result.group_table
    values = table["performance"].to_numpy(np.float64)
    defined = ~np.isnan(values)
    m = values[defined]
    g = len(m)
    estimate = float(result.unfairness)
    if g < 2:
        return UnfairnessInterval(0.0, 0.0, estimate=estimate, debiased=0.0, ci=ci,
                                  method="one group: no spread to estimate")
    s = float(((m - m.mean()) ** 2).sum())
    opts = result.options
    units = result.unit_performance
    w: np.ndarray | None = None
    sigma2 = 1.0
    df2 = np.inf
    method = ""
    if opts is not None and opts.aggregate == "annotator" and len(units):
        codes = units["group"].cat.codes.to_numpy(np.int64)
        v = units["performance"].to_numpy(np.float64)
        ok = ~np.isnan(v)
        k = np.bincount(codes[ok], minlength=len(table)).astype(np.float64)[defined]
        dev = v[ok] - values[codes[ok]]
        dfw = float(k.sum() - g)  # within-group degrees of freedom
        if dfw >= 2:
            w, sigma2, df2 = 1.0 / k, float((dev**2).sum() / dfw), dfw
            method = "noncentral F"
    if w is None:
        if group_variances is None:
            return UnfairnessInterval(np.nan, np.nan, estimate=estimate, debiased=np.nan, ci=ci,
                                      method="no interval: fewer than two units beyond one per group, and no "
                                             "bootstrap variances")
        gv = np.asarray(group_variances, np.float64)[defined]
        if not np.all(np.isfinite(gv)) or np.all(gv <= 0):
            return UnfairnessInterval(np.nan, np.nan, estimate=estimate, debiased=np.nan, ci=ci,
                                      method="no interval: the groups' values have no estimated variance")
        w, sigma2 = np.maximum(gv, 1e-300), 1.0
        method = "noncentral chi-square (bootstrap variances)"
    tr1, c, nu = _satterthwaite(w)
    debiased = math.sqrt(max(0.0, s - sigma2 * tr1) / g)
    if sigma2 <= 0:  # no noise at all: the values are the truth
        return UnfairnessInterval(estimate, estimate, estimate=estimate, debiased=estimate, ci=ci,
                                  method=method + " (no within-group variance)", df=(nu, df2))
    f_obs = s / (nu * c * sigma2)
    lam_low, lam_high = _invert(f_obs, nu, df2, ci)
    scale = sigma2 * c / g
    return UnfairnessInterval(math.sqrt(lam_low * scale), math.sqrt(lam_high * scale), estimate=estimate,
                              debiased=debiased, ci=ci, method=method, df=(nu, df2))


# a name whose home is another module: still importable from here, with a DeprecationWarning
__getattr__ = moved_names(__name__, {"verdict_sentence": "aif360_subjective.opinion.verdict"})
