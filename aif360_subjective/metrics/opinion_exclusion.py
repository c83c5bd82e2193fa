"""Opinion-exclusion unfairness: how unequally a model serves the opinions of different annotators.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4 (grouping criteria, evaluation method, Figure 3, Table 2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from aif360.decorating_metaclass import dont_decorate
from aif360.metrics import ClassificationMetric

from ._opinion_core import (
    AGGREGATES,
    AMBIGUITY_MEASURES,
    NAN_POLICIES,
    TIE_POLICIES,
    OpinionExclusionResult,
    check_choice,
    encode_annotations,
    individual_figures,
    resolve_performance,
)
from ._opinion_groups import GroupingReport, validate_bins
from ._opinion_options import (
    GROUPING_NAMES,
    check_discovered_options,
    check_grouping_series,
    opinion_exclusion_result,
)

__all__ = ["OpinionExclusionMetric"]


def _check_same_pairs(dataset, classified_dataset) -> None:
    for name, ds in (("dataset", dataset), ("classified_dataset", classified_dataset)):
        if not (hasattr(ds, "item_ids") and hasattr(ds, "annotator_ids")):
            raise TypeError(
                f"{name} must be a MultiAnnotatorDataset (one row per (item, annotator) annotation), "
                f"got {type(ds).__name__}"
            )
    a_items, a_anns = np.asarray(dataset.item_ids), np.asarray(dataset.annotator_ids)
    b_items, b_anns = np.asarray(classified_dataset.item_ids), np.asarray(classified_dataset.annotator_ids)
    if len(a_items) != len(b_items):
        raise ValueError(
            "dataset and classified_dataset must hold the same (item, annotator) rows: "
            f"{len(a_items)} vs {len(b_items)} rows"
        )
    differ = (a_items != b_items) | (a_anns != b_anns)
    if differ.any():
        first = int(np.flatnonzero(differ)[0])
        same_set = pd.MultiIndex.from_arrays([a_items, a_anns]).sort_values().equals(
            pd.MultiIndex.from_arrays([b_items, b_anns]).sort_values()
        )
        hint = (
            "they hold the same pairs in another order: use dataset.align_datasets(classified_dataset)"
            if same_set
            else "predict on the same dataset (e.g. dataset.with_predictions(pred))"
        )
        raise ValueError(
            "dataset and classified_dataset must hold the same (item, annotator) rows in the same order: "
            f"{int(differ.sum())} rows differ, first at row {first} "
            f"({a_items[first]!r}, {a_anns[first]!r}) vs ({b_items[first]!r}, {b_anns[first]!r}); {hint}"
        )


class OpinionExclusionMetric(ClassificationMetric):
    """Opinion-exclusion unfairness of a classifier over the annotations of a multi-annotator dataset.

    A model is unfair to subjective opinions when its performance is unequal across the people whose
    opinions it should serve. The method (Balayn et al. 2019, §4.1): a) group the annotators by their
    average disagreement rate (ADR) with the majority vote; b) compute the model's performance for
    each annotator and average it within each group; c) the standard deviation across the groups'
    values quantifies unfairness, their mean the general performance.

    ``dataset`` holds the annotators' labels and ``classified_dataset`` the model's prediction for
    each (item, annotator) row: a traditional model predicts the same label for all annotators of an
    item, an annotator-aware one may differ. Being a :class:`~aif360.metrics.ClassificationMetric`
    over the annotation rows, every AIF360 metric works too, e.g. with annotator demographics as
    privileged and unprivileged groups. Positive class = the favourable label (AIF360 convention).

    Other groupings (§4, "Grouping criteria"): ``"ambiguity"`` (items by the disagreement of their
    annotations), ``"popularity"`` (annotations by the share of identical labels on their item),
    ``"demographic"`` (annotator attributes and their intersections) or any pandas Series mapping
    annotator ids to groups.

    Degenerate data: with one annotator, items annotated once, or annotators who always agree, every
    ADR is 0 (an annotator alone on an item is its majority), so there is one group and unfairness is 0.
    A performance measure undefined for every group (e.g. precision when the model never predicts the
    favourable label) gives NaN unfairness and performance, the groups being listed in
    ``grouping_report().undefined_groups``.

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Section 4.
    """

    def __init__(
        self,
        dataset,
        classified_dataset,
        grouping: str | pd.Series = "adr",
        bins: int | Sequence[float] | str = 5,
        performance: str | Callable | Sequence = "accuracy",
        tie: str = "favorable",
        min_group_size: int = 1,
        small_groups: str = "merge",
        aggregate: str | None = None,
        ambiguity: str = "disagreement",
        attributes: str | Sequence[str] | None = None,
        nan_policy: str = "propagate",
        unprivileged_groups: list[dict] | None = None,
        privileged_groups: list[dict] | None = None,
        clustering="kmeans",
        n_clusters: int | None = None,
        random_state=None,
    ):
        """
        Args:
            dataset (MultiAnnotatorDataset): the annotators' labels.
            classified_dataset (MultiAnnotatorDataset): the predictions, same (item, annotator) rows
                in the same order (e.g. ``dataset.with_predictions(pred)`` or a model's ``predict``).
            grouping: "adr", "ambiguity", "popularity", "demographic", "discovered", or a pandas
                Series mapping annotator ids to group labels (annotators missing from it are left out and reported).
            bins: for "adr", "ambiguity", "popularity": an int = that many equal-width bins over the
                observed range (:func:`pandas.cut` semantics); a sequence of strictly increasing edges
                (right-closed, lowest included); or ``"quantile:N"``.
            performance: "accuracy", "balanced_accuracy", "true_positive_rate",
                "true_negative_rate", "false_positive_rate", "false_negative_rate", "precision", "f1",
                a callable ``(y_true, y_pred) -> float`` (called with the datasets' label values, once
                per annotator/group), or a list of them, averaged per annotator (see ``nan_policy``).
            tie: majority-vote tie policy for the ADR: "favorable", "unfavorable" or "drop" (tied
                items are then not counted in the ADR).
            min_group_size: minimum number of units (annotators; items for "ambiguity"; annotations
                for "popularity") per group. 1 (default) = every non-empty group counts (the paper).
            small_groups: "merge" (adjacent bins; unordered groups pooled into "other") or "drop".
            aggregate: "annotator" (mean of per-annotator performance in the group, the paper's
                method, default for annotator groupings) or "pooled" (performance over the group's
                annotations, default for "ambiguity" and "popularity").
            ambiguity: item ambiguity for "ambiguity": "disagreement" (share of minority labels),
                "entropy" or "uqs" (1 - CrowdTruth unit quality score).
            attributes: annotator attribute(s) for "demographic" (several = intersections; default:
                the dataset's protected attributes) or added to the behaviour profile for "discovered".
            nan_policy: how a list of performance metrics combines undefined values: "propagate"
                (undefined if any is) or "omit" (mean of the defined ones).
            unprivileged_groups, privileged_groups: as in ClassificationMetric.
            clustering, n_clusters, random_state: for ``grouping="discovered"``: annotators clustered
                on their behaviour (ADR, share of positive labels, direction of their disagreements)
                plus the ``attributes`` named (default: behaviour only), with a subgroup-discovery
                clusterer ("kmeans" by default; ``n_clusters=None`` = x-means); see
                :func:`aif360_subjective.metrics._opinion_options.discovered_labels`.

        Raises:
            TypeError: a dataset is not a MultiAnnotatorDataset, or an option has a wrong type.
            ValueError: the datasets hold different rows, or an option is invalid.
        """
        _check_same_pairs(dataset, classified_dataset)
        # validate every option here, so errors surface at construction
        if isinstance(grouping, str):
            check_choice(grouping, "grouping", GROUPING_NAMES)
        elif isinstance(grouping, pd.Series):
            check_grouping_series(grouping, dataset.annotator_ids)
        else:
            raise TypeError(
                f"grouping must be one of {list(GROUPING_NAMES)} or a pandas Series mapping annotator ids "
                f"to groups, got {type(grouping).__name__}"
            )
        validate_bins(bins)
        resolve_performance(performance)
        check_choice(tie, "tie", TIE_POLICIES)
        check_choice(small_groups, "small_groups", ("merge", "drop"))
        if aggregate is not None:
            check_choice(aggregate, "aggregate", AGGREGATES)
        check_choice(ambiguity, "ambiguity", AMBIGUITY_MEASURES)
        check_choice(nan_policy, "nan_policy", NAN_POLICIES)
        if isinstance(min_group_size, bool) or not isinstance(min_group_size, int | np.integer):
            raise TypeError(f"min_group_size must be an int >= 1, got {min_group_size!r}")
        if min_group_size < 1:
            raise ValueError(f"min_group_size must be >= 1, got {min_group_size}")
        if isinstance(grouping, str) and grouping == "demographic":
            if attributes is None:
                attributes = list(dataset.protected_attribute_names)
            attrs = [attributes] if isinstance(attributes, str) else list(attributes)
            if not attrs:
                raise ValueError(
                    "grouping='demographic' needs annotator attributes: the dataset has no protected "
                    "attributes; pass attributes=[...] naming columns of its annotators table "
                    f"(columns: {list(dataset.annotators.columns)})"
                )
            missing = [a for a in attrs if a not in dataset.annotators.columns]
            if not attrs or missing:
                raise ValueError(
                    f"attributes {missing or attrs} are not annotator columns of the dataset; "
                    f"available: {list(dataset.annotators.columns)}"
                )
            attributes = attrs
        if isinstance(grouping, str) and grouping == "discovered":
            check_discovered_options(clustering, n_clusters, random_state, len(pd.unique(dataset.annotator_ids)))
            if attributes is not None:
                attrs = [attributes] if isinstance(attributes, str) else list(attributes)
                missing = [a for a in attrs if a not in dataset.annotators.columns]
                if missing:
                    raise ValueError(
                        f"attributes {missing} are not annotator columns of the dataset; "
                        f"available: {list(dataset.annotators.columns)}"
                    )

        super().__init__(
            dataset,
            classified_dataset,
            unprivileged_groups=unprivileged_groups,
            privileged_groups=privileged_groups,
        )
        self.grouping = grouping
        self.bins = bins
        self.performance_metric = performance
        self.tie = tie
        self.min_group_size = int(min_group_size)
        self.small_groups = small_groups
        self.aggregate = aggregate
        self.ambiguity = ambiguity
        self.attributes = attributes
        self.nan_policy = nan_policy
        self.clustering = clustering
        self.n_clusters = n_clusters
        self.random_state = random_state
        self._cached: OpinionExclusionResult | None = None

    # ------------------------------------------------------------------ computation
    def _result(self) -> OpinionExclusionResult:
        if self._cached is None:
            ds = self.dataset
            enc = encode_annotations(
                ds.labels.ravel(),
                self.classified_dataset.labels.ravel(),
                ds.item_ids,
                ds.annotator_ids,
                pos_label=ds.favorable_label,
            )
            self._cached = opinion_exclusion_result(
                enc,
                self.grouping,
                ambiguity=self.ambiguity,
                annotator_table=ds.annotators,
                attributes=self.attributes,
                tie=self.tie,
                clustering=self.clustering,
                n_clusters=self.n_clusters,
                random_state=self.random_state,
                bins=self.bins,
                performance=self.performance_metric,
                min_group_size=self.min_group_size,
                small_groups=self.small_groups,
                aggregate=self.aggregate,
                nan_policy=self.nan_policy,
            )
        return self._cached

    def _named(self, s: pd.Series) -> pd.Series:
        out = s.copy()
        out.index.name = getattr(self.dataset, "annotator_col", "annotator")
        return out

    # pandas results are computed once (in _result) and returned as copies, so a caller editing
    # one cannot corrupt what AIF360's memoizing metaclass would otherwise hand out next time.
    @dont_decorate
    def disagreement_rates(self) -> pd.Series:
        """Average disagreement rate (ADR) of every annotator with the majority vote.

        ADR = share of the annotator's labels that differ from their item's majority vote over all
        the item's annotations (tie policy ``tie``).

        Returns:
            pandas.Series: indexed by annotator id; NaN for an annotator whose items were all
            dropped ties.
        """
        return self._named(self._result().disagreement_rates)

    @dont_decorate
    def annotator_performance(self) -> pd.Series:
        """The model's performance for every annotator, over all its annotations.

        Returns:
            pandas.Series: indexed by annotator id; NaN where undefined (e.g. TPR without positives).
        """
        return self._named(self._result().annotator_performance)

    @dont_decorate
    def group_performance(self) -> pd.DataFrame:
        """The group table.

        Returns:
            pandas.DataFrame: indexed by ``group`` (ADR ranges as Intervals, demographic values,
            ...), columns ``n_annotators``, ``n_annotations``, ``performance`` (mean of the
            annotators' performance, or pooled), ``spread`` (population std of the annotators'
            performance within the group) and ``n_undefined`` (annotators whose performance is
            undefined, skipped).
        """
        return self._result().group_table.copy()

    @dont_decorate
    def annotator_group_performance(self) -> pd.DataFrame:
        """Performance of every (group, annotator) unit (the values averaged per group).

        Returns:
            pandas.DataFrame: columns ``group``, ``annotator``, ``n_annotations``, ``performance``.
        """
        return self._result().unit_performance.copy()

    def unfairness(self) -> float:
        """Unfairness: population standard deviation (ddof=0) of the groups' performance.

        0 = every group is served equally well. Groups with undefined performance are skipped.
        """
        return float(self._result().unfairness)

    def performance(self) -> float:
        """General performance: mean of the groups' performance (undefined groups skipped)."""
        return float(self._result().performance)

    def annotator_unfairness(self) -> float:
        """Individual-level unfairness: population std of the per-annotator performance (§4.4)."""
        return float(individual_figures(self._result())["annotator_std"])

    def worst_group(self):
        """The group with the lowest performance (None if no group has a defined performance)."""
        return individual_figures(self._result())["worst_group"]

    def worst_group_performance(self) -> float:
        """The lowest group performance."""
        return float(individual_figures(self._result())["worst_group_performance"])

    def performance_gap(self) -> float:
        """Best minus worst group performance (max - min over groups)."""
        return float(individual_figures(self._result())["gap"])

    @dont_decorate
    def individual_figures(self) -> pd.Series:
        """All individual-level figures: ``annotator_std``, worst/best group and value, ``gap``."""
        return individual_figures(self._result())

    def grouping_report(self) -> GroupingReport:
        """What the grouping did: group counts and everything skipped, merged or dropped."""
        return self._result().report

    def performance_name(self) -> str:
        """A readable name of the performance option (e.g. "accuracy" or "mean(accuracy, f1)")."""
        return self._result().performance_name
