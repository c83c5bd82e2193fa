"""Performance per demographic group against that group's own labels, and the worst-group gap (DICES-style).

A model that predicts one label per item is scored, for each group of annotators (e.g. raters of one race),
against the labels *that group* gave: either the group's own majority label per item (``against="majority"``:
the item counts once per group that labelled it; the group's ties follow ``tie``) or every annotation of the
group (``against="annotations"``: pooled agreement with the group's annotators). The worst-group gap is the
best group's performance minus the worst group's.

This is the analysis of DICES (Aroyo et al., 2023), where the safety judgement of a conversation is compared
across rater groups, applied to a model's predictions; it complements opinion exclusion (which groups
annotators by their disagreement with the overall majority) by grouping them by who they are.

References:
    L. Aroyo et al., "DICES Dataset: Diversity in Conversational AI Evaluation for Safety", NeurIPS 2023.
    S. Akhtar, V. Basile, V. Patti, "Whose opinions matter? Perspective-aware models to identify opinions of
    hate speech victims in abusive language detection", 2021 (target vs control group labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from aif360.metrics import Metric

from .._labels import check_tie, ratio
from .._validation import check_choice, plain
from ..datasets.multi_annotator import check_multi_annotator_dataset

__all__ = ["GroupOwnLabels", "group_own_label_performance", "GroupOwnLabelsMetric"]

_AGAINST = ("majority", "annotations")


@dataclass(frozen=True)
class GroupOwnLabels:
    """Result of :func:`group_own_label_performance`.

    Attributes:
        table: indexed by group: ``n_annotations``, ``n_items`` (items the group labelled), ``n_ties`` (items
            whose group majority is tied), ``n_scored`` (items or annotations scored), ``performance``
            (accuracy of the predictions against the group's own labels).
        worst_group, best_group: the groups with the lowest and highest performance.
        gap: best minus worst performance (0 with one group).
    """

    table: pd.DataFrame
    worst_group: object
    best_group: object
    gap: float


def group_own_label_performance(
    y_true: Any,
    y_pred: Any,
    *,
    item_ids: Any,
    groups: Any,
    against: str = "majority",
    tie: str = "drop",
    favorable_label: Any = 0,
    unfavorable_label: Any = 1,
) -> GroupOwnLabels:
    """Accuracy of item-level predictions against each group's own labels, and the worst-group gap.

    Args:
        y_true: each annotator's label, one per annotation (two label values).
        y_pred: the model's prediction for the annotation's item (one label per item: if it differs between
            an item's rows the item-level prediction is ambiguous and an error is raised).
        item_ids: the item of each annotation.
        groups: the group of each annotation's annotator (e.g. ``dataset.annotators["rater_race"]`` mapped to
            the rows); missing values are left out (counted as ``n_ungrouped`` in ``table.attrs``).
        against: ``"majority"`` (the group's majority label per item) or ``"annotations"`` (each of the
            group's annotations).
        tie: with ``"majority"``, a group's tied item is ``"drop"`` (not scored, counted in ``n_ties``),
            ``"favorable"`` or ``"unfavorable"``.
        favorable_label, unfavorable_label: the two label values (ties resolve to them).

    Returns:
        GroupOwnLabels

    Raises:
        ValueError: lengths differ, unknown option, labels outside the two values, predictions that differ
            within an item, or no group with a scored item.

    References:
        L. Aroyo et al., "DICES Dataset: Diversity in Conversational AI Evaluation for Safety", NeurIPS 2023.
    """
    check_choice(against, "against", _AGAINST)
    check_tie(tie)
    arrays = [np.asarray(a.to_numpy() if isinstance(a, pd.Series) else a) for a in (y_true, y_pred, item_ids, groups)]
    yt, yp, items, grp = arrays
    if yt.ndim != 1 or yt.size == 0 or any(a.shape != yt.shape for a in arrays):
        raise ValueError("y_true, y_pred, item_ids and groups must be non-empty 1-d arrays of one length, got "
                         f"shapes {[a.shape for a in arrays]}")
    for name, a in (("y_true", yt), ("y_pred", yp)):
        bad = ~np.isin(a, [favorable_label, unfavorable_label])
        if bad.any():
            raise ValueError(f"{name} has {int(bad.sum())} value(s) outside "
                             f"{{{favorable_label}, {unfavorable_label}}}, e.g. {plain(a[bad][0])!r}")
    icodes, uniq_items = pd.factorize(items)
    n_items = len(uniq_items)
    pos_pred = (yp == unfavorable_label).astype(np.float64)
    per_item = np.bincount(icodes, weights=pos_pred, minlength=n_items) / np.bincount(icodes, minlength=n_items)
    mixed = (per_item > 0) & (per_item < 1)
    if mixed.any():
        raise ValueError(f"y_pred must be one label per item; item {plain(uniq_items[np.flatnonzero(mixed)[0]])!r} "
                         f"has different predictions on its rows ({int(mixed.sum())} item(s))")
    ok = ~pd.isna(grp)
    gcodes, uniq_groups = pd.factorize(grp[ok])
    n_groups = len(uniq_groups)
    if n_groups == 0:
        raise ValueError("groups has no value: every annotation is ungrouped")
    ic, t, p = icodes[ok], (yt[ok] == unfavorable_label), pos_pred[ok] == 1.0
    key = gcodes.astype(np.int64) * n_items + ic
    n_ann_cell = np.bincount(key, minlength=n_groups * n_items).reshape(n_groups, n_items)
    n_pos_cell = np.bincount(key, weights=t.astype(np.float64), minlength=n_groups * n_items).reshape(n_groups,
                                                                                                     n_items)
    labelled = n_ann_cell > 0
    item_pred = per_item == 1.0
    ties = labelled & (2 * n_pos_cell == n_ann_cell)
    if against == "majority":
        maj = 2 * n_pos_cell > n_ann_cell
        if tie != "drop":
            maj = np.where(ties, tie == "unfavorable", maj)
        scored = labelled & ~ties if tie == "drop" else labelled
        correct = scored & (maj == item_pred[None, :])
        n_scored = scored.sum(axis=1)
        n_correct = correct.sum(axis=1)
    else:
        agree = (t == p).astype(np.float64)
        n_scored = np.bincount(gcodes, minlength=n_groups)
        n_correct = np.bincount(gcodes, weights=agree, minlength=n_groups)
    perf = ratio(n_correct, n_scored)
    ann_per_group = pd.Series(grp[ok]).groupby(gcodes).size().to_numpy()
    table = pd.DataFrame(
        {"n_annotations": ann_per_group, "n_items": labelled.sum(axis=1), "n_ties": ties.sum(axis=1),
         "n_scored": n_scored.astype(np.int64), "performance": perf},
        index=pd.Index(uniq_groups, name="group"),
    )
    table.attrs["n_ungrouped"] = int((~ok).sum())
    defined = table["performance"].dropna()
    if defined.empty:
        raise ValueError("no group has a scored item (every group item is a dropped tie)")
    worst, best = defined.idxmin(), defined.idxmax()
    return GroupOwnLabels(table, plain(worst), plain(best), float(defined.max() - defined.min()))


class GroupOwnLabelsMetric(Metric):
    """Per-group performance against the group's own labels, on AIF360 datasets.

    Args:
        dataset (MultiAnnotatorDataset): the annotations; ``attribute`` names a column of ``dataset.annotators``.
        classified_dataset (MultiAnnotatorDataset): same rows, one prediction per item (broadcast to its rows,
            e.g. ``dataset.with_predictions(series_indexed_by_item)``).
        attribute: the annotator attribute defining the groups (e.g. ``"rater_race"``, ``"group"``).
        against, tie: as in :func:`group_own_label_performance`.

    References:
        L. Aroyo et al., "DICES Dataset: Diversity in Conversational AI Evaluation for Safety", NeurIPS 2023.
    """

    def __init__(self, dataset: Any, classified_dataset: Any, attribute: str, *, against: str = "majority",
                 tie: str = "drop") -> None:
        check_multi_annotator_dataset(dataset, "dataset")
        check_multi_annotator_dataset(classified_dataset, "classified_dataset")
        super().__init__(dataset)
        if not (np.array_equal(classified_dataset.item_ids, dataset.item_ids)
                and np.array_equal(classified_dataset.annotator_ids, dataset.annotator_ids)):
            raise ValueError("classified_dataset must hold the same (item, annotator) rows as dataset, in order")
        if attribute not in dataset.annotators.columns:
            raise ValueError(f"attribute={attribute!r} is not an annotator attribute; attributes are "
                             f"{list(dataset.annotators.columns)}")
        self.classified_dataset = classified_dataset
        self.attribute = attribute
        self.against = against
        self.tie = tie

    def _result(self) -> GroupOwnLabels:
        groups = self.dataset.annotators[self.attribute].reindex(pd.Index(self.dataset.annotator_ids)).to_numpy()
        return group_own_label_performance(
            self.dataset.labels.ravel(), self.classified_dataset.labels.ravel(), item_ids=self.dataset.item_ids,
            groups=groups, against=self.against, tie=self.tie, favorable_label=self.dataset.favorable_label,
            unfavorable_label=self.dataset.unfavorable_label)

    def group_performance(self) -> pd.DataFrame:
        """The per-group table (see :class:`GroupOwnLabels`)."""
        return self._result().table

    def worst_group_gap(self) -> float:
        """Best minus worst group performance."""
        return self._result().gap

    def worst_group(self) -> Any:
        """The group with the lowest performance."""
        return self._result().worst_group
