"""Functional opinion-exclusion metrics in the style of :mod:`aif360.sklearn.metrics`.

Every function takes the annotators' labels ``y_true`` and the model's predictions ``y_pred``
(one per annotation), plus the item and annotator of each annotation, as keyword arguments.
``item_ids`` / ``annotator_ids`` may be arrays aligned with ``y_true``, or the names of levels of
``y_true``'s index (aif360.sklearn keeps per-sample attributes in the index); by default the levels
``"item"`` and ``"annotator"`` are used. They call the same core as
:class:`~aif360_subjective.metrics.OpinionExclusionMetric`.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from aif360_subjective import _dask
from aif360_subjective.metrics._opinion_core import (
    OpinionExclusionResult,
    encode_annotations,
    individual_figures,
)
from aif360_subjective.metrics._opinion_options import opinion_exclusion_result

__all__ = [
    "disagreement_rates",
    "annotator_performance",
    "opinion_exclusion",
    "opinion_group_performance",
    "opinion_unfairness",
    "opinion_performance",
    "opinion_individual_figures",
]

Performance = str | Callable | Sequence


def _ids(y_true, ids, default_level: str, name: str):
    if ids is None or isinstance(ids, str):
        level = default_level if ids is None else ids
        index = getattr(y_true, "index", None)
        if index is None or level not in (index.names or []):
            raise ValueError(
                f"{name} not given and y_true has no index level {level!r}: pass {name} as an array "
                "aligned with y_true, or the name of an index level of y_true"
            )
        return index.get_level_values(level).to_numpy()
    return ids


def opinion_exclusion(
    y_true,
    y_pred,
    *,
    item_ids=None,
    annotator_ids=None,
    grouping: str | pd.Series = "adr",
    bins: int | Sequence[float] | str = 5,
    performance: Performance = "accuracy",
    pos_label=1,
    tie: str = "favorable",
    min_group_size: int = 1,
    small_groups: str = "merge",
    aggregate: str | None = None,
    ambiguity: str = "disagreement",
    annotators: pd.DataFrame | None = None,
    attributes: str | Sequence[str] | None = None,
    nan_policy: str = "propagate",
    clustering="kmeans",
    n_clusters: int | None = None,
    random_state=None,
) -> OpinionExclusionResult:
    """Compute the complete opinion-exclusion analysis.

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
            "f1", a callable ``(y_true, y_pred) -> float``, or a list of them (averaged per unit).
        pos_label: the positive (favourable) label; rates are computed for it and the tie policy
            refers to it.
        tie: majority-vote tie policy: "favorable" (tie -> ``pos_label``), "unfavorable" or "drop".
        min_group_size: minimum units per group (1 = every non-empty group counts, the paper).
        small_groups: "merge" or "drop" the groups below ``min_group_size``.
        aggregate: "annotator" (mean of per-annotator values, default for annotator groupings) or
            "pooled" (performance over the group's annotations, default for ambiguity/popularity).
        ambiguity: "disagreement", "entropy" or "uqs" (1 - CrowdTruth UQS).
        annotators (pandas.DataFrame, optional): annotator attributes indexed by annotator id.
        attributes (str or list, optional): annotator columns for ``grouping="demographic"``.
        nan_policy: for a list of metrics: "propagate" (NaN if one is undefined) or "omit".
        clustering, n_clusters, random_state: for ``grouping="discovered"`` (annotator groups found by
            clustering annotators on their behaviour and ``attributes``; see
            :class:`~aif360_subjective.metrics.OpinionExclusionMetric`).

    Returns:
        OpinionExclusionResult: ``disagreement_rates``, ``annotator_performance``,
        ``group_table``, ``unit_performance``, ``unfairness``, ``performance``, ``report``.

    Raises:
        ValueError: on misaligned or non-binary inputs and invalid options.

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in
        Machine Learning. Section 4.1.

    Examples:
        >>> res = opinion_exclusion([1, 0, 1, 1], [1, 1, 1, 1], item_ids=[0, 0, 1, 1],
        ...                         annotator_ids=["a", "b", "a", "b"], bins=2)
        >>> round(res.unfairness, 3), round(res.performance, 3)
        (0.25, 0.75)
    """
    if _dask.is_dask_collection(y_true):  # Dask Series: the distributed path, same arguments
        return _dask.opinion_exclusion(**locals())
    enc = encode_annotations(
        y_true,
        y_pred,
        _ids(y_true, item_ids, "item", "item_ids"),
        _ids(y_true, annotator_ids, "annotator", "annotator_ids"),
        pos_label=pos_label,
    )
    return opinion_exclusion_result(
        enc, grouping, ambiguity=ambiguity, annotator_table=annotators, attributes=attributes, tie=tie,
        clustering=clustering, n_clusters=n_clusters, random_state=random_state, bins=bins,
        performance=performance, min_group_size=min_group_size, small_groups=small_groups,
        aggregate=aggregate, nan_policy=nan_policy,
    )


def disagreement_rates(
    y_true, *, item_ids=None, annotator_ids=None, pos_label=1, tie: str = "favorable"
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
    y_true,
    y_pred,
    *,
    item_ids=None,
    annotator_ids=None,
    performance: Performance = "accuracy",
    pos_label=1,
    nan_policy: str = "propagate",
) -> pd.Series:
    """Performance of the predictions for each annotator (over all its annotations).

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
    ).annotator_performance


def opinion_group_performance(y_true, y_pred, **kwargs) -> pd.DataFrame:
    """Group table (n_annotators, n_annotations, performance, spread, n_undefined) per group.

    Keyword arguments as in :func:`opinion_exclusion`.
    """
    return opinion_exclusion(y_true, y_pred, **kwargs).group_table


def opinion_unfairness(y_true, y_pred, **kwargs) -> float:
    """Unfairness: population standard deviation (ddof=0) of the groups' performance.

    Keyword arguments as in :func:`opinion_exclusion`. Groups with undefined performance are skipped.
    """
    return opinion_exclusion(y_true, y_pred, **kwargs).unfairness


def opinion_performance(y_true, y_pred, **kwargs) -> float:
    """General performance: mean of the groups' performance.

    Keyword arguments as in :func:`opinion_exclusion`.
    """
    return opinion_exclusion(y_true, y_pred, **kwargs).performance


def opinion_individual_figures(y_true, y_pred, **kwargs) -> pd.Series:
    """Individual-level figures: std over annotators, worst/best group and their gap.

    Keyword arguments as in :func:`opinion_exclusion`.
    """
    return individual_figures(opinion_exclusion(y_true, y_pred, **kwargs))

