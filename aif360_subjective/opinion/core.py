"""The one core of the opinion-exclusion metrics: grouping, performance, group table, summary.

:class:`~aif360_subjective.metrics.OpinionExclusionMetric` and
:func:`aif360_subjective.sklearn.metrics.opinion_exclusion` both encode their input
(:func:`~aif360_subjective.opinion.annotations.encode_annotations`), build one
:class:`~aif360_subjective.metrics.OpinionOptions` and call :func:`compute_opinion_exclusion`. It runs in
named steps: per-annotator figures, the grouper of the grouping kind
(:data:`~aif360_subjective.opinion.groupers.GROUPERS`), the group-size rules, the performance of
every (group, annotator) unit, the group table and the grouping summary. Vectorised: no per-annotation loop.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1 (ADR, per-user performance, group mean/std) and "Grouping criteria".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._deprecation import renamed_member
from .._labels import FN, FP, TN, TP, cell_codes, confusion_counts, ratio
from .annotations import (
    MAX_ERROR_CELLS,
    DisagreementRates,
    EncodedAnnotations,
    cross_fit,
    disagreement_rates,
    rating_error_counts,
    unit_mean_absolute_error,
    unit_within_one,
)
from .bootstrap import BootstrapInterval
from .groupers import GROUPERS, UnitGroups, group_by_adr_cross
from .groups import GroupingSummary, enforce_min_group_size
from .options import PERFORMANCE_NAMES, PERFORMANCES, OpinionOptions, PerformanceSpec

#: The measures on ratings: one value per unit from (unit codes, n_units, ratings, predicted ratings).
_RATING_MEASURES: dict[str, Callable[..., np.ndarray]] = {
    "mae": unit_mean_absolute_error,
    "within_one": unit_within_one,
}

__all__ = [
    "GroupCounts",
    "OpinionExclusionResult",
    "combine_measures",
    "compute_opinion_exclusion",
    "count_score",
    "counts_suffice",
    "group_counts",
    "histograms_suffice",
    "performance_from_counts",
    "performance_from_histograms",
    "result_from_counts",
    "individual_figures",
    "metric_from_counts",
    "unit_performance",
]


# ----------------------------------------------------------------------------------------------
# performance
# ----------------------------------------------------------------------------------------------
def metric_from_counts(name: str, counts: np.ndarray) -> np.ndarray:
    """A named performance metric from confusion counts; NaN where it is undefined.

    ``balanced_accuracy`` follows scikit-learn: the mean recall over the classes present in
    ``y_true`` (so it equals TPR or TNR for a unit with a single true class). ``precision`` is
    undefined without predicted positives, ``f1`` = 2TP / (2TP + FP + FN) without any of them.

    Args:
        name: one of :data:`~aif360_subjective.opinion.options.PERFORMANCE_NAMES`.
        counts: ``(n_units, 4)`` confusion counts (TN, FP, FN, TP) from
            :func:`aif360_subjective._labels.confusion_counts`.

    Returns:
        numpy.ndarray: one value per unit.
    """
    tn, fp, fn, tp = counts[:, TN], counts[:, FP], counts[:, FN], counts[:, TP]
    if name == "accuracy":
        return ratio(tp + tn, tp + fp + tn + fn)
    if name == "true_positive_rate":
        return ratio(tp, tp + fn)
    if name == "false_negative_rate":
        return ratio(fn, tp + fn)
    if name == "true_negative_rate":
        return ratio(tn, tn + fp)
    if name == "false_positive_rate":
        return ratio(fp, tn + fp)
    if name == "precision":
        return ratio(tp, tp + fp)
    if name == "f1":
        return ratio(2 * tp, 2 * tp + fp + fn)
    if name == "balanced_accuracy":
        tpr, tnr = ratio(tp, tp + fn), ratio(tn, tn + fp)
        return np.where(np.isnan(tpr), tnr, np.where(np.isnan(tnr), tpr, (tpr + tnr) / 2))
    raise ValueError(f"unknown performance metric {name!r}; expected one of {list(PERFORMANCE_NAMES)}")


def _callable_per_unit(
    func: Callable[..., Any], codes: np.ndarray, n_units: int, y_true: np.ndarray, y_pred: np.ndarray
) -> np.ndarray:
    # A user callable can only be evaluated unit by unit: one call per unit (not per row).
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_units))])
    yt, yp = y_true[order], y_pred[order]
    out = np.full(n_units, np.nan)
    for u in range(n_units):
        lo, hi = bounds[u], bounds[u + 1]
        if hi > lo:
            value = func(yt[lo:hi], yp[lo:hi])
            try:
                out[u] = float(value)
            except (TypeError, ValueError):
                name = getattr(func, "__name__", type(func).__name__)
                raise ValueError(
                    f"performance callable {name!r} returned {value!r}; it must return a number"
                ) from None
    return out


def unit_performance(
    specs: tuple[PerformanceSpec, ...],
    codes: np.ndarray,
    n_units: int,
    enc: EncodedAnnotations,
    rows: np.ndarray | None = None,
    nan_policy: str = "propagate",
) -> np.ndarray:
    """Performance per unit (annotator, group, or (group, annotator) pair).

    Args:
        specs: resolved performance option.
        codes: unit code per selected row (0..n_units-1).
        n_units: number of units.
        enc: encoded annotations.
        rows: indices of the rows ``codes`` refers to (None = all rows).
        nan_policy: how a list of metrics combines undefined values: "propagate" (the average is
            NaN if any metric is undefined for that unit, so every average mixes the same
            metrics) or "omit" (average of the defined ones; NaN only if none is defined).

    Returns:
        numpy.ndarray: one value per unit, NaN where undefined (or for units without rows).
    """
    t, p = (enc.t, enc.p) if rows is None else (enc.t[rows], enc.p[rows])
    counts = None
    values = []
    for spec in specs:
        if isinstance(spec, str) and PERFORMANCES[spec].needs_ratings:
            # the options check made sure ratings were given
            assert enc.r_true is not None and enc.r_pred is not None
            rt, rp = (enc.r_true, enc.r_pred) if rows is None else (enc.r_true[rows], enc.r_pred[rows])
            values.append(_RATING_MEASURES[spec](codes, n_units, rt, rp))
        elif isinstance(spec, str):
            if counts is None:
                counts = confusion_counts(codes, n_units, cell_codes(t, p))
            values.append(metric_from_counts(spec, counts))
        else:
            yt, yp = enc.callable_inputs()
            if rows is not None:
                yt, yp = yt[rows], yp[rows]
            values.append(_callable_per_unit(spec, codes, n_units, yt, yp))
    return combine_measures(values, nan_policy)


def combine_measures(values: list[np.ndarray], nan_policy: str) -> np.ndarray:
    """One value per unit from the values of several measures (``nan_policy`` as in :func:`unit_performance`)."""
    if len(values) == 1:
        return values[0]
    stacked = np.vstack(values)
    if nan_policy == "propagate":
        return np.asarray(stacked.mean(axis=0), dtype=np.float64)
    defined = ~np.isnan(stacked)
    n_def = defined.sum(axis=0)
    total = np.where(defined, stacked, 0.0).sum(axis=0)
    return ratio(total, n_def.astype(np.float64))


def counts_suffice(specs: tuple[PerformanceSpec, ...]) -> bool:
    """Whether every measure is a named one on binary labels, computed from confusion counts alone.

    Callables and the measures on ratings need the annotation rows (:func:`unit_performance`).
    """
    return all(isinstance(s, str) and not PERFORMANCES[s].needs_ratings for s in specs)


def histograms_suffice(specs: tuple[PerformanceSpec, ...]) -> bool:
    """Whether every measure is a named measure on ratings ("mae", "within_one"), computed from histograms of the
    absolute errors ``|rating - predicted|`` alone (:func:`performance_from_histograms`)."""
    return all(isinstance(s, str) and PERFORMANCES[s].needs_ratings for s in specs)


def performance_from_histograms(
    specs: tuple[PerformanceSpec, ...], counts: np.ndarray, cells: np.ndarray, nan_policy: str
) -> np.ndarray:
    """The measures on ratings per unit from its histogram of absolute errors ``|rating - predicted|``.

    With ``count_k`` annotations of the unit at error ``cell_k`` and ``n = sum_k count_k``: MAE =
    ``sum_k cell_k * count_k / n``, within one point = ``sum_{cell_k <= 1} count_k / n`` (NaN when ``n = 0``).
    The one formula of both back ends (per annotator, per (group, annotator) unit, pooled per group on summed
    histograms) and of the bootstrap, which redraws these histograms.

    Args:
        specs: resolved performance option; :func:`histograms_suffice` must hold.
        counts: ``(..., len(cells))`` histograms (any leading shape, e.g. ``(n_units, k)`` or
            ``(n_boot, n_units, k)``).
        cells: the distinct absolute errors, the columns of ``counts``.
        nan_policy: "propagate" or "omit" (for a list of measures).

    Returns:
        numpy.ndarray: one value per histogram, shape ``counts.shape[:-1]``.
    """
    errors = np.asarray(cells, dtype=np.float64)
    weights = {"mae": errors, "within_one": (errors <= 1.0).astype(np.float64)}
    lead = np.shape(counts)[:-1]
    flat = np.asarray(counts).reshape(int(np.prod(lead)), len(errors)).astype(np.float64)  # also 0 units, 0 cells
    n = flat.sum(axis=1)
    values = [ratio(flat @ weights[str(spec)], n) for spec in specs]
    return combine_measures(values, nan_policy).reshape(lead)


def performance_from_counts(specs: tuple[PerformanceSpec, ...], counts: np.ndarray, nan_policy: str) -> np.ndarray:
    """Performance per unit from its confusion counts, for named measures on binary labels.

    The same numbers as :func:`unit_performance` on the rows the counts were counted from (it computes the same
    counts and the same :func:`metric_from_counts`).

    Args:
        specs: resolved performance option; :func:`counts_suffice` must hold.
        counts: ``(n_units, 4)`` confusion counts (TN, FP, FN, TP).
        nan_policy: "propagate" or "omit" (for a list of measures).

    Returns:
        numpy.ndarray: one value per unit.
    """
    return combine_measures([metric_from_counts(str(spec), counts) for spec in specs], nan_policy)


def count_score(
    result: OpinionExclusionResult,
) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """(cells, score): the cells the bootstrap and the test redraw or permute, and the performance computed from them.

    Confusion counts for the binary measures (accuracy alone only needs (correct, wrong): one binomial per draw
    instead of three); the histogram of absolute errors for the rating measures.
    """
    opts = result.options
    assert opts is not None
    names = [str(s) for s in opts.performance]

    def identity(c: np.ndarray) -> np.ndarray:
        return c

    if opts.needs_ratings:
        if result.unit_cells is None:
            raise ValueError(
                f"intervals for {opts.performance_name} need a discrete rating scale: the absolute errors "
                f"|rating - predicted| take more than {MAX_ERROR_CELLS} distinct values (round the predicted "
                "ratings to the scale, or use ci=None)"
            )
        errors = np.asarray(result.unit_cells, dtype=np.float64)

        def rating_score(c: np.ndarray) -> np.ndarray:  # the core's formula on the redrawn histograms
            return performance_from_histograms(opts.performance, c, errors, opts.nan_policy)

        return identity, rating_score
    if names == ["accuracy"]:
        def cells(c: np.ndarray) -> np.ndarray:
            return np.stack([c[..., TN] + c[..., TP], c[..., FP] + c[..., FN]], axis=-1)

        def score(c: np.ndarray) -> np.ndarray:
            return ratio(c[..., 0].astype(np.float64), (c[..., 0] + c[..., 1]).astype(np.float64))

        return cells, score

    def combined(c: np.ndarray) -> np.ndarray:
        flat = c.reshape(-1, 4).astype(np.float64)
        return performance_from_counts(opts.performance, flat, opts.nan_policy).reshape(c.shape[:-1])

    return identity, combined


# ----------------------------------------------------------------------------------------------
# the whole computation, in named steps
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OpinionExclusionResult:
    """Everything an opinion-exclusion analysis computes (returned by
    :func:`aif360_subjective.sklearn.metrics.opinion_exclusion`; behind every accessor of
    :class:`~aif360_subjective.metrics.OpinionExclusionMetric`).

    Attributes:
        disagreement_rates: ADR per annotator (index ``annotator``; NaN when only dropped ties were annotated).
        annotator_performance: the model's performance per annotator, over all its annotations.
        group_table: index ``group``; columns ``n_annotators``, ``n_annotations``, ``performance``, ``spread``,
            ``n_undefined``.
        unit_performance: one row per (group, annotator) unit: ``group``, ``annotator``, ``n_annotations``,
            ``performance`` (the values averaged per group).
        unfairness: population std (ddof=0) of the groups' performance (undefined groups skipped).
        performance: mean of the groups' performance.
        grouping_summary: what the grouping did (:class:`~aif360_subjective.metrics.GroupingSummary`).
        performance_name: readable name of the performance option.
        options: the validated options the analysis ran with.
        extras: room for additions (kept empty by the core).
        unit_counts: ``(n_units, 4)`` confusion counts (TN, FP, FN, TP; positive = favourable) of every row of
            ``unit_performance``, or for rating measures ("mae", "within_one") the histogram of the absolute
            errors ``|rating - predicted|`` over ``unit_cells``: what the bootstrap of
            :func:`~aif360_subjective.opinion.uncertainty.opinion_intervals` redraws. None when the
            errors take more than :data:`~aif360_subjective.opinion.annotations.MAX_ERROR_CELLS`
            distinct values (no intervals then).
        unit_cells: for rating measures, the distinct absolute errors (the columns of ``unit_counts``).
        unfairness_ci: the confidence interval of the true unfairness
            (:class:`~aif360_subjective.opinion.equal_service.UnfairnessInterval`, a ``(low, high)`` tuple that
            reaches 0 when the spread is indistinguishable from noise, with the debiased unfairness) when the
            analysis was asked for intervals (``ci=``), else None.
        performance_ci: the bootstrap interval of the performance
            (:class:`~aif360_subjective.opinion.bootstrap.BootstrapInterval`) with ``ci=``, else None;
            ``group_table`` then also holds ``ci_low`` and ``ci_high`` (NaN for one-annotator groups).
        row_units: the unit (row of ``unit_performance``) of every annotation row, -1 when ungrouped; None from
            the Dask back end. The crossed bootstrap (``bootstrap_levels="crossed"``) reads it.
        exclusion_test: the test of equal service
            (:class:`~aif360_subjective.opinion.equal_service.ExclusionTest`) when asked for (``ci=`` or
            ``test=True``), else None.
    """

    disagreement_rates: pd.Series
    annotator_performance: pd.Series
    group_table: pd.DataFrame
    unit_performance: pd.DataFrame
    unfairness: float
    performance: float
    grouping_summary: GroupingSummary
    performance_name: str = ""
    options: OpinionOptions | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    unit_counts: np.ndarray | None = None
    unit_cells: np.ndarray | None = None
    unfairness_ci: Any = None
    performance_ci: BootstrapInterval | None = None
    exclusion_test: Any = None
    row_units: np.ndarray | None = field(default=None, repr=False, compare=False)

    def verdict(self, alpha: float | None = None) -> str:
        """The one verdict sentence from the test of equal service and the intervals
        (:func:`~aif360_subjective.opinion.equal_service.verdict_sentence`).

        Raises:
            ValueError: the result carries no test (pass ``ci=`` or ``test=True``).
        """
        from .verdict import verdict_sentence

        return verdict_sentence(self, alpha)

    @property
    def report(self) -> GroupingSummary:
        """Deprecated: the former name of :attr:`grouping_summary` (warns; removed in 0.4)."""
        renamed_member("OpinionExclusionResult.report", "OpinionExclusionResult.grouping_summary")
        return self.grouping_summary


def _std0(x: np.ndarray) -> float:
    x = x[~np.isnan(x)]
    return float(np.std(x)) if len(x) else np.nan


@dataclass(frozen=True)
class GroupCounts:
    """Per-annotator and per-(group, annotator) counts after the grouping and its size rules: everything
    :func:`result_from_counts` builds an opinion-exclusion result from.

    Both back ends build one and call :func:`result_from_counts`: the pandas path from the encoded annotations
    (:func:`compute_opinion_exclusion`), the Dask path from per-partition counts summed over the cluster
    (:mod:`aif360_subjective.opinion._dask`). Integer counts are exact in float64 up to 2**53, so both give the
    same result bit for bit.

    Attributes:
        annotators: the distinct annotator ids (the categories of the annotator codes, as
            :func:`~aif360_subjective.opinion.annotations.encode_annotations` orders them).
        rates: ADR per annotator and the tie counts
            (:class:`~aif360_subjective.opinion.annotations.DisagreementRates`).
        annotator_counts: ``(n_annotators, 4)`` confusion counts (TN, FP, FN, TP) of every annotator.
        unit: what was grouped: "annotator", "item" or "annotation".
        n_units: number of units.
        n_ungrouped_units: units in no kept group (no value, outside the edges, dropped groups).
        labels: the labels of the kept groups (after the size rules).
        group: group code of every (group, annotator) unit, the units sorted by group, then annotator code.
        annotator: annotator code of every unit.
        unit_annotations: the number of annotations of every unit.
        counts: what the bootstrap redraws per unit: ``(n_units, 4)`` confusion counts (TN, FP, FN, TP), or for
            rating measures the histogram of ``|rating - predicted|`` over ``cells`` (None: too many distinct errors,
            :func:`~aif360_subjective.opinion.annotations.rating_error_counts`).
        cells: rating measures: the distinct absolute errors (the columns of ``counts``); else None.
        annotator_errors, annotator_cells: rating measures: every annotator's histogram of absolute errors over
            all its annotations, and its columns (the distinct errors over all annotations); None otherwise or
            with more than :data:`~aif360_subjective.opinion.annotations.MAX_ERROR_CELLS` of them.
        n_annotations: all annotations, grouped or not.
        excluded: what the grouper left out and why, with counts.
        notes: the grouper's notes, then those of the size rules.
        size_notes: the report of
            :func:`~aif360_subjective.opinion.groups.enforce_min_group_size` (``empty``, ``merged``,
            ``dropped``).
        annotator_performance, unit_performance, group_performance: the performance per annotator, per unit and
            (pooled aggregate) per group computed from the annotation rows, for measures confusion counts cannot
            give (callables; measures on ratings whose errors take more than ``MAX_ERROR_CELLS`` values);
            None = computed from the counts (confusion counts, or for measures on ratings the histograms of
            errors, :func:`performance_from_histograms`).
        row_units: the unit (row of ``group``/``annotator``) of every annotation row, -1 when ungrouped (the
            pandas path; None on Dask, which keeps no rows): what the crossed bootstrap reweights by item.
    """

    annotators: pd.Index
    rates: DisagreementRates
    annotator_counts: np.ndarray
    unit: str
    n_units: int
    n_ungrouped_units: int
    labels: pd.Index
    group: np.ndarray
    annotator: np.ndarray
    unit_annotations: np.ndarray
    counts: np.ndarray | None
    n_annotations: int
    cells: np.ndarray | None = None
    excluded: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    size_notes: dict[str, Any] = field(default_factory=dict)
    annotator_errors: np.ndarray | None = None
    annotator_cells: np.ndarray | None = None
    annotator_performance: np.ndarray | None = None
    unit_performance: np.ndarray | None = None
    group_performance: np.ndarray | None = None
    row_units: np.ndarray | None = None


def _pooled_counts(counts: GroupCounts) -> np.ndarray:
    """Counts per group (confusion counts or histograms of errors): the sum of its units' counts."""
    assert counts.counts is not None  # counts whenever the performance comes from counts
    n_groups, width = len(counts.labels), counts.counts.shape[1]
    flat = np.repeat(counts.group * width, width) + np.tile(np.arange(width), len(counts.group))
    return np.bincount(flat, weights=counts.counts.ravel(), minlength=width * n_groups).reshape(n_groups, width)


