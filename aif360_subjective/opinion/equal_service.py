"""Can the analysis say "no exclusion"? The test of equal service, an unfairness interval that can reach 0, and the
verdict sentence.

The unfairness (the population std of the groups' values) is never 0 on real data: even when every group is served
equally, its groups' values differ by noise, so the std is biased upwards and a bootstrap interval around it does
not reach 0. Three tools answer the question the std cannot:

1. :func:`exclusion_test`, a **permutation test of equal service**. Null hypothesis: with the default studentized
   statistic (:mod:`~aif360_subjective.opinion.studentized`), every group's annotators have the same expected value,
   annotators with fewer annotations being allowed to be noisier; with the statistics below, annotators are
   exchangeable across groups. Annotators are permuted across the groups (group sizes kept),
   the statistic recomputed on every permutation; the p-value is the share of permutations at least as extreme
   as the data (Monte Carlo: ``(1 + count) / (1 + n_permutations)``; exact enumeration when there are no more
   distinct permutations than ``n_permutations``). The former default statistic is the size-weighted between-group
   sum of squares ``sum_g k_g (m_g - m)^2`` (one-way ANOVA's numerator; for pooled groups ``N_g`` annotations and the
   pooled values): a small group that disagrees weighs by its size, not as much as a large one, which gives the
   test its power against a dissenting minority (``benchmarks/opinion_coverage.py`` compares it with the plain
   std). ADR bins are fitted on the same annotations their performance is scored on, which makes identical
   annotators look unequal; their test is therefore always cross-fitted (:func:`cross_fitted_test`).
2. :func:`unfairness_interval`, a confidence interval for the **true** spread across groups obtained by inverting
   the one-way ANOVA F test through the noncentral F distribution, in a version for unequal group sizes
   (Satterthwaite's moment match): it reaches 0 when the groups do not differ, and carries a debiased estimate.
3. :func:`~aif360_subjective.opinion.verdict.verdict_sentence` (its home; importing it from here warns): one
   sentence from the test and the intervals.

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
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from .._deprecation import moved_names
from .._labels import TN, TP, cell_codes, confusion_counts, ratio
from .._maxt import count_at_least, tie_tolerance
from .._maxt import critical_value as maxt_critical_value
from .._maxt import tail_p as maxt_tail_p
from .._validation import check_choice, check_ci, check_random_state
from .annotations import EncodedAnnotations, HalfCounts, cross_fit, rating_error_counts
from .bootstrap import Interval
from .core import count_score, counts_suffice, histograms_suffice, performance_from_counts, performance_from_histograms
from .core import unit_performance as _unit_performance
from .design import DesignChecks, count_note, design_checks
from .groups import assign_bins, enforce_min_group_size
from .options import ADJUSTMENTS, ExclusionTestOptions, check_test_options
from .studentized import (
    contrast_df,
    contrasts,
    group_moments,
    larger_root,
    normal_equivalent,
    omnibus_and_max_t,
    omnibus_tail,
    t_from_normal,
    unit_columns,
)
from .verdict import p_value_text

if TYPE_CHECKING:
    from .core import OpinionExclusionResult

__all__ = [
    "ExclusionTest",
    "UnfairnessInterval",
    "attach_test",
    "cross_fitted_test",
    "critical_value",
    "exclusion_test",
    "item_residuals",
    "permutation_distribution",
    "permutation_test",
    "smallest_p",
    "tail_p",
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


def permutation_distribution(
    patterns: np.ndarray,
    data: np.ndarray,
    n_groups: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_permutations: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """The statistics of the data and of its permutations: annotators' data move together onto other annotators'
    groups.

    Args:
        patterns: ``(n, h)`` group codes of each annotator's ``h`` slots (h = 1: its group; h > 1: several
            slots of one annotator, moved together); -1 = the slot has no group.
        data: ``(n, h, K)`` additive data of each slot (e.g. ``[value, 1]``, or confusion counts).
        n_groups: number of groups.
        statistic: maps group sums ``(B, n_groups, K)`` to ``(B,)`` or ``(B, S)`` values per arrangement (larger =
            more unequal).
        n_permutations: Monte-Carlo permutations; every distinct arrangement is enumerated instead when there are
            no more of them.
        rng: random generator.

    Returns:
        tuple: ``(observed (S,), null (M, S), exact)``: for ``exact`` the M distinct arrangements (the data's own
        first), else ``n_permutations`` uniform random permutations (the data's own not among them).
    """
    def stat(p: np.ndarray) -> np.ndarray:
        out = np.asarray(statistic(_group_sums(p, data, n_groups)), dtype=np.float64)
        return out.reshape(len(p), -1)

    n = len(patterns)
    observed = stat(patterns[None])[0]
    if n < 2:
        return observed, np.zeros((0, len(observed))), False
    if _n_arrangements(patterns) <= n_permutations:
        return observed, stat(patterns[_arrangements(patterns)]), True
    chunk = max(1, _MAX_CELLS // max(1, n * patterns.shape[1] * data.shape[-1]))
    parts = []
    for b0 in range(0, n_permutations, chunk):  # bounded memory; each chunk is vectorised
        b = min(chunk, n_permutations - b0)
        perm = np.argsort(rng.random((b, n)), axis=1)  # one uniform random permutation per row
        parts.append(stat(patterns[perm]))
    return observed, np.concatenate(parts), False


def tail_p(observed: float | np.ndarray, null: np.ndarray, exact: bool) -> np.ndarray:
    """Permutation p-values: the share of arrangements at least as extreme, ``count / M`` when every distinct one
    was enumerated, else ``(1 + count) / (1 + B)``; values equal up to rounding count as at least as extreme (sums
    in another order differ in the last bits). NaN where the observed value is not finite. The package's one tail
    (:func:`aif360_subjective._maxt.tail_p`: its tie and "+1" rules)."""
    obs = np.atleast_1d(np.asarray(observed, dtype=np.float64))
    return np.where(np.isfinite(obs), maxt_tail_p(obs, null, exact), np.nan)


def smallest_p(null: np.ndarray, exact: bool) -> float:
    """The smallest p-value the test can give: that of data as extreme as the most extreme arrangement (1 when every
    arrangement gives the same statistic, NaN when none is defined).

    Enumerated: the share of arrangements tied at the maximum (e.g. 2/20 for two groups of 3). Monte Carlo: the
    data count once and the permutations tied with it at the sampled maximum once each beyond the first
    (``count / (1 + B)``: ``1 / (1 + B)`` for a continuous statistic, about 1 when the permutations cannot change
    it)."""
    finite = null[np.isfinite(null)]
    if not len(finite):
        return float("nan")
    if exact:
        return float(tail_p(finite.max(), null, exact)[0])
    return float(count_at_least(finite, finite.max()) / (1 + len(null)))


def critical_value(null: np.ndarray, exact: bool, alpha: float) -> float:
    """The threshold ``c`` with ``p <= alpha`` exactly when the observed value exceeds ``c`` (with :func:`tail_p`'s
    tolerance): the max-T tail's critical value past its ties (:func:`aif360_subjective._maxt.critical_value`);
    +inf when no value can reach ``alpha``, -inf when every one does."""
    c = maxt_critical_value(null, alpha, exact)
    return float(c + tie_tolerance(c)) if np.isfinite(c) else c


def permutation_test(patterns: np.ndarray, *args: Any, **kwargs: Any) -> tuple[float, float, int, bool]:
    """Permutation test of exchangeable annotators: :func:`permutation_distribution` (same arguments) with one
    statistic.

    Returns:
        tuple: ``(observed statistic, p-value, arrangements used, exact)``.
    """
    observed, null, exact = permutation_distribution(patterns, *args, **kwargs)
    obs = float(observed[0])
    if len(patterns) < 2 or not np.isfinite(obs):
        return obs, np.nan, 0, False
    return obs, float(tail_p(obs, null[:, 0], exact)[0]), len(null), exact


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
#: The null hypothesis of the permutation test, in words (the verdict and the docs quote it).
NULL_EXCHANGEABLE = ("annotators are exchangeable across the groups (the group labels could be shuffled among them "
                     "without changing the distribution of their values)")
NULL_STUDENTIZED = ("every group's annotators have the same expected value; their values may be noisier for "
                    "annotators with fewer annotations (studentized permutation test: exact when annotators are "
                    "exchangeable, approximately valid when only their counts differ; the p-value is the larger "
                    "of the permutation's and Welch's corrected F's)")

#: Measures that are a mean over one score per annotation: their noise within a unit is known from its annotations.
_PER_ANNOTATION = ("accuracy", "mae", "within_one")


@dataclass(frozen=True)
class ExclusionTest:
    """The test of equal service of one analysis (``result.exclusion_test``).

    Null hypothesis (``null_hypothesis``): with the studentized statistic (the default), every group's annotators
    have the same expected value, annotators with fewer annotations being allowed to be noisier; with "between"
    or "std", annotators are exchangeable across the groups. Neither says "every group is served equally" beyond
    that: see the guide.

    Attributes:
        statistic: the observed statistic (``statistic_name``; for the cross-fitted ADR test, that of the half
            with the smaller p-value).
        p_value: the permutation p-value of the test across all groups (the omnibus test: it asks whether the
            groups differ, not which one; for the cross-fitted ADR test, twice the smaller of its two halves'
            p-values, at most 1). NaN when the design cannot answer (:attr:`cannot_decide`): the value the
            permutations gave is then :attr:`undecided_p_value`, which is not a p-value of equal service.
        method: how it was computed, in words.
        n_permutations: permutations used (per half for the cross-fitted test); all distinct ones when
            ``exact``.
        exact: every distinct permutation was enumerated (no Monte-Carlo error).
        statistic_name: "studentized", "between" (size-weighted between-group sum of squares) or "std".
        n_groups: groups with at least one unit in the test.
        n_units: units permuted (annotators, or (group, annotator) units for item/annotation groupings).
        n_undefined_units: units left out because their performance is undefined (counted, not dropped
            silently).
        thin_groups: labels of the groups with fewer annotators than ``thin_threshold``.
        thin_threshold: the threshold (the analysis' ``warn_group_size``).
        notes: caveats (e.g. groups found from the same annotations, annotation counts that differ).
        null_hypothesis: the null hypothesis in words.
        smallest_p: the smallest p-value this test could give on these groups (e.g. 0.1 for 3 + 3 annotators):
            when it exceeds the level, the test cannot decide.
        cannot_decide: why the design cannot answer whatever the level ("" when it can): every group holds one
            annotator, the groups share almost no items, one annotation per item for ADR bins.
        adjust: "none", or "items" (each annotation compared with the other annotations of the same item).
        group_tests: each group against the rest (studentized statistic, annotator groupings; None otherwise):
            index ``group``; ``n_annotators``, ``value`` (the group's mean in the test: the performance, or with
            ``adjust="items"`` the mean difference from the item's other annotations), ``rest``, ``gap`` (served
            worse when positive: the rest minus the group, or the group minus the rest for lower-is-better
            measures), ``se``, ``t``, ``df`` (Satterthwaite's degrees of freedom of ``se``), ``p_adjusted`` (max-T
            over the groups of each ``|t|``'s normal equivalent: family-wise over them) and ``binomial_coef``
            (``sum_i 1/n_i / k_g^2`` for a 0/1 score, for the detectable gap; NaN otherwise).
        design_notes: caveats of the design (:func:`~aif360_subjective.opinion.design.design_checks`).
        undecided_p_value: when the design cannot answer, what the permutations gave (NaN otherwise). With
            groups on separate batches of items it rejects far more often than the level under equal service
            (item difficulty and group are confounded), so the object carries it apart from :attr:`p_value`.
    """

    statistic: float
    p_value: float
    method: str
    n_permutations: int
    exact: bool = False
    statistic_name: str = "studentized"
    n_groups: int = 0
    n_units: int = 0
    n_undefined_units: int = 0
    thin_groups: tuple[Any, ...] = ()
    thin_threshold: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    null_hypothesis: str = NULL_EXCHANGEABLE
    smallest_p: float = float("nan")
    cannot_decide: str = ""
    adjust: str = "none"
    group_tests: pd.DataFrame | None = field(default=None, compare=False, repr=False)
    design_notes: tuple[str, ...] = field(default=(), compare=False)
    max_t_null: np.ndarray | None = field(default=None, compare=False, repr=False)
    undecided_p_value: float = float("nan")

    def __post_init__(self) -> None:
        # The object agrees with the verdict: a design that cannot answer has no p-value (the sentence says "cannot
        # decide"; a caller reading p_value must not get a number that reads as an answer).
        if self.cannot_decide and np.isfinite(self.p_value):
            object.__setattr__(self, "undecided_p_value", float(self.p_value))
            object.__setattr__(self, "p_value", float("nan"))

    @property
    def decidable(self) -> bool:
        """Whether the design can answer whatever the level (:attr:`cannot_decide` is empty)."""
        return not self.cannot_decide

    @property
    def n_thin_groups(self) -> int:
        """Number of thin groups."""
        return len(self.thin_groups)

    def text(self) -> str:
        """``p = 0.41 (permutation of annotators across groups, 9,999 permutations)``; ``all 6 permutations`` when
        every distinct one was enumerated."""
        count = f"{'all ' if self.exact else ''}{self.n_permutations:,} permutations"
        if self.cannot_decide:
            return f"no p-value: the design cannot answer ({self.cannot_decide}; {self.method}, {count})"
        return f"{p_value_text(self.p_value)} ({self.method}, {count})"

    def undecidable(self, alpha: float = 0.05) -> str:
        """Why the test cannot decide at level ``alpha`` ("" when it can): :attr:`cannot_decide`, or a smallest
        attainable p-value above ``alpha``."""
        if self.cannot_decide:
            return self.cannot_decide
        if np.isfinite(self.smallest_p) and self.smallest_p > alpha:
            what = (f"all {self.n_permutations:,} arrangements" if self.exact
                    else f"{self.n_permutations:,} permutations")
            return (f"with {self.n_units} units in {self.n_groups} groups the smallest p-value it can give is "
                    f"{self.smallest_p:.2g} ({what}), above the level {alpha:g}")
        if not np.isfinite(self.p_value):
            return "the test's statistic is undefined on these groups"
        return ""

    def _critical(self, alpha: float) -> float:
        if self.max_t_null is None:
            return float("nan")
        return critical_value(self.max_t_null, self.exact, alpha)

    def _critical_t(self, alpha: float) -> pd.Series:
        """Each group's critical ``|t|``: the max-T critical value (a normal value) on the group's degrees of
        freedom (NaN when no value reaches ``alpha``)."""
        assert self.group_tests is not None
        c = self._critical(alpha)
        if not np.isfinite(c):
            return pd.Series(np.nan, index=self.group_tests.index)
        n = len(self.group_tests)
        df = self.group_tests["df"].to_numpy(np.float64) if "df" in self.group_tests else np.full(n, np.inf)
        return pd.Series(t_from_normal(max(c, 0.0), df), index=self.group_tests.index)

    def groups(self, alpha: float = 0.05) -> pd.DataFrame | None:
        """:attr:`group_tests` with ``ci_low``/``ci_high``: the gap's simultaneous ``1 - alpha`` interval over the
        groups (from the max-T critical value, on each group's degrees of freedom ``c_g``: ``gap -/+ c_g se``), and
        ``significant`` (``p_adjusted <= alpha``, which holds exactly when the interval excludes 0). None without
        group tests."""
        if self.group_tests is None:
            return None
        out = self.group_tests.copy()
        half = self._critical_t(alpha) * out["se"]
        out["ci_low"], out["ci_high"] = out["gap"] - half, out["gap"] + half
        out["significant"] = out["p_adjusted"] <= alpha
        return out

    def detectable_gap(self, alpha: float = 0.05, power: float = 0.8) -> pd.Series | None:
        """The gap each group would need, against the rest, to be found (named by the max-T test at ``alpha``)
        with probability ``power``.

        ``d = (c_g + t_power) se_g``, with ``c_g`` the group's critical ``|t|`` (:meth:`groups`) and ``t_power`` the
        ``power`` quantile of Student's t on the group's degrees of freedom. For a 0/1 score (accuracy,
        "within_one", without the item adjustment) a group served ``d`` worse is also noisier or less noisy: its
        mean's variance moves by ``h_g (d (2 p - 1) - d^2)`` (``h_g = sum_i 1/n_i / k_g^2``, ``p`` the rest's
        value), giving the standard error ``s(d)``. Then ``d`` is the larger of the roots of ``d = (c_g + t_power)
        s(d)`` (the benchmark's calibration: 79 % found where it planted this gap) and of ``d = c_g se_g + t_power
        s(d)`` (the test divides by its own ``se_g``: this one says when a group of one or two annotators could not
        show any gap), both quadratics in ``d``. Checked by simulation in ``benchmarks/equal_service_designs.py``.

        Returns:
            pandas.Series or None: None without group tests or when no gap could reach ``alpha``.
        """
        if self.group_tests is None or not 0.5 <= power < 1:
            return None
        c_t = self._critical_t(alpha).to_numpy(np.float64)
        if not np.isfinite(c_t).any():
            return None
        g = self.group_tests
        df = g["df"].to_numpy(np.float64) if "df" in g else np.full(len(g), np.inf)
        t_pow = special.stdtrit(np.minimum(df, 1e12), power)
        se = g["se"].to_numpy(np.float64)
        h = g["binomial_coef"].to_numpy(np.float64) if "binomial_coef" in g else np.zeros(len(g))
        h = np.where(np.isfinite(h), h, 0.0)
        tilt = 2.0 * np.clip(g["rest"].to_numpy(np.float64), 0.0, 1.0) - 1.0
        q2 = (c_t + t_pow) ** 2
        d_alt = larger_root(1.0 + q2 * h, q2 * h * tilt / 2.0, -q2 * se**2)
        d_own = larger_root(1.0 + t_pow**2 * h, c_t * se + t_pow**2 * h * tilt / 2.0, (c_t**2 - t_pow**2) * se**2)
        return pd.Series(np.fmax(d_alt, d_own), index=g.index, name="detectable_gap")


def _statistic_for(result: OpinionExclusionResult, name: str) -> tuple[Callable[[np.ndarray], np.ndarray], bool]:
    """(statistic on group sums, pooled?) for "between" and "std"."""
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


def _per_annotation_measure(result: OpinionExclusionResult) -> str | None:
    """The one measure when it is a mean of one score per annotation ("accuracy", "mae", "within_one"), else None."""
    opts = result.options
    assert opts is not None
    names = [s for s in opts.performance if isinstance(s, str)]
    if len(opts.performance) == 1 and len(names) == 1 and names[0] in _PER_ANNOTATION:
        return names[0]
    return None


def _row_scores(measure: str, enc: EncodedAnnotations) -> np.ndarray:
    """One score per annotation whose mean over a unit is its value: correct (1/0), |error|, or error <= 1."""
    if measure == "accuracy":
        return np.asarray(enc.t == enc.p, dtype=np.float64)
    assert enc.r_true is not None and enc.r_pred is not None  # the options check made sure
    err = np.abs(np.asarray(enc.r_true, dtype=np.float64) - np.asarray(enc.r_pred, dtype=np.float64))
    return err if measure == "mae" else np.asarray(err <= 1.0, dtype=np.float64)


def _moments_by_code(scores: np.ndarray, codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per code: annotations, mean score (NaN without any) and the sum of squared deviations from that mean."""
    n = np.bincount(codes, minlength=n_codes).astype(np.float64)
    s = np.bincount(codes, weights=scores, minlength=n_codes)
    s2 = np.bincount(codes, weights=scores**2, minlength=n_codes)
    return (n, *_moments_from_sums(n, s, s2))


def _moments_from_sums(n: np.ndarray, s: np.ndarray, s2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean (NaN without annotations) and sum of squared deviations from it, from the count, sum and sum of
    squares of the scores."""
    mean = ratio(s, n)
    wss = np.where(n > 0, np.maximum(s2 - n * np.where(n > 0, mean, 0.0) ** 2, 0.0), 0.0)
    return mean, wss


def item_residuals(scores: np.ndarray, item_codes: np.ndarray, n_items: int) -> np.ndarray:
    """Each annotation's score minus the mean score of the other annotations of its item (NaN on an item with a
    single annotation): the item adjustment of the test, which takes item difficulty out of a group's value.

    Args:
        scores: one score per annotation (:func:`_row_scores`).
        item_codes: item code of every annotation.
        n_items: number of items.

    Returns:
        numpy.ndarray: one residual per annotation.
    """
    n = np.bincount(item_codes, minlength=n_items).astype(np.float64)
    total = np.bincount(item_codes, weights=scores, minlength=n_items)
    others = n[item_codes] - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = (total[item_codes] - scores) / others
    return np.where(others > 0, scores - loo, np.nan)


def _within_from_counts(result: OpinionExclusionResult, measure: str | None) -> float | None:
    """The pooled variance of one annotation's score within a unit, from the units' counts (None when the measure
    is not a mean of per-annotation scores, or without counts)."""
    if measure is None or result.unit_counts is None:
        return None
    counts = np.asarray(result.unit_counts, dtype=np.float64)
    if measure == "accuracy":
        n = counts.sum(axis=1)
        x = ratio(counts[:, TN] + counts[:, TP], n, fill=0.0)
        wss = n * x * (1.0 - x)
    else:
        if result.unit_cells is None:
            return None
        cells = np.asarray(result.unit_cells, dtype=np.float64)
        score = cells if measure == "mae" else (cells <= 1.0).astype(np.float64)
        n = counts.sum(axis=1)
        mean = ratio(counts @ score, n, fill=0.0)
        wss = np.maximum(counts @ score**2 - n * mean**2, 0.0)
    df = float(np.maximum(n - 1.0, 0.0).sum())
    return float(wss.sum() / df) if df > 0 else None


def _pooled_within(n: np.ndarray, wss: np.ndarray) -> float | None:
    df = float(np.maximum(n - 1.0, 0.0).sum())
    return float(wss.sum() / df) if df > 0 else None


def _studentized_stat(within: float | None) -> Callable[[np.ndarray], np.ndarray]:
    def stat(sums: np.ndarray) -> np.ndarray:
        return omnibus_and_max_t(sums, within)

    return stat


def _group_tests(sums: np.ndarray, within: float | None, labels: pd.Index, higher: bool, max_null: np.ndarray,
                 exact: bool, binomial: bool = False) -> pd.DataFrame:
    """Each group against the rest on the data's own arrangement (:func:`studentized.contrasts`)."""
    mom = group_moments(sums[None], within=within)
    rest, se, t = (a[0] for a in contrasts(mom))
    df = contrast_df(mom)[0]
    mean = mom.mean[0]
    gap = (rest - mean) if higher else (mean - rest)
    signed_t = t if higher else -t
    p = tail_p(normal_equivalent(t, df), max_null, exact)
    return pd.DataFrame({"n_annotators": mom.k[0].astype(np.int64), "value": mean, "rest": rest, "gap": gap,
                         "se": se, "t": signed_t, "df": df, "p_adjusted": p}, index=labels).assign(
        # the coefficient of one annotation's variance in the group mean's variance, for the detectable gap of a
        # 0/1 score (its variance p (1 - p) changes with the gap)
        binomial_coef=ratio(sums[:, 2], sums[:, 1] ** 2) if binomial else np.nan)


def _cannot_decide(n_units: int, n_groups_used: int, k_max: int, design: DesignChecks | None) -> str:
    if n_groups_used >= 2 and k_max < 2:
        return ("every group holds one annotator: permuting annotators across such groups cannot tell a group from "
                "its one member")
    return design.blocking if design is not None else ""


def exclusion_test(
    result: OpinionExclusionResult,
    enc: EncodedAnnotations | None = None,
    *,
    n_permutations: int = 9999,
    statistic: str = "studentized",
    adjust: str = "none",
    random_state: Any = None,
    halves: HalfCounts | None = None,
) -> ExclusionTest:
    """The test of equal service of an analysis: are some groups served worse than chance would make them?

    Annotator groupings (a Series, "demographic", "discovered"): annotators are permuted across the groups (each
    group keeps its size). Item and annotation groupings ("ambiguity", "popularity"): the (group, annotator) units
    are permuted as if exchangeable (an annotator's units in several groups are treated as independent; read the
    p-value as approximate). ADR bins: always the cross-fitted test (:func:`cross_fitted_test`), whatever
    ``adr_fit`` the headline used, because bins fitted on the scored annotations differ even between identical
    annotators.

    The default statistic is studentized (:mod:`~aif360_subjective.opinion.studentized`): it stays valid when the
    groups' annotators hold different numbers of annotations, and it also tests every group against the rest with
    a max-T adjustment (``group_tests``), which is what lets the verdict name a group. Pooled groups
    (``aggregate="pooled"``) use the size-weighted statistic ("between"), with a note: a pooled value of a
    count-based measure is not a mean over annotators, so the studentized variance does not apply; weighing each
    annotator by its annotations, it held its level with light and heavy annotators (0.3 % and 5.2 % at 5 %,
    ``benchmarks/equal_service_designs.py``, rows "pooled groups").

    Args:
        result: an analysis (from either face).
        enc: the encoded annotations (needed for ADR bins, the item adjustment and the design checks).
        n_permutations: Monte-Carlo permutations (>= 99); exact enumeration when there are no more distinct ones.
        statistic: "studentized" (default), "between" (size-weighted between-group sum of squares, the former
            default) or "std" (the unfairness).
        adjust: "none" or "items": compare each annotation with the mean of the other annotations of the same
            item (items with one annotation are left out and counted), so that a group that saw harder items is
            not called served worse (accuracy, "mae" or "within_one", annotator aggregate; needs ``enc``).
        random_state: None, an int seed or a numpy Generator.
        halves: for ADR bins without the rows, the per (annotator, half) counts of cross-fitting (the Dask back
            end's :func:`~aif360_subjective.opinion._dask.half_counts`); the test is then the same as from ``enc``.

    Returns:
        ExclusionTest

    Raises:
        ValueError: ADR bins or ``adjust="items"`` without the annotation rows (``enc``), a pooled aggregate with a
            callable measure, ``adjust="items"`` with a measure that is not a mean over annotations or with pooled
            groups, a result without options, or bad options.
        TypeError: a bad ``n_permutations`` or ``random_state`` type.

    References:
        Chung, E., Romano, J. P. (2013). Exact and asymptotically robust permutation tests. Ann. Statist. 41(2).
        Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley.
    """
    test = check_test_options(n_permutations, statistic)
    adjust = check_choice(adjust, "adjust", ADJUSTMENTS)
    rng = check_random_state(random_state)
    opts = result.options
    if opts is None:
        raise ValueError("result carries no options: build it with opinion_exclusion() or the metric class")
    measure = _per_annotation_measure(result)
    if adjust == "items":
        if enc is None or result.row_units is None:
            raise ValueError("adjust='items' compares each annotation with the other annotations of its item and "
                             "needs the annotation rows (enc=); the Dask back end has only counts: compute on pandas")
        if measure is None:
            raise ValueError(f"adjust='items' needs a measure that is a mean over annotations ('accuracy', 'mae' or "
                             f"'within_one'), got performance={opts.performance_name!r}")
        if opts.aggregate != "annotator":
            raise ValueError(f"adjust='items' compares annotators' mean differences: it needs "
                             f"aggregate='annotator', got aggregate={opts.aggregate!r}")
    if opts.grouping == "adr":
        if halves is not None:
            return cross_fitted_test(result, enc, test, rng, adjust=adjust, halves=halves)
        if enc is None:
            raise ValueError(
                "the test of equal service for ADR groups cross-fits ADR on one half of each annotator's items "
                "and needs the annotation rows (enc=) or their per (annotator, half) counts (halves=, which "
                "opinion_exclusion computes on Dask)"
            )
        return cross_fitted_test(result, enc, test, rng, adjust=adjust)
    thin, size = _thin(result)
    units = result.unit_performance
    table = result.group_table
    n_groups = len(table)
    group = units["group"].cat.codes.to_numpy(np.int64) if n_groups else np.zeros(0, np.int64)
    unit_n = units["n_annotations"].to_numpy(np.float64)
    design = design_checks(result, enc, adjust) if enc is not None and result.row_units is not None else None
    notes: list[str] = []
    name = test.statistic
    pooled = opts.aggregate == "pooled"
    if name == "studentized" and pooled:
        name = "between"
        notes.append("pooled groups are tested with the size-weighted statistic ('between'), which assumes "
                     "exchangeable annotators")
    unit_word = "annotators" if result.grouping_summary.unit == "annotator" else "(group, annotator) units"
    group_tests = max_null = None
    if name == "studentized":
        if adjust == "items":
            assert enc is not None and result.row_units is not None and measure is not None
            resid = item_residuals(_row_scores(measure, enc), enc.item_codes, len(enc.items))
            ok = (result.row_units >= 0) & np.isfinite(resid)
            n_u, values, wss = _moments_by_code(resid[ok], result.row_units[ok], len(units))
            dropped = int(((result.row_units >= 0) & ~np.isfinite(resid)).sum())
            if dropped:
                notes.append(f"{dropped:,} annotations on items with no other annotation cannot be compared with "
                             "one and are left out of the item-adjusted test")
            within = _pooled_within(n_u, wss)
            unit_n = n_u
        else:
            values = units["performance"].to_numpy(np.float64)
            within = _within_from_counts(result, measure)
        keep = np.isfinite(values) & (unit_n > 0)
        data = unit_columns(values[keep], unit_n[keep])[:, None, :]
        observed, null, exact = permutation_distribution(
            group[keep][:, None], data, n_groups, _studentized_stat(within), n_permutations=test.n_permutations,
            rng=rng)
        obs = float(observed[0])
        p = float(tail_p(obs, null[:, 0], exact)[0]) if len(null) else float("nan")
        # valid if either is: the permutation (exact for exchangeable annotators) or Welch's corrected F (which
        # allows for the noise of the fitted variances, which permuting the annotators does not reproduce)
        p = float(np.fmax(p, omnibus_tail(obs, int(np.count_nonzero(np.bincount(group[keep], minlength=n_groups))))))
        used = len(null)
        max_null = null[:, 1]
        sums = _group_sums(group[keep][None, :, None], data, n_groups)[0]
        group_tests = _group_tests(sums, within, table.index, opts.higher_is_better, max_null, exact,
                                   binomial=measure in ("accuracy", "within_one") and adjust == "none")
        method = f"studentized permutation of {unit_word} across groups" + (
            ", each annotation compared with the other annotations of its item" if adjust == "items" else "")
        if within is None:
            notes.append("the noise of a unit's value was fitted from the units' spread against their annotation "
                         f"counts ({opts.performance_name} is not a mean over annotations)")
        null_text = NULL_STUDENTIZED
        smallest = smallest_p(null[:, 0], exact)
    else:
        stat, pooled_stat = _statistic_for(result, name)
        if pooled_stat:
            if result.unit_counts is None:
                raise ValueError("the pooled test redraws the units' counts, which this result does not carry "
                                 "(a callable performance measure: use aggregate='annotator')")
            cells, _ = count_score(result)
            data = np.asarray(cells(result.unit_counts), dtype=np.float64)[:, None, :]
            keep = np.ones(len(group), dtype=bool)
        else:
            data, keep = _unit_data(units["performance"].to_numpy(np.float64))
            data = data[:, None, :]
        observed, null, exact = permutation_distribution(
            group[keep][:, None], data[keep], n_groups, stat, n_permutations=test.n_permutations, rng=rng)
        obs = float(observed[0])
        finite = len(null) and np.isfinite(obs)
        p = float(tail_p(obs, null[:, 0], exact)[0]) if finite else float("nan")
        used = len(null) if finite else 0
        exact = bool(exact and finite)
        method = f"permutation of {unit_word} across groups"
        null_text = NULL_EXCHANGEABLE
        smallest = smallest_p(null[:, 0], exact) if finite else float("nan")
    count_text = count_note(table.index, group[keep], unit_n[keep])
    if count_text and name == "studentized":  # the null is then not "exchangeable annotators": say which it is
        count_text = (count_text.split(":")[0] + ": the test's null is that every group's annotators have the "
                      "same expected value, a light annotator's value being noisier (not that annotators are "
                      "exchangeable); the studentized statistic allows for it")
    if count_text:
        notes.append(count_text)
    if opts.grouping == "discovered":
        notes.append("the groups were found by clustering the annotators' own labels (ADR, positive share), the "
                     "labels their performance is scored on: like ADR bins fitted on the same annotations, this "
                     "can make identical annotators look unequal; read a small p-value with care")
    if result.grouping_summary.unit != "annotator":
        notes.append(f"{unit_word} are permuted as if exchangeable; an annotator with units in several groups "
                     "makes the p-value approximate")
    sizes = np.bincount(group[keep], minlength=n_groups)
    n_used = int(np.count_nonzero(sizes))
    # what changes how the p-value reads is said aloud (the command line prints warnings as notes)
    for text in ([count_text] if count_text else []) + [
            n for n in (design.notes if design is not None else ()) if n.startswith("the groups labelled partly")]:
        warnings.warn(text, UserWarning, stacklevel=2)
    return ExclusionTest(
        statistic=obs, p_value=p, method=method, n_permutations=used, exact=bool(exact), statistic_name=name,
        n_groups=n_used, n_units=int(keep.sum()), n_undefined_units=int((~keep).sum()),
        thin_groups=thin, thin_threshold=size, notes=tuple(notes), null_hypothesis=null_text, smallest_p=smallest,
        cannot_decide=_cannot_decide(int(keep.sum()), n_used, int(sizes.max()) if len(sizes) else 0, design),
        adjust=adjust, group_tests=group_tests,
        design_notes=design.notes if design is not None else (), max_t_null=max_null,
    )


def _half_values(result: OpinionExclusionResult, enc: EncodedAnnotations, row_half: np.ndarray, pooled: bool,
                 statistic: str, adjust: str = "none",
                 ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray] | None]:
    """Per (annotator, half): ``[value, 1]`` (annotator aggregate; for the studentized statistic the columns of
    :func:`studentized.unit_columns`) or the cells the pooled score reads, shape ``(n_annotators, 2, K)``; and the
    statistic on those cells (None: the result's)."""
    opts = result.options
    assert opts is not None
    k = len(enc.annotators)
    codes = 2 * enc.annotator_codes + row_half
    if statistic == "studentized" and not pooled:
        measure = _per_annotation_measure(result)
        if measure is not None:
            scores = _row_scores(measure, enc)
            ok = np.ones(enc.n, dtype=bool)
            if adjust == "items":
                scores = item_residuals(scores, enc.item_codes, len(enc.items))
                ok = np.isfinite(scores)
            n, values, wss = _moments_by_code(np.where(ok, scores, 0.0)[ok], codes[ok], 2 * k)
            within = _pooled_within(n, wss)
        else:
            values = _unit_performance(opts.performance, codes, 2 * k, enc, nan_policy=opts.nan_policy)
            n, within = np.bincount(codes, minlength=2 * k).astype(np.float64), None
        defined = np.isfinite(values) & (n > 0)
        cols = np.where(defined[:, None], unit_columns(np.where(defined, values, 0.0), np.maximum(n, 1.0)), 0.0)
        return cols.reshape(k, 2, -1), _studentized_stat(within)
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


def _half_moments(result: OpinionExclusionResult, halves: HalfCounts) -> tuple[np.ndarray, np.ndarray, float | None]:
    """Per (annotator, half), from its counts: annotations, value, and the pooled within-unit variance of the
    per-annotation score (None unless the measure is a mean over annotations): what :func:`_moments_by_code`
    gives from the rows. The score's sum and sum of squares come from the counts: correct annotations (0/1, so
    the squares are the same), or the histogram of absolute errors weighted by the error (squared)."""
    opts = result.options
    assert opts is not None
    k = halves.counts.shape[0]
    counts = np.asarray(halves.counts, np.float64).reshape(2 * k, 4)
    measure = _per_annotation_measure(result)
    if measure is None:
        values = performance_from_counts(opts.performance, counts, opts.nan_policy)
        return counts.sum(axis=1), values, None
    if measure == "accuracy":
        n, s = counts.sum(axis=1), counts[:, TN] + counts[:, TP]
        s2 = s
    else:
        if halves.errors is None or halves.cells is None:
            raise ValueError(f"the test of {measure} needs the histograms of absolute errors")
        hist = np.asarray(halves.errors, np.float64).reshape(2 * k, -1)
        cells = np.asarray(halves.cells, np.float64)
        n = hist.sum(axis=1)
        if measure == "mae":
            s, s2 = hist @ cells, hist @ cells**2
        else:
            s = hist[:, cells <= 1.0].sum(axis=1)
            s2 = s
    values, wss = _moments_from_sums(n, s, s2)
    return n, values, _pooled_within(n, wss)


def _half_values_from_counts(result: OpinionExclusionResult, halves: HalfCounts, pooled: bool, statistic: str,
                             ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray] | None]:
    """:func:`_half_values` from per (annotator, half) counts instead of rows: the same values (the measures from
    confusion counts or histograms of errors are the row measures, :func:`performance_from_counts`)."""
    opts = result.options
    assert opts is not None
    k = halves.counts.shape[0]
    if statistic == "studentized" and not pooled:
        n, values, within = _half_moments(result, halves)
        defined = np.isfinite(values) & (n > 0)
        cols = np.where(defined[:, None], unit_columns(np.where(defined, values, 0.0), np.maximum(n, 1.0)), 0.0)
        return cols.reshape(k, 2, -1), _studentized_stat(within)
    if histograms_suffice(opts.performance):
        if halves.errors is None or halves.cells is None:
            raise ValueError(f"the test of {opts.performance_name} needs the histograms of absolute errors")
        hist = np.asarray(halves.errors, np.float64).reshape(2 * k, -1)
        errors = np.asarray(halves.cells, np.float64)

        def score(c: np.ndarray) -> np.ndarray:
            return performance_from_histograms(opts.performance, c, errors, opts.nan_policy)

        if not pooled:
            return _unit_data(score(hist))[0].reshape(k, 2, 2), None
        return hist.reshape(k, 2, -1), _pooled_statistic(score, statistic == "between")
    if not counts_suffice(opts.performance):
        raise ValueError("the test of a callable performance measure needs the annotation rows: compute on pandas")
    counts = np.asarray(halves.counts, np.float64).reshape(2 * k, 4)
    if not pooled:
        values = performance_from_counts(opts.performance, counts, opts.nan_policy)
        return _unit_data(values)[0].reshape(k, 2, 2), None
    cells_of, _ = count_score(result)
    return np.asarray(cells_of(counts), np.float64).reshape(k, 2, -1), None


def cross_fitted_test(
    result: OpinionExclusionResult, enc: EncodedAnnotations | None, test: ExclusionTestOptions,
    rng: np.random.Generator, adjust: str = "none", *, halves: HalfCounts | None = None,
) -> ExclusionTest:
    """The test of equal service for ADR bins, cross-fitted.

    Each annotator's items are split in two halves
    (:func:`~aif360_subjective.opinion.annotations.item_halves`). Half 1: annotators are binned by their ADR on
    the first half (the analysis' ``bins`` rule over the ADRs of that half, then its ``min_group_size`` rule) and
    scored on the second; the test permutes annotators across these bins. Half 2 swaps the halves. Within one half
    the bins and the scores come from disjoint items, so under exchangeable annotators the permutation test is
    exact; the two halves' p-values are combined as ``min(1, 2 min(p1, p2))`` (Bonferroni), which holds the level
    whatever their dependence. (Permuting both halves together is not valid: an annotator's bin on one half is
    correlated with its score on the same half, which the other direction uses.) The bins are refitted on each
    half, so the test compares groups of annotators, not the headline's bins one by one: it names no single bin.

    Args:
        result: an ADR analysis (``adr_fit`` "same" or "cross").
        enc: its encoded annotations.
        test: validated test options.
        rng: random generator.
        adjust: "none" or "items" (see :func:`exclusion_test`; "items" needs ``enc``).
        halves: the per (annotator, half) counts instead of ``enc`` (the Dask back end).

    Returns:
        ExclusionTest
    """
    opts = result.options
    assert opts is not None
    pooled = opts.aggregate == "pooled"
    name = "between" if (pooled and test.statistic == "studentized") else test.statistic
    if halves is not None:
        fit = halves.fit
        data, own_stat = _half_values_from_counts(result, halves, pooled, name)
    else:
        assert enc is not None
        fit = cross_fit(enc, opts.tie, opts.adr_reference)
        data, own_stat = _half_values(result, enc, fit.row_half, pooled, name, adjust)
    stat = own_stat if own_stat is not None else _statistic_for(result, name)[0]
    outcomes = []
    n_units = n_undefined = 0
    smallest = []
    for half in (0, 1):  # bins from this half, scores from the other
        adr = fit.adr[:, half]
        codes, labels, _notes = assign_bins(adr, opts.bins)
        # the analysis' size rule on this half's bins too (merge or drop bins below min_group_size)
        sizes = np.bincount(codes[codes >= 0], minlength=len(labels))
        codes, labels, _size_notes = enforce_min_group_size(codes, labels, sizes, opts.min_group_size,
                                                            opts.small_groups, True)
        scored = data[:, 1 - half, :]
        defined = scored[:, 1] > 0 if (not pooled) else scored.sum(axis=-1) > 0
        keep = (codes >= 0) & defined
        n_units = max(n_units, int(keep.sum()))
        n_undefined = max(n_undefined, int(((codes >= 0) & ~defined).sum()))
        observed, null, exact = permutation_distribution(codes[keep][:, None], scored[keep][:, None, :],
                                                         len(labels), stat, n_permutations=test.n_permutations,
                                                         rng=rng)
        obs = float(observed[0])
        ok = len(null) > 0 and np.isfinite(obs)
        p = float(tail_p(obs, null[:, 0], exact)[0]) if ok else float("nan")
        if ok and name == "studentized":  # as in exclusion_test: the permutation's and Welch's p, the larger
            p = float(np.fmax(p, omnibus_tail(obs, int(np.count_nonzero(np.bincount(codes[keep]))))))
        outcomes.append((obs, p, len(null) if ok else 0, bool(exact and ok)))
        smallest.append(min(1.0, 2.0 * smallest_p(null[:, 0], exact)) if ok else float("nan"))
    ps = [o[1] for o in outcomes]
    best = int(np.nanargmin(ps)) if np.isfinite(ps).any() else 0
    p = min(1.0, 2.0 * min(ps)) if all(np.isfinite(ps)) else np.nan
    thin, size = _thin(result)
    design = design_checks(result, enc, adjust) if result.row_units is not None and enc is not None else None
    notes = ["ADR bins are refitted on each half of the items, so the cross-fitted test compares the groups as a "
             "whole: the bins named served worst and best are the raw figures, not tested one by one"]
    if adjust == "items":
        notes.append("each annotation compared with the other annotations of its item")
    return ExclusionTest(
        statistic=outcomes[best][0], p_value=p,
        method=("cross-fitted " + ("studentized " if name == "studentized" else "") + "permutation test (ADR bins "
                "from one half of each annotator's items, performance on the other, both ways, Bonferroni-combined)"),
        n_permutations=min(o[2] for o in outcomes), exact=all(o[3] for o in outcomes),
        statistic_name=name, n_groups=len(result.group_table), n_units=n_units,
        n_undefined_units=n_undefined, thin_groups=thin, thin_threshold=size, notes=tuple(notes),
        null_hypothesis=NULL_STUDENTIZED if name == "studentized" else NULL_EXCHANGEABLE,
        smallest_p=float(np.nanmin(smallest)) if np.isfinite(smallest).any() else float("nan"),
        cannot_decide=design.blocking if design is not None else "", adjust=adjust,
        design_notes=design.notes if design is not None else (),
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


def attach_test(result: OpinionExclusionResult, test: ExclusionTest) -> OpinionExclusionResult:
    """The result with its test of equal service; when the design cannot answer, its unfairness interval too says
    so (NaN bounds, the reason in ``method``), as the test's p-value does.

    With groups on separate batches of items, an interval of the groups' spread covers item difficulty as much as
    the groups: it held the true spread in about two thirds of such designs (issue 41), so it is not reported as an
    interval of the groups' unfairness.

    Args:
        result: an analysis, with or without ``unfairness_ci``.
        test: its :func:`exclusion_test` (or :func:`cross_fitted_test`).

    Returns:
        OpinionExclusionResult
    """
    iv = result.unfairness_ci
    if test.cannot_decide and isinstance(iv, UnfairnessInterval) and np.isfinite(iv.low):
        iv = UnfairnessInterval(np.nan, np.nan, estimate=iv.estimate, debiased=iv.debiased, ci=iv.ci,
                                method=f"no interval: the design cannot answer ({test.cannot_decide})", df=iv.df)
    return replace(result, exclusion_test=test, unfairness_ci=iv)


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
        n_units = units["n_annotations"].to_numpy(np.float64)
        if dfw >= 2 and count_note(table.index, codes[ok], n_units[ok]):
            # annotation counts differ between groups: a pooled within-group variance would give the light
            # groups' values too little noise; each group's mean gets its own variance (the studentized test's)
            sums = _group_sums(codes[ok][None, :, None], unit_columns(v[ok], n_units[ok])[:, None, :], len(table))
            mom = group_moments(sums[0], within=_within_from_counts(result, _per_annotation_measure(result)))
            w, sigma2 = np.maximum(mom.variance[defined], 1e-300), 1.0
            method = "noncentral chi-square (each group's own variance: the annotation counts differ)"
        elif dfw >= 2:
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
