"""Functional opinion-exclusion metrics in the style of :mod:`aif360.sklearn.metrics`.

Every function takes the annotators' labels ``y_true`` and the model's predictions ``y_pred``
(one per annotation), plus the item and annotator of each annotation, as keyword arguments.
``item_ids`` / ``annotator_ids`` may be arrays aligned with ``y_true``, or the names of levels of
``y_true``'s index (aif360.sklearn keeps per-sample attributes in the index); by default the levels
``"item"`` and ``"annotator"`` are used. They call the same core as
:class:`~aif360_subjective.metrics.OpinionExclusionMetric`.

Input contract (the same on pandas and on Dask, and the dataset class's): inputs are paired **by position**;
pandas Series among them must share one index (a Series sorted or filtered on its own is refused with a
ValueError naming it, never re-paired silently); Dask Series must be columns of one collection (same partitions,
each partition's index equal across the inputs). Missing labels, predictions or ids are refused with their rows
counted, and so is an (item, annotator) pair given twice (the dataset class's message).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._dask import is_dask_collection
from .._spark import is_spark_dataframe
from .._validation import check_choice, check_random_state, check_same_index
from .annotations import binary_view, check_unique_pairs, encode_annotations, ids_or_level
from .core import (
    OpinionExclusionResult,
    compute_opinion_exclusion,
    individual_figures,
)
from .data_form import data_columns
from .design import warn_design
from .equal_service import attach_test, exclusion_test
from .options import ADJUSTMENTS, check_interval_options, check_opinion_options, check_test_options
from .uncertainty import opinion_intervals, warn_single_group, warn_thin_groups, with_intervals

__all__ = [
    "disagreement_rates",
    "annotator_performance",
    "opinion_exclusion",
    "opinion_group_performance",
    "opinion_unfairness",
    "opinion_performance",
    "opinion_individual_figures",
]

Performance = str | Callable[..., float] | Sequence[Any]


def opinion_exclusion(
    y_true: Any,
    y_pred: Any,
    *,
    item_ids: Any = None,
    annotator_ids: Any = None,
    grouping: str | pd.Series = "adr",
    bins: int | Sequence[float] | str = 5,
    performance: Performance = "accuracy",
    pos_label: Any = 1,
    tie: str = "favorable",
    min_group_size: int = 1,
    small_groups: str = "merge",
    aggregate: str | None = None,
    ambiguity: str = "disagreement",
    annotators: pd.DataFrame | None = None,
    attributes: str | Sequence[str] | None = None,
    nan_policy: str = "propagate",
    clustering: Any = "kmeans",
    n_clusters: int | None = None,
    random_state: Any = None,
    warn_group_size: int = 5,
    ci: float | None = None,
    n_boot: int = 1000,
    bootstrap_levels: str = "both",
    positive_from: float | None = None,
    greater_is_better: bool | None = None,
    adr_reference: str = "majority",
    adr_fit: str = "same",
    test: bool | None = None,
    n_permutations: int = 9999,
    test_statistic: str = "studentized",
    test_adjust: str = "none",
    data: Any = None,
) -> OpinionExclusionResult:
    """Compute the complete opinion-exclusion analysis.

    Ordinal ratings: with ``positive_from`` given, ``y_true`` and ``y_pred`` are the annotators' and the predicted
    ratings (e.g. POPQUORN 1-5, CSC 1-6). ``performance="mae"`` / ``"within_one"`` compare them; the majority
    vote, the ADR and the other groupings use the binary view ``rating >= positive_from`` (coded 1, the others
    0; ``pos_label`` says which of the two is the positive class the tie policy refers to), as the loaders build
    their labels (``PopquornDataset(positive_from=3)``: label 1 = offensive, favourable 0, i.e. ``pos_label=0``
    here gives :class:`~aif360_subjective.metrics.OpinionExclusionMetric`'s result with ``rating_column="rating"``).
    ADR on ratings is therefore the paper's disagreement with the binary majority vote (see the class for why).

    Args:
        y_true (array-like or pandas.Series): the annotators' labels, one per annotation.
        y_pred (array-like): the model's prediction for each annotation.
        item_ids (array-like or str, optional): item of each annotation, or an index level name of
            ``y_true`` (default level ``"item"``).
        annotator_ids (array-like or str, optional): annotator of each annotation, or an index level
            name (default level ``"annotator"``).
        grouping: "adr" (annotators by average disagreement rate with the majority vote),
            "ambiguity" (items by the disagreement of their annotations), "popularity"
            (annotations by the share of identical labels on their item), "demographic"
            (annotators by ``attributes`` of the ``annotators`` table, intersections for several),
            "discovered" (annotators clustered on their behaviour, plus ``attributes`` if named), or a
            pandas Series mapping annotator ids to group labels.
        bins: int (equal-width bins over the observed range, :func:`pandas.cut` semantics), a
            sequence of increasing edges (right-closed, lowest included) or ``"quantile:N"``.
        performance: "accuracy", "balanced_accuracy", "true_positive_rate",
            "true_negative_rate", "false_positive_rate", "false_negative_rate", "precision",
            "f1", "mae" or "within_one" (on ratings: ``positive_from`` needed), a callable
            ``(y_true, y_pred) -> float`` (given the ratings when ``positive_from`` is set), or a list of them
            (averaged per unit; one kind and one direction).
        pos_label: the positive (favourable) label; rates are computed for it and the tie policy
            refers to it. The default 1 is AIF360's scikit-learn convention; the class face
            (:class:`~aif360_subjective.metrics.OpinionExclusionMetric`) takes the dataset's ``favorable_label``
            instead, which the loaders of detection tasks set to 0 ("not offensive"). On such data pass
            ``pos_label=0`` for the class face's figures: the majority vote's ties then go to the same label
            (POPQUORN, majority-vote predictions: unfairness 0.2008 with ``pos_label=0`` and from the class, 0.2025
            with the default 1; ``tests/opinion/test_opinion_pos_label.py``).
        tie: majority-vote tie policy: "favorable" (tie -> ``pos_label``), "unfavorable" or "drop".
        min_group_size: minimum units per group (1 = every non-empty group counts, the paper).
        small_groups: "merge" or "drop" the groups below ``min_group_size``.
        aggregate: "annotator" (mean of per-annotator values, default for annotator groupings) or
            "pooled" (performance over the group's annotations, default for ambiguity/popularity).
        ambiguity: "disagreement", "entropy" or "uqs" (1 - CrowdTruth UQS).
        annotators (pandas.DataFrame, optional): annotator attributes indexed by annotator id.
        attributes (str or list, optional): annotator columns for ``grouping="demographic"`` (default: every
            column of ``annotators``, as the metric class defaults to the dataset's protected attributes).
        nan_policy: for a list of metrics: "propagate" (NaN if one is undefined) or "omit".
        clustering, n_clusters, random_state: for ``grouping="discovered"`` (annotator groups found by
            clustering annotators on their behaviour and ``attributes``; see
            :class:`~aif360_subjective.metrics.OpinionExclusionMetric`). ``random_state`` also seeds the
            bootstrap.
        warn_group_size: a UserWarning names every group with fewer annotators, with its share of the
            unfairness (0 = never).
        ci: confidence level of bootstrap intervals for the unfairness, the performance and every group
            (None = no intervals, the paper's figures only).
        n_boot: bootstrap replicates (>= 100).
        bootstrap_levels: "both" (annotators within groups, then their annotations; the intervals are conditional
            on the items annotated), "crossed" (annotators within groups and items: not conditional on the
            items; pandas only) or "annotators" (too narrow for small groups); see
            :meth:`~aif360_subjective.metrics.OpinionExclusionMetric.unfairness_ci`.
        positive_from (float, optional): ``y_true`` and ``y_pred`` are ratings; the binary view for the
            majority vote is ``rating >= positive_from`` (see above).
        greater_is_better (bool, optional): the direction of callable measures (named ones carry their own:
            lower is better for "mae", "false_positive_rate", "false_negative_rate").
        adr_reference: "majority" (ADR against the binary majority vote) or "median" (against the item's median
            rating, with ``positive_from``), as in :class:`~aif360_subjective.metrics.OpinionExclusionMetric`.
        adr_fit: "same" (the paper's ADR bins, fitted on the annotations the performance is scored on) or
            "cross" (cross-fitted: each annotation's group comes from its annotator's ADR on the other half of
            the items, which removes the sorting artefact that makes identical annotators look unequal).
        test: compute the test of equal service (``result.exclusion_test``): None = whenever ``ci`` is given,
            True = also without ``ci``, False = never. On Dask the cross-fitted test of ADR groups reads per
            (annotator, half of its items) counts from one more pass: the same test as on pandas.
        n_permutations: permutations of the test (>= 99; all distinct ones when there are no more).
        test_statistic: "studentized" (default: Welch-type, valid when the annotators' annotation counts differ,
            and it tests every group against the rest, max-T adjusted), "between" (the size-weighted between-group
            sum of squares, the former default: it assumes exchangeable annotators) or "std" (the unfairness
            itself).
        test_adjust: "none" or "items": the test compares each annotation with the other annotations of the same
            item, so that a group that saw harder items is not called served worse (pandas only).
        data (pandas, Dask or Spark DataFrame, optional): the annotations; ``y_true``, ``y_pred``, ``item_ids`` and
            ``annotator_ids`` then name its columns. A Spark DataFrame is counted on its executors
            (``docs/guide/spark.rst``): the same result as pandas, the options Dask refuses refused alike.

    Returns:
        OpinionExclusionResult: ``disagreement_rates``, ``annotator_performance``,
        ``group_table``, ``unit_performance``, ``unfairness``, ``performance``, ``grouping_summary``,
        ``options``; with ``ci``, ``unfairness_ci`` (reaches 0 when the spread is indistinguishable from noise),
        ``performance_ci`` and the ``ci_low``/``ci_high`` columns of ``group_table``; with ``ci`` or ``test=True``,
        ``exclusion_test`` and :meth:`~aif360_subjective.opinion.core.OpinionExclusionResult.verdict`.

    Raises:
        ValueError: on misaligned or non-binary inputs and invalid option values.
        TypeError: an option of the wrong type (the same exception and message as
            :class:`~aif360_subjective.metrics.OpinionExclusionMetric` for every option).

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in
        Machine Learning. Section 4.1.

    Examples:
        >>> res = opinion_exclusion([1, 0, 1, 1], [1, 1, 1, 1], item_ids=[0, 0, 1, 1],
        ...                         annotator_ids=["a", "b", "a", "b"], bins=2)
        >>> round(res.unfairness, 3), round(res.performance, 3)
        (0.25, 0.75)
    """
    option_args: dict[str, Any] = dict(
        grouping=grouping, bins=bins, performance=performance, tie=tie, min_group_size=min_group_size,
        small_groups=small_groups, aggregate=aggregate, ambiguity=ambiguity, attributes=attributes,
        nan_policy=nan_policy, clustering=clustering, n_clusters=n_clusters, random_state=random_state,
        warn_group_size=warn_group_size, greater_is_better=greater_is_better, adr_reference=adr_reference,
        adr_fit=adr_fit,
    )
    if test is not None and not isinstance(test, bool | np.bool_):
        raise TypeError(f"test must be None, True or False, got {test!r}")
    run_test = bool(test) if test is not None else ci is not None
    test_options = check_test_options(n_permutations, test_statistic) if run_test else None
    check_choice(test_adjust, "test_adjust", ADJUSTMENTS)
    enc = None
    halves = None
    if is_spark_dataframe(data) or is_dask_collection(data, y_true, y_pred, item_ids, annotator_ids):
        from ._dask import distributed_face  # Dask or PySpark is imported only when one of their tables arrives

        # Dask or Spark: the same options check and the same core after the counts (counted on the cluster)
        result, interval, halves = distributed_face(
            data, y_true, y_pred, item_ids, annotator_ids, annotators=annotators, pos_label=pos_label,
            positive_from=positive_from, option_args=option_args, ci=ci, n_boot=n_boot,
            bootstrap_levels=bootstrap_levels, test_adjust=test_adjust if test_options is not None else "none",
            test=test_options is not None,
        )
    else:
        y_true, y_pred, item_ids, annotator_ids = data_columns(data, y_true, y_pred, item_ids, annotator_ids)
        # Series are paired by position (as arrays are); a Series with another index is refused, not reordered
        check_same_index({"y_true": y_true, "y_pred": y_pred, "item_ids": item_ids, "annotator_ids": annotator_ids})
        ratings = None
        y_true_view, y_pred_view = y_true, y_pred
        if positive_from is not None:
            y_true_view, y_pred_view, ratings = binary_view(y_true, y_pred, positive_from, pos_label)
        enc = encode_annotations(
            y_true_view,
            y_pred_view,
            ids_or_level(y_true, item_ids, "item", "item_ids"),
            ids_or_level(y_true, annotator_ids, "annotator", "annotator_ids"),
            pos_label=pos_label,
            ratings=ratings,
        )
        # the dataset class's rule (and message): one label per annotator and item
        check_unique_pairs(enc.item_codes, enc.annotator_codes, enc.items, enc.annotators)
        options = check_opinion_options(
            annotators=enc.annotators,
            annotator_table=annotators,
            default_attributes=() if annotators is None else list(annotators.columns),
            has_ratings=ratings is not None,
            **option_args,
        )
        interval = None if ci is None else check_interval_options(ci, n_boot, bootstrap_levels, options.performance)
        result = compute_opinion_exclusion(enc, options, annotators)
    warn_thin_groups(result)
    warn_single_group(result)
    if enc is not None:
        warn_design(enc)
    rng = check_random_state(random_state)  # one stream: the bootstrap, then the test
    if interval is not None:
        result = with_intervals(result, opinion_intervals(result, interval, rng, enc))
    if test_options is not None:
        result = attach_test(result, exclusion_test(
            result, enc, n_permutations=test_options.n_permutations, statistic=test_options.statistic,
            adjust=test_adjust, random_state=rng, halves=halves))
    return result


def disagreement_rates(
    y_true: Any, *, item_ids: Any = None, annotator_ids: Any = None, pos_label: Any = 1, tie: str = "favorable"
) -> pd.Series:
    """Average disagreement rate (ADR) of every annotator with the items' majority vote.

    Args:
        y_true: the annotators' labels; ``item_ids``, ``annotator_ids``, ``pos_label``, ``tie`` as
            in :func:`opinion_exclusion`.

    Returns:
        pandas.Series: ADR indexed by annotator id (NaN when only dropped ties were annotated).
    """
    return opinion_exclusion(
        y_true, y_true, item_ids=item_ids, annotator_ids=annotator_ids, pos_label=pos_label, tie=tie
    ).disagreement_rates


def annotator_performance(
    y_true: Any,
    y_pred: Any,
    *,
    item_ids: Any = None,
    annotator_ids: Any = None,
    performance: Performance = "accuracy",
    pos_label: Any = 1,
    nan_policy: str = "propagate",
    positive_from: float | None = None,
) -> pd.Series:
    """Performance of the predictions for each annotator (over all its annotations).

    With ``positive_from``, ``y_true``/``y_pred`` are ratings (for ``performance="mae"`` or ``"within_one"``), as
    in :func:`opinion_exclusion`.

    Returns:
        pandas.Series: indexed by annotator id; NaN where the metric is undefined.
    """
    return opinion_exclusion(
        y_true,
        y_pred,
        item_ids=item_ids,
        annotator_ids=annotator_ids,
        performance=performance,
        pos_label=pos_label,
        nan_policy=nan_policy,
        positive_from=positive_from,
    ).annotator_performance


def opinion_group_performance(y_true: Any, y_pred: Any, **kwargs: Any) -> pd.DataFrame:
    """Group table (n_annotators, n_annotations, performance, spread, n_undefined) per group.

    Keyword arguments as in :func:`opinion_exclusion`.
    """
    return opinion_exclusion(y_true, y_pred, **kwargs).group_table


def opinion_unfairness(y_true: Any, y_pred: Any, **kwargs: Any) -> float:
    """Unfairness: population standard deviation (ddof=0) of the groups' performance.

    Keyword arguments as in :func:`opinion_exclusion`. Groups with undefined performance are skipped.
    """
    return opinion_exclusion(y_true, y_pred, **kwargs).unfairness


def opinion_performance(y_true: Any, y_pred: Any, **kwargs: Any) -> float:
    """General performance: mean of the groups' performance.

    Keyword arguments as in :func:`opinion_exclusion`.
    """
    return opinion_exclusion(y_true, y_pred, **kwargs).performance


def opinion_individual_figures(y_true: Any, y_pred: Any, **kwargs: Any) -> pd.Series:
    """Individual-level figures: std over annotators, worst/best group and their gap.

    Keyword arguments as in :func:`opinion_exclusion`.
    """
    return individual_figures(opinion_exclusion(y_true, y_pred, **kwargs))