def result_from_counts(counts: GroupCounts, options: OpinionOptions) -> OpinionExclusionResult:
    """The opinion-exclusion result from per-annotator and per-(group, annotator) counts.

    The steps after the grouping: the performance of every annotator and (group, annotator) unit, the group
    table (annotator mean or pooled performance per group, spread, undefined units), the unfairness
    (population std of the groups' performance), the performance (their mean) and the grouping summary.

    Args:
        counts: the counts (:class:`GroupCounts`).
        options: validated options (:func:`~aif360_subjective.metrics.check_opinion_options`).

    Returns:
        OpinionExclusionResult

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Section 4.1.
    """
    specs, nan_policy = options.performance, options.nan_policy
    from_rows = counts.unit_performance is not None
    histograms = not from_rows and histograms_suffice(specs)
    if histograms and (counts.counts is None or counts.cells is None or counts.annotator_errors is None
                       or counts.annotator_cells is None):
        raise ValueError(f"performance {options.performance_name!r} needs the annotation rows or histograms of "
                         "their absolute errors, not only confusion counts")
    if not from_rows and not histograms and not counts_suffice(specs):
        raise ValueError(f"performance {options.performance_name!r} needs the annotation rows, not only counts")

    def perf(unit_counts: np.ndarray | None, cells: np.ndarray | None) -> np.ndarray:
        assert unit_counts is not None  # checked above
        if histograms:
            assert cells is not None
            return performance_from_histograms(specs, unit_counts, cells, nan_policy)
        return performance_from_counts(specs, unit_counts, nan_policy)

    ann_index = pd.Index(counts.annotators, name="annotator")
    if counts.annotator_performance is not None:
        ann_perf = counts.annotator_performance
    elif histograms:
        ann_perf = perf(counts.annotator_errors, counts.annotator_cells)
    else:
        ann_perf = perf(counts.annotator_counts, None)
    unit_perf = counts.unit_performance if counts.unit_performance is not None else perf(counts.counts, counts.cells)
    n_groups = len(counts.labels)
    g = counts.group
    unit_n = np.asarray(counts.unit_annotations, dtype=np.int64)
    defined = ~np.isnan(unit_perf)
    values = np.where(defined, unit_perf, 0.0)
    k = np.bincount(g, weights=defined, minlength=n_groups)
    mean_ann = ratio(np.bincount(g, weights=values, minlength=n_groups), k)
    mean_sq = ratio(np.bincount(g, weights=values**2, minlength=n_groups), k)
    if options.aggregate == "annotator":
        group_perf = mean_ann
    elif counts.group_performance is not None:
        group_perf = counts.group_performance
    else:
        group_perf = perf(_pooled_counts(counts), counts.cells)
    group_index = pd.Index(counts.labels, name="group", tupleize_cols=False)
    table = pd.DataFrame(
        {
            "n_annotators": np.bincount(g, minlength=n_groups).astype(np.int64),
            "n_annotations": np.bincount(g, weights=unit_n, minlength=n_groups).astype(np.int64),
            "performance": group_perf,
            "spread": np.sqrt(np.maximum(mean_sq - mean_ann**2, 0.0)),
            "n_undefined": np.bincount(g, weights=~defined, minlength=n_groups).astype(np.int64),
        },
        index=group_index,
    )
    units = pd.DataFrame(
        {
            "group": pd.Categorical.from_codes(g, categories=group_index) if n_groups else pd.Categorical([]),
            "annotator": counts.annotators[counts.annotator],
            "n_annotations": unit_n,
            "performance": unit_perf,
        }
    )
    size_notes = counts.size_notes
    summary = GroupingSummary(
        grouping=options.grouping_name,
        unit=counts.unit,
        aggregate=options.aggregate,
        n_units=counts.n_units,
        n_groups=n_groups,
        n_ungrouped_units=counts.n_ungrouped_units,
        n_ungrouped_annotations=int(counts.n_annotations - unit_n.sum()),
        excluded=counts.excluded,
        notes=counts.notes,
        empty_groups=size_notes.get("empty", ()),
        merged_groups=size_notes.get("merged", ()),
        dropped_groups=size_notes.get("dropped", ()),
        undefined_groups=tuple(group_index[np.isnan(group_perf)]),
        n_undefined_units=int((~defined).sum()),
        n_tie_items=counts.rates.n_tie_items,
        n_resolved_tie_items=counts.rates.n_resolved_tie_items,
        tie=options.tie,
    )
    defined_groups = ~np.isnan(group_perf)
    return OpinionExclusionResult(
        disagreement_rates=pd.Series(counts.rates.adr, index=ann_index, name="adr"),
        annotator_performance=pd.Series(ann_perf, index=ann_index, name="performance"),
        group_table=table,
        unit_performance=units,
        unfairness=_std0(group_perf),
        performance=float(np.mean(group_perf[defined_groups])) if defined_groups.any() else np.nan,
        grouping_summary=summary,
        performance_name=options.performance_name,
        options=options,
        unit_counts=counts.counts,
        unit_cells=counts.cells,
        row_units=counts.row_units,
    )


