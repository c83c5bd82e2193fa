"""Whose opinions are excluded: discover the annotator groups a model serves worse.

:func:`excluded_groups` searches every conjunction of up to ``max_conditions`` annotator attribute values (numeric
attributes cut into ranges, the ADR cross-fitted; :mod:`.excluded_candidates`) for groups whose annotators the
model serves worse than the other annotators, and holds the family-wise error over all of them.

**The statistic** (:mod:`.excluded_statistic`): the gap between the weighted mean performance of the group's
annotators and the rest's (random-effects weights from the count model of the test of equal service), studentized
by a cluster-robust standard error with annotators as clusters and put on the normal scale through Welch and
Satterthwaite's degrees of freedom. The answer is an :class:`~.excluded_result.ExcludedGroups`.

**Family-wise error: two nulls, the larger p-value.** (1) *Permutations.* The annotators' attribute rows are
permuted as a whole (each annotator's data keeps its annotations, its items and its weight; only who belongs to
which group changes). For each permutation every candidate's ``z`` is computed from one sparse product (candidates x
annotators membership times annotators x permutations sums), and the maximum of ``z - offset`` over all candidates
gives the null distribution of the largest statistic. Under exchangeable annotators this is exact. (2) *A wild
bootstrap of annotators* (Wu 1986; Cameron, Gelbach and Miller 2008): every annotator keeps its group and its
weight, and its scores become ``mean + v_a (y_a - mean)`` with a random sign ``v_a`` and ``mean`` the overall weighted
mean (the null: every group served alike). Each annotator keeps its own spread where it is, so this null holds when
a group's annotators differ among themselves more than the others do, where permuting them mixes them with calmer
ones and is too permissive (``benchmarks/excluded_groups.py --only spread``). The sign draws enter the same sparse
products (every column of the annotator data is linear in ``v_a``). A candidate's adjusted p-value is the larger of
the two single-step max-T p-values (Westfall and Young 1993), the share of draws whose maximum reaches its own
statistic: exact under exchangeable annotators and valid under unequal spreads, and close to either where both hold.
With at most 8 annotators every permutation is enumerated and the p-values are exact; the wild bootstrap, whose
256 sign patterns cannot tell spreads apart, is not run (the summary says so).

The test is one-sided, "served worse": ``T`` is skewed (a group that happens to hold many annotators the model
serves well, each with a small variance, gets a long tail towards "served better"), and that tail must not raise
the bar of the question asked. A group is reported when ``z`` passes both nulls' thresholds ``c + offset``; on the
scale of ``T`` that is the column ``threshold``, ``F_nu^-1(Phi(c + offset))``, which gives the simultaneous lower
bounds ``ci_low = gap - threshold * se``, so a group is reported exactly when ``ci_low > 0``; ``ci_high`` is the
simultaneous upper bound from the other direction's max-T (each bound holds for every candidate at once with
probability 1 - alpha). The offset balances the classes of candidates (those with 1, 2, 3 conditions): it is the
median, over the draws, of the class's largest ``z``, so that the few single attributes do not compete with the
hundreds of pairs and each class reaches the threshold about equally often under the null (Beran's balanced
simultaneous confidence sets). The median is taken over the B draws and the observed arrangement together, so the
offset statistic treats the observed arrangement as one of the B + 1 alike and the Monte Carlo permutation test
stays exact under exchangeability (``benchmarks/excluded_groups.py --only exact``).

**Power, and its limit.** The gap's estimate is about as precise as its standard error says
(``benchmarks/excluded_groups.py``: the spread of a planted group's gap over simulations against its mean ``se``),
and the weights are the inverse variances under the count model, so no other weighting of the annotators does much
better; what a search costs is its threshold: ``T`` must pass the largest of some hundred candidates' statistics
(about 3.6 for two conditions among 91 candidates in the benchmark's heavy-tailed design, against 1.645 for one
group chosen in advance). The guide gives the planted groups' rates, and why a search treating the candidates alike
cannot find a pair served 0.07 worse 9 times in 10 in that design.

**Balance, a trade-off.** ``balance="conditions"`` (the default) is the balanced max-T above; ``balance="none"`` is
the plain single-step max-T: one class, no offsets, every candidate against the same threshold, the 1 - alpha
quantile of the largest ``z`` of all candidates. Neither is better everywhere. Balancing gives the few single
attributes a threshold of their own, below the plain one (they are found more easily) and the many intersections
one above it (they are found less easily); the plain max-T does the opposite, since with some hundred pairs among
the candidates its threshold is about the pairs' own. ``benchmarks/excluded_groups.py --only planted`` prints both
on the same simulated data (the guide quotes the figures).

**Items.** ``adjust="items"`` replaces each annotation's score by its difference from the mean score of the
*other* annotations of the same item: a group whose annotators saw harder items is then not called excluded.
Annotations of items annotated once are dropped (counted).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning
    (performance per annotator, groups of annotators, ADR).
    Schäfer, J., Wiese, L. ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis (discovering the
    subgroups instead of choosing them).
    Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley (max-T).
    Beran, R. (1988). Balanced simultaneous confidence sets. JASA 83(403), 679-686.
    The statistic's references (the studentized permutation test, the cluster-robust sandwich, the wild cluster
    bootstrap, Satterthwaite's degrees of freedom, Kish's effective size, the variance components) are those of
    :mod:`~aif360_subjective.opinion.excluded_statistic`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._deprecation import renamed_keyword
from .._maxt import STEP_DOWN_HEAD, ClassNull, class_tail
from .._param_tables import OPINION_PARAMS
from .._validation import check_random_state, check_same_index, plain
from .annotations import (
    EncodedAnnotations,
    binary_view,
    check_ratings,
    check_unique_pairs,
    cross_fit,
    encode_annotations,
    ids_or_level,
)
from .data_form import collected_columns
from .excluded_candidates import ADR_ATTRIBUTE, AnnotatorGroups, build_candidates, count_small_groups
from .excluded_result import ExcludedGroups
from .excluded_statistic import (
    AnnotatorData,
    Flips,
    Sums,
    annotation_scores,
    annotator_data,
    batch_sizes,
    class_maxima,
    count_model,
    data_totals,
    detectable_gap,
    enumerated_smallest_p,
    from_normal,
    item_adjusted,
    overall_mean,
    statistic,
    wild_parts,
)
from .options import PERFORMANCES

__all__ = ["ADJUSTMENTS", "BALANCES", "DISCOVERY_PERFORMANCES", "DISCOVERY_ROWS", "DiscoveryOptions",
           "check_discovery_options", "discover_excluded", "excluded_groups"]

#: ``adjust=``: raw scores, or each annotation against the other annotations of its item.
ADJUSTMENTS = OPINION_PARAMS.choices("adjust")
#: ``balance=``: the classes of the max-T. "conditions": the candidates of each number of conditions form a class
#: with its own offset (Beran's balance: the few single attributes do not compete with the hundreds of pairs);
#: "none": one class, the plain single-step max-T, every candidate against the same threshold.
BALANCES = OPINION_PARAMS.choices("balance")
#: The measures a discovery can score: each a mean of a per-annotation score over some of the annotations (the
#: rows it counts, the score of a row). Balanced accuracy and F1 are not such means.
DISCOVERY_PERFORMANCES = OPINION_PARAMS.choices("discovery_performance")
_Z_POWER = 0.8416212335729143  # the standard normal quantile of DETECTABLE_POWER (excluded_result)
#: Most annotators whose every permutation is enumerated (8! = 40,320).
EXACT_MAX_ANNOTATORS = 8
#: Candidates x annotations above which the share of shared items is computed for the first candidates only.
_SHARED_BUDGET = 200_000_000
_SHARED_TOP = 200


#: Which annotations each measure counts (for messages).
_COUNTED = {"accuracy": "every annotation", "true_positive_rate": "the annotations labelled positive",
            "false_negative_rate": "the annotations labelled positive",
            "true_negative_rate": "the annotations labelled negative",
            "false_positive_rate": "the annotations labelled negative",
            "precision": "the annotations predicted positive", "mae": "every annotation",
            "within_one": "every annotation"}


# ----------------------------------------------------------------------------------------------
# the max-T of one direction
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Direction:
    """The max-T of one direction: offsets, critical value and adjusted p-values of every candidate."""

    offset: np.ndarray
    critical_value: float = np.inf
    p_adjusted: np.ndarray | None = None

    @classmethod
    def from_null(cls, class_max: np.ndarray, classes: np.ndarray, t: np.ndarray, alpha: float,
                  exact: bool, balanced: bool = True, step_down: ClassNull | None = None) -> _Direction:
        """From the (permutations, classes) largest statistic of each class under the permutations.

        Balanced max-T: each class's statistics are offset by the median of the class's largest statistic under
        the permutations, so that the few single attributes and the many pairs, the small groups and the large
        ones, reach the threshold about equally often; the null distribution is that of the largest offset
        statistic over every candidate. Monte Carlo: ``p = (1 + #{null >= s}) / (B + 1)``, the median taken over the
        B permutations *and the observed arrangement*: the offset statistic is then the same function of the B + 1
        arrangements whichever of them is the observed one, so under exchangeable annotators the observed one's
        rank is uniform and the test exact (a median of the B permutations alone treats the observed arrangement
        differently, which makes the p-values slightly too small); exact: ``#{null >= s} / B`` (the identity is
        among the permutations). ``balanced=False``: every offset 0, the plain max-T (``balance="none"``).
        ``step_down``: the draws' null with each class's first candidates kept: the p-values are Westfall and Young's
        free step-down over the offset statistics (the offsets and the critical value stay the single step's).
        """
        head = min(STEP_DOWN_HEAD, step_down.keep) if step_down is not None else STEP_DOWN_HEAD
        tail = class_tail(class_max, classes, t, alpha, exact, balanced=balanced, step_down=step_down, head=head)
        return cls(offset=tail.offset, critical_value=tail.critical_value, p_adjusted=tail.p_adjusted)


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------
def _check_attributes(annotators: Any, attributes: Any, present: pd.Index) -> tuple[pd.DataFrame, list[str]]:
    if not isinstance(annotators, pd.DataFrame):
        raise TypeError(f"annotators must be a pandas DataFrame indexed by annotator id (one column per attribute), "
                        f"got {type(annotators).__name__}")
    columns = [str(c) for c in annotators.columns]
    if attributes is None:
        attrs = list(annotators.columns)
        if not attrs:
            raise ValueError("annotators has no attribute column: pass a table with one column per attribute, or "
                             f"attributes=[{ADR_ATTRIBUTE!r}] for the cross-fitted ADR alone")
    else:
        attrs = [attributes] if isinstance(attributes, str) else list(attributes)
        if not attrs:
            raise ValueError("attributes must name at least one annotator attribute, got an empty list")
    unknown = [a for a in attrs if a not in annotators.columns and a != ADR_ATTRIBUTE]
    if unknown:
        raise ValueError(f"attributes {[plain(a) for a in unknown]} are not columns of the annotators table "
                         f"(columns: {columns}; {ADR_ATTRIBUTE!r} asks for the cross-fitted ADR)")
    if len(set(attrs)) != len(attrs):
        raise ValueError(f"attributes names an attribute twice: {attrs}")
    if not annotators.index.isin(present).any():
        raise ValueError(f"annotators shares no id with annotator_ids (its index holds e.g. "
                         f"{[plain(v) for v in annotators.index[:3]]}, the annotators are e.g. "
                         f"{[plain(v) for v in present[:3]]}): index it by annotator id, with the same dtype")
    dup = annotators.index.duplicated(keep=False) & annotators.index.isin(present)
    if dup.any():
        ids = pd.unique(annotators.index[dup])
        raise ValueError(f"annotators holds {len(ids)} annotator id(s) on more than one row (e.g. "
                         f"{[plain(v) for v in ids[:3]]}): give each annotator one row, e.g. "
                         "annotators[~annotators.index.duplicated()] to keep the first")
    table = annotators.reindex(present)
    for a in attrs:
        if a == ADR_ATTRIBUTE and a not in annotators.columns:
            continue
        if pd.api.types.is_numeric_dtype(table[a]) and not pd.api.types.is_bool_dtype(table[a]):
            bad = np.isinf(table[a].to_numpy(dtype=np.float64, na_value=np.nan))
            if bad.any():
                raise ValueError(f"annotators: column {a!r} holds {int(bad.sum())} infinite value(s) (e.g. annotator "
                                 f"{plain(table.index[bad][0])}); an attribute must be finite or missing (NaN): "
                                 "replace or drop them")
        n_values = table[a].nunique(dropna=True)
        if n_values < 2:
            shown = [plain(v) for v in pd.unique(table[a].dropna())]
            raise ValueError(f"attributes: {a!r} has {'a single value ' + repr(shown[0]) if n_values else 'no value'} "
                             f"among the {len(present)} annotators of the data, so it cannot split them; leave it out")
    return table, [str(a) if not isinstance(a, str) else a for a in attrs]


def _check_performance(performance: Any) -> str:
    if not isinstance(performance, str):
        raise TypeError(f"performance must be one of {list(DISCOVERY_PERFORMANCES)} (a name: a discovery scores "
                        f"each annotation), got {type(performance).__name__} {performance!r}")
    if performance in PERFORMANCES and performance not in DISCOVERY_PERFORMANCES:
        raise ValueError(f"performance {performance!r} is not a mean of per-annotation scores, which the discovery "
                         f"compares across annotators; use one of {list(DISCOVERY_PERFORMANCES)}")
    OPINION_PARAMS["discovery_performance"].check(performance, name="performance")
    return performance


# ----------------------------------------------------------------------------------------------
# the function
# ----------------------------------------------------------------------------------------------
def excluded_groups(
    y_true: Any, y_pred: Any, *, item_ids: Any = None, annotator_ids: Any = None, annotators: pd.DataFrame,
    attributes: str | list[str] | None = None, max_conditions: int = OPINION_PARAMS.default("max_conditions"),
    adjust: str = OPINION_PARAMS.default("adjust"), alpha: float = OPINION_PARAMS.default("alpha"),
    ranges: int = OPINION_PARAMS.default("ranges"),
    n_permutations: int = OPINION_PARAMS.default("discovery_n_permutations"),
    min_annotators: int = OPINION_PARAMS.default("min_annotators"),
    performance: str = OPINION_PARAMS.default("discovery_performance"),
    balance: str = OPINION_PARAMS.default("balance"), step_down: bool = OPINION_PARAMS.default("step_down"),
    pos_label: Any = 1, positive_from: float | None = None, tie: str = "favorable", random_state: Any = None,
    data: Any = None, **renamed: Any,
) -> ExcludedGroups:
    """Discover the annotator groups whose opinions a model excludes: served worse than the other annotators.

    See the module docstring for the statistic, the permutation max-T and the item adjustment.

    Args:
        y_true: the annotators' labels (ratings for ``"mae"``/``"within_one"``), one per annotation.
        y_pred: the model's prediction for each annotation.
        item_ids, annotator_ids: item and annotator of each annotation (arrays aligned with ``y_true``, or index
            level names of ``y_true``; default levels ``"item"``, ``"annotator"``).
        annotators: annotator attributes, a DataFrame indexed by annotator id.
        attributes: the columns of ``annotators`` to combine (default: all); ``"adr"`` (when no column has that
            name) adds the annotator's ADR, cross-fitted on item halves.
        max_conditions: most conditions per group, 1 to 3.
        adjust: "none" (raw scores) or "items" (each annotation against the other annotations of its item).
        alpha: family-wise error level over every candidate.
        n_permutations: Monte Carlo permutations of annotators (>= 19 and enough to reach ``alpha``), and as many
            wild-bootstrap draws; with at most 8 annotators every permutation is enumerated instead. ``n_perm`` is
            its former name (a DeprecationWarning).
        min_annotators: fewest annotators in a group, and in the rest it is compared with (>= 2); smaller groups are
            counted in the summary.
        performance: one of :data:`DISCOVERY_PERFORMANCES`.
        ranges: quantile ranges a numeric attribute (and the ADR) is cut into (>= 2).
        balance: the classes of the max-T (:data:`BALANCES`). "conditions" (default): each number of conditions gets its
            own threshold (the few single attributes found more easily, the many intersections less); "none": the plain
            max-T, one threshold for every candidate.
        step_down: False (default): the single step, every candidate against the largest statistic of all. True:
            Westfall and Young's free step-down through the same nulls (each candidate against the largest statistic of
            those not more significant; every p-value at most the single step's, the family-wise error held).
            ``ci_low``, ``ci_high`` and ``threshold`` stay the single step's bounds: a group found by the step-down
            alone has ``ci_low <= 0``.
        pos_label: the positive label of the rates (binary labels).
        positive_from: with ratings, the lowest rating of the positive class (the majority vote of the ADR uses
            ``rating >= positive_from``; without it the ADR measures disagreement with the item's median rating).
        tie, random_state: the majority vote's tie policy (ADR); the permutations' seed or numpy Generator.
        data: a pandas, Dask or Spark DataFrame of the annotations, whose columns ``y_true``, ``y_pred``, ``item_ids``
            and ``annotator_ids`` then name. A Dask or Spark DataFrame's four named columns are read to the driver (not
            its other columns): the answer is the pandas one on those rows.

    Returns:
        ExcludedGroups: :meth:`~ExcludedGroups.findings`, :meth:`~ExcludedGroups.members`,
        :meth:`~ExcludedGroups.summary`, :meth:`~ExcludedGroups.sentence`.

    Raises:
        ValueError: an annotator table without a named attribute, an attribute with one value, ``min_annotators``
            < 2, ``max_conditions`` outside 1-3, an unknown ``adjust``, ``balance`` or ``performance``, misaligned
            inputs.
        TypeError: ``annotators`` not a DataFrame, an option of the wrong type (``step_down`` not a bool).

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine Learning.
        Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing (single-step and free step-down max-T).
        Chung, E., Romano, J. P. (2013). Exact and asymptotically robust permutation tests.
        Beran, R. (1988). Balanced simultaneous confidence sets (``balance="conditions"``).

    Examples:
        >>> ex = excluded_groups(y, p, item_ids=items, annotator_ids=who, annotators=table,  # doctest: +SKIP
        ...                      attributes=["gender", "age"], adjust="items", random_state=0)
        >>> ex.findings()[["description", "gap", "p_adjusted"]]  # doctest: +SKIP
    """
    n_permutations = renamed_keyword("excluded_groups", renamed, "n_perm", "n_permutations", n_permutations,
                                     OPINION_PARAMS.default("discovery_n_permutations"))
    opts = check_discovery_options(max_conditions=max_conditions, min_annotators=min_annotators, ranges=ranges,
                                   adjust=adjust, alpha=alpha, n_permutations=n_permutations, performance=performance,
                                   random_state=random_state, balance=balance, step_down=step_down)
    y_true, y_pred, item_ids, annotator_ids = collected_columns(data, y_true, y_pred, item_ids, annotator_ids)
    enc, reference = _encode(y_true, y_pred, item_ids, annotator_ids, PERFORMANCES[opts.performance].needs_ratings,
                             positive_from, pos_label)
    return discover_excluded(enc, annotators, attributes, opts, tie=tie, adr_reference=reference)


def _encode(y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any, needs_ratings: bool, positive_from: Any,
            pos_label: Any) -> tuple[EncodedAnnotations, str]:
    """The annotations encoded with the opinion-exclusion faces' checks and messages, and the ADR's reference
    ("median" for ratings without ``positive_from``, else "majority")."""
    check_same_index({"y_true": y_true, "y_pred": y_pred, "item_ids": item_ids, "annotator_ids": annotator_ids})
    ratings = None
    yt, yp = y_true, y_pred
    if needs_ratings:
        if positive_from is not None:
            yt, yp, ratings = binary_view(y_true, y_pred, positive_from, pos_label)
        else:
            n = len(y_true)
            ratings = (check_ratings(y_true, "y_true", n), check_ratings(y_pred, "y_pred", n))
            yt = yp = np.zeros(n, dtype=np.int64)  # no binary view: the ADR uses the median rating
            pos_label = 1
    elif positive_from is not None:
        yt, yp, _ = binary_view(y_true, y_pred, positive_from, pos_label)
    enc = encode_annotations(yt, yp, ids_or_level(y_true, item_ids, "item", "item_ids"),
                             ids_or_level(y_true, annotator_ids, "annotator", "annotator_ids"), pos_label=pos_label,
                             ratings=ratings)
    check_unique_pairs(enc.item_codes, enc.annotator_codes, enc.items, enc.annotators)
    return enc, "median" if (needs_ratings and positive_from is None) else "majority"


@dataclass(frozen=True)
class DiscoveryOptions:
    """The validated options of a discovery (:func:`check_discovery_options`)."""

    max_conditions: int
    min_annotators: int
    ranges: int
    adjust: str
    alpha: float
    n_permutations: int
    performance: str
    rng: np.random.Generator
    balance: str = "conditions"
    step_down: bool = False


#: The options of a discovery and the rows of the opinion parameter table that check them (the keyword's own
#: name where the row has another: the test of equal service's ``n_permutations`` and the audit's ``performance``
#: have other rules).
DISCOVERY_ROWS = {"max_conditions": "max_conditions", "min_annotators": "min_annotators", "ranges": "ranges",
                  "adjust": "adjust", "balance": "balance", "step_down": "step_down", "alpha": "alpha",
                  "n_permutations": "discovery_n_permutations", "performance": "discovery_performance"}


def check_discovery_options(*, max_conditions: Any = OPINION_PARAMS.default("max_conditions"),
                            min_annotators: Any = OPINION_PARAMS.default("min_annotators"),
                            ranges: Any = OPINION_PARAMS.default("ranges"),
                            adjust: Any = OPINION_PARAMS.default("adjust"),
                            alpha: Any = OPINION_PARAMS.default("alpha"),
                            n_permutations: Any = OPINION_PARAMS.default("discovery_n_permutations"),
                            performance: Any = OPINION_PARAMS.default("discovery_performance"),
                            random_state: Any = None, balance: Any = OPINION_PARAMS.default("balance"),
                            step_down: Any = OPINION_PARAMS.default("step_down"),
                            **renamed: Any) -> DiscoveryOptions:
    """Validate the options of :func:`excluded_groups` against their rows of the opinion parameter table
    (:data:`DISCOVERY_ROWS`): the same checks and messages for every face. ``n_perm=`` is the former name of
    ``n_permutations`` (a DeprecationWarning).

    Raises:
        ValueError: ``max_conditions`` outside 1-3, ``min_annotators`` < 2, ``ranges`` < 2, an unknown ``adjust``,
            ``balance`` (:data:`BALANCES`; a non-string included) or ``performance``, ``alpha`` outside (0, 1), too
            few permutations to reach ``alpha``.
        TypeError: an option of the wrong type (``step_down`` not True or False), or an unknown keyword.
    """
    n_permutations = renamed_keyword("check_discovery_options", renamed, "n_perm", "n_permutations", n_permutations,
                                     OPINION_PARAMS.default("discovery_n_permutations"))
    given = {"max_conditions": max_conditions, "min_annotators": min_annotators, "ranges": ranges, "adjust": adjust,
             "balance": balance, "step_down": step_down, "alpha": alpha, "n_permutations": n_permutations}
    for name, value in given.items():
        OPINION_PARAMS[DISCOVERY_ROWS[name]].check(value, name=name)
    performance = _check_performance(performance)
    if alpha * (n_permutations + 1) < 1:
        raise ValueError(f"n_permutations={n_permutations} cannot reach alpha={alpha:g} (the smallest p-value is 1 / "
                         f"(n_permutations + 1)): use n_permutations >= {math.ceil(1 / alpha) - 1}")
    return DiscoveryOptions(max_conditions=int(max_conditions), min_annotators=int(min_annotators), ranges=int(ranges),
                            adjust=adjust, alpha=float(alpha), n_permutations=int(n_permutations),
                            performance=performance, rng=check_random_state(random_state), balance=balance,
                            step_down=bool(step_down))


def discover_excluded(enc: EncodedAnnotations, annotators: Any, attributes: Any, opts: DiscoveryOptions, *,
                      tie: str = "favorable", adr_reference: str = "majority") -> ExcludedGroups:
    """The discovery on encoded annotations (the core both faces call; see :func:`excluded_groups`).

    The steps: the units (:func:`_units`: scores, item adjustment, annotators or annotator halves), their weights
    (:func:`_weights`), the candidate groups over them and the ones tested (:func:`_candidates`, :func:`_tested`),
    the two nulls of the largest statistic (:func:`_nulls`), and the table (:func:`_table`).

    Args:
        enc: encoded annotations (their binary view for the ADR; ratings for the measures on ratings).
        annotators: annotator attributes, a DataFrame indexed by annotator id.
        attributes: the attributes to combine (None = every column), ``"adr"`` for the cross-fitted ADR.
        opts: :func:`check_discovery_options`.
        tie: majority-vote tie policy of the ADR.
        adr_reference: "majority" or "median" (ratings), as for ``adr_fit="cross"``.

    Returns:
        ExcludedGroups
    """
    higher = PERFORMANCES[opts.performance].higher_is_better
    table, attrs = _check_attributes(annotators, attributes, enc.annotators)
    use_adr = ADR_ATTRIBUTE in attrs and ADR_ATTRIBUTE not in annotators.columns
    counts: dict[str, Any] = {"n_without_attributes": int((~enc.annotators.isin(annotators.index)).sum())}
    units = _units(enc, opts, use_adr, tie, adr_reference, counts)
    weights = _weights(enc, units)
    cand = _candidates(table, attrs, use_adr, units, opts, counts)
    tested = _tested(cand, units, weights, opts, higher, counts)
    nulls = _nulls(tested, units, weights, opts, higher)
    tbl, members = _table(enc, tested, nulls, units, weights, opts, higher)
    tbl["shared_items"] = _shared_items(enc, units.rows, units.half, units.n_halves, units.keep_a, members,
                                        counts["n_annotations"])
    k, exact = units.k, nulls.exact
    notes = []
    if exact and tested.m:
        notes.append(f"with {k} annotators every permutation is enumerated and the permutation p-value is exact when "
                     "annotators are exchangeable; the wild bootstrap, which guards against groups whose annotators "
                     "differ among themselves more than the others do, needs more annotators and was not run")
    if use_adr:
        notes.append("ADR cross-fitted on item halves: each annotator's annotations of one half are grouped by its "
                     "ADR on the other half")
    unit_ann = pd.Index(np.repeat(np.asarray(units.ann_ids, dtype=object), units.n_halves), name="annotator")
    return ExcludedGroups(
        table=tbl, alpha=opts.alpha, performance=opts.performance, higher_is_better=higher, adjust=opts.adjust,
        critical_value=nulls.worse.critical_value,
        wild_critical_value=nulls.wild_worse.critical_value if not exact else np.nan,
        smallest_p=nulls.smallest_p, n_permutations=math.factorial(k) if exact else opts.n_permutations,
        exact=exact, counts=counts, annotator_units=unit_ann, members_matrix=members, attributes=tuple(attrs),
        max_conditions=opts.max_conditions, min_annotators=opts.min_annotators, notes=tuple(notes),
        balance=opts.balance, step_down=opts.step_down, engine=(weights.data, weights.totals),
    )


@dataclass(frozen=True)
class _Units:
    """The units of the search: annotators, or annotator halves (``n_halves`` 2, the ADR cross-fitted on item
    halves). Per annotation row: ``rows`` counted, ``score`` (item-adjusted with ``adjust="items"``), ``raw``
    score, ``half``; per kept annotator (``keep_a`` its codes, ``ann_ids`` its ids) and half: ``n_u`` scored
    annotations, ``s_u`` and ``raw_u`` their score sums; ``n_a`` per annotator; ``adr`` the two halves' ADR."""

    rows: np.ndarray
    score: np.ndarray
    raw: np.ndarray
    half: np.ndarray
    n_halves: int
    keep_a: np.ndarray
    ann_ids: pd.Index
    n_u: np.ndarray
    s_u: np.ndarray
    raw_u: np.ndarray
    n_a: np.ndarray
    adr: np.ndarray | None

    @property
    def k(self) -> int:
        """Annotators with a scored annotation."""
        return len(self.keep_a)


def _units(enc: EncodedAnnotations, opts: DiscoveryOptions, use_adr: bool, tie: str, adr_reference: str,
           counts: dict[str, Any]) -> _Units:
    """Step 1: scores, counted rows, the item adjustment, and the sums per unit (counts what it drops)."""
    rows, score = annotation_scores(opts.performance, enc.t, enc.p, enc.r_true, enc.r_pred)
    raw = score.copy()
    # the share of scored annotations on items with another scored annotation: near 0, the groups' raw scores
    # measure their items as much as their annotators (the answer says it cannot answer)
    per_item = np.bincount(enc.item_codes[rows], minlength=len(enc.items))
    counts["shared_share"] = float(np.mean(per_item[enc.item_codes[rows]] >= 2)) if rows.any() else float("nan")
    if opts.adjust == "items":
        items_rows = np.where(rows, enc.item_codes, len(enc.items))  # uncounted rows on a dummy item
        keep, adjusted = item_adjusted(np.where(rows, score, 0.0), items_rows, len(enc.items) + 1)
        counts["n_single_annotation_items"] = int((rows & ~keep).sum())
        rows = rows & keep
        score = adjusted
    # units: annotators, or annotator halves (ADR cross-fitted on item halves, the opinion core's split)
    H = 2 if use_adr else 1
    half = np.zeros(enc.n, dtype=np.int64)
    adr_halves = None
    if use_adr:
        fit = cross_fit(enc, tie, adr_reference)
        half, adr_halves = fit.row_half, fit.adr
    n_all = len(enc.annotators)
    u_codes = enc.annotator_codes[rows] * H + half[rows]
    n_u = np.bincount(u_codes, minlength=n_all * H).astype(np.float64).reshape(n_all, H)
    s_u = np.bincount(u_codes, weights=score[rows], minlength=n_all * H).reshape(n_all, H)
    raw_u = np.bincount(u_codes, weights=raw[rows], minlength=n_all * H).reshape(n_all, H)
    n_a = n_u.sum(axis=1)
    scored = n_a > 0
    counts["n_no_scored_annotation"] = int((~scored).sum())
    keep_a = np.flatnonzero(scored)
    if len(keep_a) == 0 and opts.adjust == "items" and counts["n_single_annotation_items"]:
        raise ValueError(f"adjust='items' compares each annotation with the other annotations of its item, and every "
                         f"item scored here carries one annotation ({counts['n_single_annotation_items']:,} "
                         "annotations): no measure can be item-adjusted on these data; use adjust='none', whose gap "
                         "mixes the groups with the difficulty of their items")
    if len(keep_a) == 0:
        left = " left after adjust='items'" if opts.adjust == "items" else ""
        raise ValueError(f"performance {opts.performance!r} scores none of the {enc.n} annotations (it counts "
                         f"{_COUNTED[opts.performance]}, and there are none{left}): choose another performance "
                         "measure")
    return _Units(rows=rows, score=score, raw=raw, half=half, n_halves=H, keep_a=keep_a,
                  ann_ids=enc.annotators[keep_a], n_u=n_u[keep_a], s_u=s_u[keep_a], raw_u=raw_u[keep_a],
                  n_a=n_a[keep_a], adr=None if adr_halves is None else adr_halves[keep_a])


@dataclass(frozen=True)
class _Weights:
    """The count model's ``sigma2``, every unit's weight ``w_u`` and the statistic's annotator data and totals."""

    sigma2: float
    w_u: np.ndarray
    data: AnnotatorData
    totals: dict[str, np.ndarray]


def _weights(enc: EncodedAnnotations, units: _Units) -> _Weights:
    """Step 2: random-effects weights from the count model ``Var(y_a) = tau2 + sigma2 / n_a`` over all annotators
    (fixed before permuting): ``sigma2`` the pooled within-annotator variance of one annotation's score, ``tau2``
    fitted by the test of equal service's own moments (``studentized.group_moments``, all annotators one group)."""
    rows, n_a, n_u = units.rows, units.n_a, units.n_u
    a_codes = enc.annotator_codes[rows]
    sq = np.bincount(a_codes, weights=units.score[rows] ** 2, minlength=len(enc.annotators))[units.keep_a]
    y_a = units.s_u.sum(axis=1) / n_a
    sigma2, tau2 = count_model(y_a, n_a, sq)
    rho = tau2 / (tau2 + sigma2) if tau2 + sigma2 > 0 else 0.0
    w_a = n_a / (1.0 + (n_a - 1.0) * rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        y_u = np.where(n_u > 0, units.s_u / n_u, 0.0)
    w_u = w_a[:, None] * n_u / n_a[:, None]
    data = annotator_data(w_a, w_u, n_a, n_u, y_u, sigma2)
    return _Weights(sigma2=sigma2, w_u=w_u, data=data, totals=data_totals(data))


def _candidates(table: pd.DataFrame, attrs: list[str], use_adr: bool, units: _Units, opts: DiscoveryOptions,
                counts: dict[str, Any]) -> AnnotatorGroups:
    """Step 3: the candidate groups over the units (and the count of the attribute-value groups too small)."""
    H, ann_ids = units.n_halves, units.ann_ids
    plain_attrs = [a for a in attrs if not (use_adr and a == ADR_ATTRIBUTE)]
    unit_table = table.loc[ann_ids, plain_attrs]
    unit_table = unit_table.loc[unit_table.index.repeat(H)].reset_index(drop=True)
    if units.adr is not None:
        # unit (a, h) scores half h, grouped by the ADR on the other half (CrossFit.half_unit)
        unit_table[ADR_ATTRIBUTE] = units.adr[:, ::-1].ravel()
        unit_table = unit_table[attrs]
    cand = build_candidates(unit_table, opts.max_conditions, opts.min_annotators, opts.ranges)
    counts["n_identical"] = cand.n_identical
    counts["missing"] = cand.missing
    small_table = table.loc[ann_ids, plain_attrs]
    if units.adr is not None:
        defined = np.isfinite(units.adr)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_adr = np.where(defined, units.adr, 0.0).sum(axis=1) / defined.sum(axis=1)
        small_table = small_table.assign(**{ADR_ATTRIBUTE: mean_adr})
    counts["n_small_groups"] = count_small_groups(small_table, attrs, opts.max_conditions, opts.ranges,
                                                  opts.min_annotators)
    counts["n_annotators"] = units.k
    counts["n_annotations"] = int(units.n_a.sum())
    return cand


@dataclass(frozen=True)
class _Tested:
    """The candidates tested (enough annotators on both sides, a statistic): their membership, descriptions,
    numbers of conditions, class of the balanced max-T (``cls``, of ``n_classes``), observed statistic, the
    observed sums of every candidate (``obs``) and the positions kept among them (``keep``)."""

    members: sp.csc_matrix
    descriptions: list[str]
    n_conditions: np.ndarray
    cls: np.ndarray
    n_classes: int
    gap: np.ndarray
    se: np.ndarray
    t: np.ndarray
    k_s: np.ndarray
    df: np.ndarray
    z: np.ndarray
    obs: dict[str, np.ndarray]
    keep: np.ndarray

    @property
    def m(self) -> int:
        """Candidates tested."""
        return len(self.keep)


def _tested(cand: AnnotatorGroups, units: _Units, weights: _Weights, opts: DiscoveryOptions, higher: bool,
            counts: dict[str, Any]) -> _Tested:
    """Step 4: every candidate's observed statistic, and the candidates with enough annotators on both sides."""
    k, min_annotators = units.k, opts.min_annotators
    members = cand.members()
    obs = Sums(members, k, units.n_halves, weights.data).sums(np.arange(k)[None, :])
    gap, se, t, k_s, k_r, df, z = (x[:, 0] for x in statistic(obs, weights.totals, higher))
    ok = (k_s >= min_annotators) & (k_r >= min_annotators) & np.isfinite(t)
    counts["n_small_rest"] = int(((k_s >= min_annotators) & (k_r < min_annotators)).sum())
    counts["n_undefined"] = int(((k_s >= min_annotators) & (k_r >= min_annotators) & ~np.isfinite(t)).sum())
    scored = units.score[units.rows]
    # every score equal (all labels alike, all ratings 3): no group can differ, and the answer says so
    counts["constant_score"] = float(scored[0]) if len(scored) and np.ptp(scored) == 0 else None
    keep = np.flatnonzero(ok)
    counts["n_candidates"] = len(keep)
    # classes of candidates: their number of conditions (the few single attributes do not compete with the many pairs)
    classes, cls = np.unique(cand.description_class()[keep], return_inverse=True)
    return _Tested(members=sp.csc_matrix(members[:, keep]), descriptions=[cand.description(int(i)) for i in keep],
                   n_conditions=cand.n_conditions[keep], cls=np.asarray(cls, dtype=np.intp).ravel(),
                   n_classes=len(classes), gap=gap[keep], se=se[keep], t=t[keep], k_s=k_s[keep], df=df[keep],
                   z=z[keep], obs=obs, keep=keep)


@dataclass(frozen=True)
class _Nulls:
    """Both nulls' max-T in each direction (served worse: ``z``; better: ``-z``), the smallest p-value the
    annotators allow, whether the permutations were enumerated, and per candidate the permutations with a ``T``,
    the sum of ``T`` and of ``T^2`` (``moments``)."""

    worse: _Direction
    better: _Direction
    wild_worse: _Direction
    wild_better: _Direction
    smallest_p: float
    exact: bool
    moments: np.ndarray


def _nulls(tested: _Tested, units: _Units, weights: _Weights, opts: DiscoveryOptions, higher: bool) -> _Nulls:
    """Step 5: the null distribution of the largest statistic, in each direction: permutations of annotators (exact
    when the annotators are exchangeable), and a wild bootstrap of annotators (each keeps its own spread: valid when
    the annotators of a group differ among themselves more than the others do); the p-value is the larger of the
    two. With ``step_down`` each null also keeps the statistics of each class's first candidates ("served worse"
    only: the other direction gives the upper bounds, which stay the single step's) for Westfall and Young's free
    step-down."""
    k, m, H, rng = units.k, tested.m, units.n_halves, opts.rng
    cls, n_classes, z, alpha, totals = tested.cls, tested.n_classes, tested.z, opts.alpha, weights.totals
    exact = k <= EXACT_MAX_ANNOTATORS
    smallest_p = 1.0 / (opts.n_permutations + 1)
    none = _Direction(np.zeros(m))
    worse = better = wild_worse = wild_better = none  # served worse (T), served better (-T)
    moments = np.zeros((m, 3))  # per candidate: permutations with a T, sum of T, sum of T^2
    if m:
        sums = Sums(tested.members, k, H, weights.data)
        if exact:
            perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64)
            batches = [perms[i:i + 4096] for i in range(0, len(perms), 4096)]
        else:
            batches = [rng.permuted(np.tile(np.arange(k), (b, 1)), axis=1) for b in batch_sizes(opts.n_permutations)]
        kept = STEP_DOWN_HEAD if opts.step_down else 0  # candidates per class the step-down needs
        pos, neg = class_maxima((statistic(sums.sums(perm), totals, higher) for perm in batches), cls, n_classes,
                                moments, z=z, keep=kept)
        if exact:
            smallest_p = enumerated_smallest_p(tested.members, perms, k, H, m)
        balanced = opts.balance == "conditions"
        worse = _Direction.from_null(pos.class_max, cls, z, alpha, exact, balanced, pos if kept else None)
        better = _Direction.from_null(neg.class_max, cls, -z, alpha, exact, balanced)
        if not exact:
            flips = Flips(sums, *wild_parts(weights.data, overall_mean(totals)))
            draws = (flips.sums_and_totals(rng.choice(np.array([-1.0, 1.0]), size=(b, k)))
                     for b in batch_sizes(opts.n_permutations))
            pos, neg = class_maxima((statistic(*d, higher) for d in draws), cls, n_classes, z=z, keep=kept)
            wild_worse = _Direction.from_null(pos.class_max, cls, z, alpha, False, balanced, pos if kept else None)
            wild_better = _Direction.from_null(neg.class_max, cls, -z, alpha, False, balanced)
    return _Nulls(worse=worse, better=better, wild_worse=wild_worse, wild_better=wild_better, smallest_p=smallest_p,
                  exact=exact, moments=moments)


def _thresholds(tested: _Tested, nulls: _Nulls) -> tuple[np.ndarray, np.ndarray]:
    """The ``t`` a candidate must pass to be reported served worse (better): both schemes' thresholds on the normal
    scale (each its critical value plus the candidate's class offset), on the scale of ``T`` through the
    candidate's own degrees of freedom."""
    worse, better, wild_worse, wild_better = nulls.worse, nulls.better, nulls.wild_worse, nulls.wild_better
    z_threshold = np.fmax(worse.critical_value + worse.offset,
                          wild_worse.critical_value + wild_worse.offset if not nulls.exact else np.nan)
    z_better = np.fmax(better.critical_value + better.offset,
                       wild_better.critical_value + wild_better.offset if not nulls.exact else np.nan)
    return from_normal(z_threshold, tested.df), from_normal(z_better, tested.df)


def _raw_performance(members: sp.csc_matrix, units: _Units, weights: _Weights) -> tuple[np.ndarray, ...]:
    """Per candidate the weighted mean raw score of the group and of the rest, and the group's annotations."""
    H, n_u, raw_u, w_u, m = units.n_halves, units.n_u, units.raw_u, weights.w_u, members.shape[1]
    raw_cols = [np.column_stack([w_u[:, h], w_u[:, h] * np.where(n_u[:, h] > 0, raw_u[:, h] / np.maximum(n_u[:, h], 1),
                                                                  0.0)]) for h in range(H)]
    mt = sp.csr_matrix(members.T, dtype=np.float64)
    g_raw: np.ndarray = (np.sum([np.asarray(mt[:, h::H] @ raw_cols[h]) for h in range(H)], axis=0) if m
                         else np.zeros((0, 2)))
    t_raw: np.ndarray = np.sum([rc.sum(axis=0) for rc in raw_cols], axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        perf_s = g_raw[:, 1] / g_raw[:, 0]
        perf_r = (t_raw[1] - g_raw[:, 1]) / (t_raw[0] - g_raw[:, 0])
    n_ann_s = np.asarray(mt @ n_u.ravel()).ravel() if m else np.zeros(0)
    return perf_s, perf_r, n_ann_s


def _table(enc: EncodedAnnotations, tested: _Tested, nulls: _Nulls, units: _Units, weights: _Weights,
           opts: DiscoveryOptions, higher: bool) -> tuple[pd.DataFrame, sp.csc_matrix]:
    """Step 6: every tested candidate's row, most excluded first, and their membership in that order."""
    m, gap, se, t = tested.m, tested.gap, tested.se, tested.t
    p_perm = nulls.worse.p_adjusted if nulls.worse.p_adjusted is not None else np.zeros(m)
    p_wild = nulls.wild_worse.p_adjusted if nulls.wild_worse.p_adjusted is not None else np.full(m, np.nan)
    threshold, threshold_better = _thresholds(tested, nulls)
    half_width = np.maximum(threshold, 0.0) * se
    upper_width = np.maximum(threshold_better, 0.0) * se
    # the gap found with 80% power: T must exceed the threshold, and T spreads around gap / se with the spread of
    # the candidate's T under the permutations (above 1 when its standard error is itself noisy: few annotators,
    # heavy-tailed counts), never taken below 1
    moments = nulls.moments
    n_t = np.maximum(moments[:, 0], 1.0)
    var_t = moments[:, 2] / n_t - (moments[:, 1] / n_t) ** 2
    spread = np.maximum(np.sqrt(np.maximum(var_t, 0.0)), 1.0)
    detectable = detectable_gap(threshold + _Z_POWER * spread, se, tested.obs, tested.keep, weights.sigma2,
                                weights.totals, binary=opts.performance != "mae" and opts.adjust == "none",
                                higher=higher)
    perf_s, perf_r, n_ann_s = _raw_performance(tested.members, units, weights)
    tbl = pd.DataFrame({
        "description": tested.descriptions, "n_conditions": tested.n_conditions,
        "n_annotators": tested.k_s.astype(np.int64), "n_annotations": n_ann_s.astype(np.int64),
        "performance": perf_s, "rest_performance": perf_r, "gap": gap, "se": se, "t": t, "df": tested.df,
        "z": tested.z, "ci_low": gap - half_width, "ci_high": gap + upper_width,
        "p_adjusted": np.fmax(p_perm, p_wild), "p_permutation": p_perm, "p_wild": p_wild,
        "detectable_gap": detectable, "threshold": threshold,
    })
    # most excluded first: by the lower end of the simultaneous interval, the gap the data vouch for (reported groups,
    # whose interval excludes 0, come first; a subgroup's larger but noisier gap, or its parent's diluted one, rank
    # below the group itself), then by the statistic (all ends are -inf when nothing can be reported)
    order = np.lexsort((-(t - threshold), -(gap - half_width)))
    tbl = tbl.iloc[order].reset_index(drop=True)
    tbl.index.name = "candidate"
    return tbl, sp.csc_matrix(tested.members[:, order])


def _shared_items(enc: Any, rows: np.ndarray, half: np.ndarray, H: int, keep_a: np.ndarray, members: sp.csc_matrix,
                  n_annotations: int) -> np.ndarray:
    """Per candidate, the share of its annotations on items some annotator outside it also annotated."""
    m = members.shape[1]
    out = np.full(m, np.nan)
    if not m:
        return out
    pos = np.full(len(enc.annotators), -1, dtype=np.int64)
    pos[keep_a] = np.arange(len(keep_a))
    r = np.flatnonzero(rows & (pos[enc.annotator_codes] >= 0))
    unit = pos[enc.annotator_codes[r]] * H + half[r]
    A = sp.csr_matrix((np.ones(len(r)), (unit, enc.item_codes[r])), shape=(members.shape[0], len(enc.items)))
    item_total = np.asarray(A.sum(axis=0)).ravel()
    top = m if m * n_annotations <= _SHARED_BUDGET else min(m, _SHARED_TOP)
    mt = sp.csr_matrix(members[:, :top].T, dtype=np.float64)
    for s0 in range(0, top, 64):
        P = sp.csr_matrix(mt[s0:s0 + 64] @ A)
        rows_of = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
        shared = P.data * (item_total[P.indices] - P.data > 0)
        num = np.bincount(rows_of, weights=shared, minlength=P.shape[0])
        den = np.bincount(rows_of, weights=P.data, minlength=P.shape[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            out[s0:s0 + P.shape[0]] = num / den
    return out