def _row_codes(enc: EncodedAnnotations, unit: str, unit_codes: np.ndarray) -> np.ndarray:
    """Group code of every row from the group code of every unit."""
    if unit == "annotation":
        return unit_codes
    return np.asarray(unit_codes[enc.annotator_codes if unit == "annotator" else enc.item_codes])


def group_counts(
    enc: EncodedAnnotations, options: OpinionOptions, annotator_table: pd.DataFrame | None = None
) -> GroupCounts:
    """The counts of :func:`result_from_counts` from encoded annotations (the pandas path).

    Steps: 1. ADR per annotator; 2. the grouper of ``options.grouping`` gives a group code per unit (annotator,
    item or annotation); 3. empty groups are skipped and groups below ``options.min_group_size`` merged or
    dropped; 4. the confusion counts of every annotator and every (group, annotator) unit; for measures on
    ratings their histograms of absolute errors instead (the performance then comes from them, or from the rows
    when the errors take more than ``MAX_ERROR_CELLS`` values); for callables the performance from the rows.
    """
    rates = disagreement_rates(enc, options.tie, options.adr_reference)
    cross = options.grouping == "adr" and options.adr_fit == "cross"
    fit = cross_fit(enc, options.tie, options.adr_reference) if cross else None
    groups: UnitGroups = (group_by_adr_cross(fit, options, rates) if fit is not None
                          else GROUPERS[options.grouping](enc, options, rates, annotator_table))
    unit_sizes = np.bincount(groups.codes[groups.codes >= 0], minlength=len(groups.labels))
    unit_codes, labels, size_notes = enforce_min_group_size(
        groups.codes, groups.labels, unit_sizes, options.min_group_size, options.small_groups, groups.ordered
    )
    if fit is not None:  # each row takes the group of its annotator's ADR on the other half of the items
        row_codes = unit_codes[fit.half_unit(enc.annotator_codes)]
    else:
        row_codes = _row_codes(enc, groups.unit, unit_codes)
    n_ann = len(enc.annotators)
    rows = np.flatnonzero(row_codes >= 0)
    g_rows = row_codes[rows]
    pair_codes, pair_uniques = pd.factorize(g_rows * np.int64(n_ann) + enc.annotator_codes[rows], sort=True)
    n_pairs = len(pair_uniques)
    cells = ann_errors = ann_cells = None
    if options.needs_ratings:  # histograms of |rating - predicted| (None: too many distinct errors)
        unit_counts, cells = rating_error_counts(enc, rows, pair_codes, n_pairs)
        ann_errors, ann_cells = rating_error_counts(enc, np.arange(enc.n), enc.annotator_codes, n_ann)
    else:
        unit_counts = confusion_counts(pair_codes, n_pairs, cell_codes(enc.t[rows], enc.p[rows]))
    row_units = np.full(enc.n, -1, dtype=np.int64)
    row_units[rows] = pair_codes
    by_rows: dict[str, np.ndarray | None] = {}
    from_histograms = (histograms_suffice(options.performance) and unit_counts is not None
                       and ann_errors is not None)
    if not counts_suffice(options.performance) and not from_histograms:
        specs, policy = options.performance, options.nan_policy
        by_rows["annotator_performance"] = unit_performance(specs, enc.annotator_codes, n_ann, enc,
                                                            nan_policy=policy)
        by_rows["unit_performance"] = unit_performance(specs, pair_codes, n_pairs, enc, rows=rows, nan_policy=policy)
        by_rows["group_performance"] = (unit_performance(specs, g_rows, len(labels), enc, rows=rows,
                                                         nan_policy=policy)
                                        if options.aggregate == "pooled" else None)
    return GroupCounts(
        annotators=enc.annotators,
        rates=rates,
        annotator_counts=confusion_counts(enc.annotator_codes, n_ann, cell_codes(enc.t, enc.p)),
        unit=groups.unit,
        n_units=len(groups.codes),
        n_ungrouped_units=int((unit_codes < 0).sum()),
        labels=labels,
        group=(pair_uniques // n_ann).astype(np.int64),
        annotator=(pair_uniques % n_ann).astype(np.int64),
        unit_annotations=np.bincount(pair_codes, minlength=n_pairs),
        counts=unit_counts,
        n_annotations=enc.n,
        cells=cells,
        excluded=groups.excluded,
        notes=groups.notes + size_notes["notes"],
        size_notes=size_notes,
        annotator_errors=ann_errors,
        annotator_cells=ann_cells,
        row_units=row_units,
        **by_rows,
    )


def compute_opinion_exclusion(
    enc: EncodedAnnotations, options: OpinionOptions, annotator_table: pd.DataFrame | None = None
) -> OpinionExclusionResult:
    """Group, score and summarise a model's performance across annotators (the paper's method).

    Steps: 1. ADR and performance per annotator; 2. the grouper of ``options.grouping`` gives a group code per
    unit (annotator, item or annotation); 3. empty groups are skipped and groups below
    ``options.min_group_size`` merged or dropped; 4. performance of every (group, annotator) unit; 5. the group
    table (annotator mean or pooled performance per group); 6. unfairness (population std of the groups'
    performance) and performance (their mean), with the grouping summary. Steps 1-4 count
    (:func:`group_counts`), steps 5-6 and the performance are :func:`result_from_counts`, the entry point the
    Dask back end calls with the same counts summed over a cluster.

    Args:
        enc: encoded annotations (:func:`~aif360_subjective.opinion.annotations.encode_annotations`).
        options: validated options (:func:`~aif360_subjective.metrics.check_opinion_options`).
        annotator_table: annotator attributes indexed by annotator id ("demographic", "discovered").

    Returns:
        OpinionExclusionResult

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Section 4.1 and "Grouping criteria".
    """
    return result_from_counts(group_counts(enc, options, annotator_table), options)


def individual_figures(result: OpinionExclusionResult) -> pd.Series:
    """Individual-level figures (paper §4.4): spread over annotators, worst group, best group, gap.

    The worst-served group is the one with the lowest performance when higher values are better (accuracy,
    ``"within_one"``, ...) and the one with the highest when lower values are better (``"mae"``, error rates):
    the direction comes from :attr:`OpinionOptions.higher_is_better`.

    Returns:
        pandas.Series: ``annotator_std`` (population std of the per-annotator performance),
        ``worst_group``, ``worst_group_performance``, ``best_group``, ``best_group_performance``,
        ``gap`` (|best - worst| = max - min over the groups, >= 0 in either direction). Undefined values are
        skipped.
    """
    perf = result.group_table["performance"].dropna()
    higher = result.options.higher_is_better if result.options is not None else True
    # positions, not labels: group labels may be tuples (intersections) that label lookup would misread
    values = perf.to_numpy(dtype=np.float64)
    lo, hi = (int(np.argmin(values)), int(np.argmax(values))) if len(perf) else (-1, -1)
    i_worst, i_best = (lo, hi) if higher else (hi, lo)
    return pd.Series(
        {
            "annotator_std": _std0(result.annotator_performance.to_numpy()),
            "worst_group": perf.index[i_worst] if len(perf) else None,
            "worst_group_performance": values[i_worst] if len(perf) else np.nan,
            "best_group": perf.index[i_best] if len(perf) else None,
            "best_group_performance": values[i_best] if len(perf) else np.nan,
            "gap": (perf.max() - perf.min()) if len(perf) else np.nan,
        },
        name="individual",
        dtype=object,
    )
