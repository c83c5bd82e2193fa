"""Opinion-exclusion unfairness: how unequally a model serves the opinions of different annotators.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4 (grouping criteria, evaluation method, Figure 3, Table 2).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from aif360.decorating_metaclass import dont_decorate
from aif360.metrics import ClassificationMetric

from .._deprecation import renamed_keyword, renamed_member
from .._param_tables import OPINION_PARAMS
from ..datasets.multi_annotator import check_multi_annotator_dataset
from ..opinion.annotations import EncodedAnnotations, check_ratings, encode_annotations
from ..opinion.bootstrap import BootstrapInterval
from ..opinion.core import OpinionExclusionResult, compute_opinion_exclusion, individual_figures
from ..opinion.design import warn_design
from ..opinion.equal_service import ExclusionTest, UnfairnessInterval, attach_test, exclusion_test
from ..opinion.excluded import check_discovery_options, discover_excluded
from ..opinion.excluded_result import ExcludedGroups
from ..opinion.groups import GroupingSummary
from ..opinion.options import OpinionOptions, check_interval_options, check_opinion_options, check_test_options
from ..opinion.uncertainty import (
    OpinionIntervals,
    opinion_intervals,
    thin_groups,
    warn_single_group,
    warn_thin_groups,
    with_intervals,
)
from ..opinion.verdict import verdict_sentence

__all__ = ["OpinionExclusionMetric"]


def _check_same_pairs(dataset: Any, classified_dataset: Any) -> None:
    """Both datasets must be MultiAnnotatorDatasets holding the same (item, annotator) rows in the same order."""
    check_multi_annotator_dataset(dataset, "dataset")
    check_multi_annotator_dataset(classified_dataset, "classified_dataset")
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


def _read_ratings(dataset: Any, column: str, name: str) -> np.ndarray:
    """The ratings held in ``dataset.annotation_info[column]``, checked (numbers, none missing)."""
    info = dataset.annotation_info
    if column not in info.columns:
        raise ValueError(
            f"rating_column={column!r} is not a column of {name}.annotation_info (columns: {list(info.columns)}); "
            + ("predicted ratings go there with dataset.with_predictions(pred, info={column: ratings})"
               if name == "classified_dataset" else "name the column holding the annotators' ratings")
        )
    return check_ratings(info[column], f"{name}.annotation_info[{column!r}]", len(dataset.item_ids))


def _encode(dataset: Any, classified_dataset: Any, rating_column: str | None) -> EncodedAnnotations:
    """The annotation rows as the core's arrays (positive = the favourable label), with the ratings of
    ``rating_column`` when named."""
    ratings = None
    if rating_column is not None:
        if not isinstance(rating_column, str):
            raise TypeError(f"rating_column must be None or a column name (str), got {rating_column!r}")
        ratings = (_read_ratings(dataset, rating_column, "dataset"),
                   _read_ratings(classified_dataset, rating_column, "classified_dataset"))
        if np.array_equal(ratings[0], ratings[1]):
            warnings.warn(
                f"classified_dataset.annotation_info[{rating_column!r}] equals the annotators' ratings on every "
                "row: the predicted ratings are probably the annotators' own (with_predictions(pred) keeps "
                f"annotation_info; pass info={{{rating_column!r}: predicted_ratings}})",
                UserWarning,
                stacklevel=3,
            )
    return encode_annotations(
        dataset.labels.ravel(),
        classified_dataset.labels.ravel(),
        dataset.item_ids,
        dataset.annotator_ids,
        pos_label=dataset.favorable_label,
        ratings=ratings,
    )


class _OptionView:
    """A read-only attribute of the metric showing the field of the same name of ``metric.options``."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        return self if obj is None else getattr(obj.options, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(f"{self.name} is read-only: it shows metric.options.{self.name}")


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
    ``grouping_summary().undefined_groups``.

    Ordinal ratings (CSC 1-6, POPQUORN 1-5): with ``performance="mae"`` (mean absolute error, lower is better)
    or ``"within_one"`` (share of predictions within one scale point, higher is better) the per-annotator
    performance compares ratings: ``rating_column`` names the ``annotation_info`` column holding the annotators'
    ratings in ``dataset`` (POPQUORN ``"rating"``, LeWiDi ``"raw_label"``) and the predicted ratings in
    ``classified_dataset`` (``dataset.with_predictions(pred, info={"rating": predicted})``). The ADR, the other
    groupings and the majority vote keep using the binary view (the datasets' labels: a rating at or above the
    loader's ``positive_from``): ADR is then the paper's disagreement with the binary majority vote. It is the
    view the dataset's labels already define, so ADR keeps its meaning (a rate of disagreement with the
    consensus, with the ``tie`` policy), and an annotator who rates 5 where the others rate 4 on an "offensive
    from 3" scale is not counted as a dissenter. ``adr_reference="median"`` measures ADR against the item's
    median rating instead (a rating more than half a point from it disagrees): it sees dissent on the same side
    of the threshold too, but counts a rating one point off the median as a disagreement; the ambiguity,
    popularity and discovered groupings keep the binary view. Every "worst group" follows the measure's direction
    (:data:`~aif360_subjective.opinion.options.PERFORMANCES`).

    Computation is eager, like :class:`~aif360_subjective.metrics.SubgroupDiscoveryMetric`: the constructor
    validates every option (:func:`~aif360_subjective.metrics.check_opinion_options`, kept in :attr:`options`)
    and runs the whole analysis once, so every error surfaces at construction; the accessors then return
    copies of the stored results (:meth:`result` returns them all as an
    :class:`~aif360_subjective.metrics.OpinionExclusionResult`). All options are keyword-only.

    References:
        Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
        Learning. Section 4.
    """

    def __init__(
        self,
        dataset: Any,
        classified_dataset: Any,
        *,
        grouping: str | pd.Series = "adr",
        bins: int | Sequence[float] | str = 5,
        performance: str | Callable[..., float] | Sequence[Any] = "accuracy",
        tie: str = "favorable",
        min_group_size: int = 1,
        small_groups: str = "merge",
        aggregate: str | None = None,
        ambiguity: str = "disagreement",
        attributes: str | Sequence[str] | None = None,
        nan_policy: str = "propagate",
        unprivileged_groups: list[dict[str, Any]] | None = None,
        privileged_groups: list[dict[str, Any]] | None = None,
        clustering: Any = "kmeans",
        n_clusters: int | None = None,
        random_state: Any = None,
        warn_group_size: int = 5,
        rating_column: str | None = None,
        greater_is_better: bool | None = None,
        adr_reference: str = "majority",
        adr_fit: str = "same",
    ) -> None:
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
                "mae" or "within_one" (on ratings, see ``rating_column``), a callable
                ``(y_true, y_pred) -> float`` (called with the datasets' label values, once
                per annotator/group), or a list of them, averaged per annotator (see ``nan_policy``).
            tie: majority-vote tie policy for the ADR: "favorable", "unfavorable" or "drop" (tied
                items are then not counted in the ADR). "favorable" is the dataset's ``favorable_label`` (0 for
                the detection tasks' loaders, e.g. POPQUORN), whereas the functional
                :func:`~aif360_subjective.sklearn.metrics.opinion_exclusion` defaults to ``pos_label=1``
                (AIF360's scikit-learn convention): pass it ``pos_label=dataset.favorable_label`` for the same
                figures (POPQUORN, majority-vote predictions: 0.2008 here and with ``pos_label=0``, 0.2025 with
                the function's default).
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
                :func:`aif360_subjective.opinion.groupers.discovered_labels`. ``random_state`` is also
                the default seed of the bootstrap intervals (:meth:`unfairness_ci`).
            warn_group_size: a UserWarning names every group with fewer annotators than this, with its share
                of the unfairness (:meth:`thin_groups`); 0 = never warn. With the paper's
                ``min_group_size=1`` a bin of one annotator can set the unfairness on its own.
            rating_column: the ``annotation_info`` column holding the ratings in both datasets (the
                annotators' in ``dataset``, the predicted ones in ``classified_dataset``), for
                ``performance="mae"`` / ``"within_one"``; user callables then receive ratings too.
            greater_is_better: the direction of callable performance measures (None = higher is better for
                callables; named measures carry their own, see
                :data:`~aif360_subjective.opinion.options.PERFORMANCES`).
            adr_reference: what an annotation's disagreement is measured against for the ADR: "majority" (the
                binary majority vote, default, the paper's) or "median" (the item's median rating; needs
                ``rating_column``; a rating more than half a point from it disagrees).
            adr_fit: "same" (default: the paper's exact method, ADR bins fitted on the annotations the performance
                is scored on) or "cross" (each annotation grouped by its annotator's ADR on the other half of the
                items, :func:`~aif360_subjective.opinion.annotations.cross_fit`): identical annotators then form
                bins of equal expected performance, so the unfairness and its interval can be read against 0.
                The test of equal service (:meth:`exclusion_test`) is cross-fitted for ADR bins either way.

        Raises:
            TypeError: a dataset is not a MultiAnnotatorDataset, or an option has a wrong type.
            ValueError: the datasets hold different rows, or an option is invalid.
        """
        _check_same_pairs(dataset, classified_dataset)
        enc = _encode(dataset, classified_dataset, rating_column)
        options = check_opinion_options(
            annotators=enc.annotators,
            annotator_table=dataset.annotators,
            default_attributes=list(dataset.protected_attribute_names),
            grouping=grouping, bins=bins, performance=performance, tie=tie, min_group_size=min_group_size,
            small_groups=small_groups, aggregate=aggregate, ambiguity=ambiguity, attributes=attributes,
            nan_policy=nan_policy, clustering=clustering, n_clusters=n_clusters, random_state=random_state,
            warn_group_size=warn_group_size,
            greater_is_better=greater_is_better, adr_reference=adr_reference, adr_fit=adr_fit,
            has_ratings=enc.r_true is not None,
        )
        # AIF360 requires the datasets to differ only in labels and scores; a classified dataset may also carry
        # predicted per-annotation values (the predicted ratings of rating_column) in its annotation_info
        with dataset.temporarily_ignore("annotation_info"):
            super().__init__(
                dataset,
                classified_dataset,
                unprivileged_groups=unprivileged_groups,
                privileged_groups=privileged_groups,
            )
        self.options: OpinionOptions = options
        #: the ``annotation_info`` column of the ratings (a dataset column, not an analysis option)
        self.rating_column = rating_column
        # kept for analyses on top of the result (e.g. resampling annotators) without re-encoding
        self._encoded: EncodedAnnotations = enc
        self._cached: OpinionExclusionResult = compute_opinion_exclusion(enc, options, dataset.annotators)
        self._bootstraps: dict[tuple[Any, ...], OpinionIntervals] = {}
        self._tests: dict[tuple[Any, ...], ExclusionTest] = {}
        warn_thin_groups(self._cached)
        warn_single_group(self._cached)
        warn_design(enc)

    # The options as read-only attributes (as before OpinionOptions existed): views of ``self.options``, never
    # copies, so that the metric and its options cannot disagree.
    grouping = _OptionView(
        "The grouping's kind: \"adr\", \"ambiguity\", \"popularity\", \"demographic\", \"discovered\" or "
        "\"series\"."
    )
    bins = _OptionView("The ``bins`` option (validated).")
    tie = _OptionView("The majority-vote tie policy.")
    min_group_size = _OptionView("The minimum number of units per group.")
    small_groups = _OptionView("What happens to groups below ``min_group_size``: \"merge\" or \"drop\".")
    aggregate = _OptionView("\"annotator\" or \"pooled\" (resolved from the grouping when not given).")
    ambiguity = _OptionView("The item ambiguity measure of ``grouping=\"ambiguity\"``.")
    nan_policy = _OptionView("How a list of performance measures combines undefined values.")
    clustering = _OptionView("The clusterer of ``grouping=\"discovered\"``.")
    n_clusters = _OptionView("The number of clusters of ``grouping=\"discovered\"`` (None = x-means).")
    random_state = _OptionView("The seed of ``grouping=\"discovered\"`` and the default seed of the intervals.")
    adr_fit = _OptionView("How ADR bins are fitted: \"same\" (the paper's) or \"cross\" (cross-fitted).")

    @property
    def grouping_argument(self) -> str | pd.Series:
        """The ``grouping`` argument as given: the kind's name, or the user's Series for ``"series"``."""
        o = self.options
        return o.group_labels if o.grouping == "series" and o.group_labels is not None else o.grouping

    @property
    def performance_metric(self) -> Any:
        """The ``performance`` option: one measure (name or callable), or the list of them."""
        perf = self.options.performance
        return perf[0] if len(perf) == 1 else list(perf)

    @property
    def attributes(self) -> list[str] | None:
        """The annotator attributes used, or None when none."""
        return list(self.options.attributes) or None

    # ------------------------------------------------------------------ results
    def _result(self) -> OpinionExclusionResult:
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
    def group_performance(
        self, ci: float | None = None, n_boot: int = 1000, random_state: Any = None, bootstrap_levels: str = "both"
    ) -> pd.DataFrame:
        """The group table, with bootstrap intervals when ``ci`` is given.

        Args:
            ci: confidence level of the per-group intervals (e.g. 0.95); None = no intervals (the paper's table).
            n_boot, random_state, bootstrap_levels: as in :meth:`unfairness_ci`.

        Returns:
            pandas.DataFrame: indexed by ``group`` (ADR ranges as Intervals, demographic values,
            ...), columns ``n_annotators``, ``n_annotations``, ``performance`` (mean of the
            annotators' performance, or pooled), ``spread`` (population std of the annotators'
            performance within the group) and ``n_undefined`` (annotators whose performance is
            undefined, skipped); with ``ci``, also ``ci_low`` and ``ci_high``.
        """
        table = self._result().group_table.copy()
        if ci is None:  # no intervals: the bootstrap options are not read, but a bad one is still refused
            OPINION_PARAMS.check("n_boot", n_boot)
            OPINION_PARAMS.check("bootstrap_levels", bootstrap_levels)
            return table
        return table.join(self._intervals(ci, n_boot, random_state, bootstrap_levels).groups)

    def _intervals(self, ci: Any, n_boot: Any, random_state: Any, levels: Any) -> OpinionIntervals:
        # One bootstrap per option set, so that unfairness_ci, performance_ci and group_performance(ci) asked
        # with the same options describe the same replicates.
        interval = check_interval_options(ci, n_boot, levels, self.options.performance)
        seed = self.options.random_state if random_state is None else random_state
        key = (interval, id(seed) if isinstance(seed, np.random.Generator) else seed)
        if key not in self._bootstraps:
            self._bootstraps[key] = opinion_intervals(self._result(), interval, seed, self._encoded)
        return self._bootstraps[key]

    @dont_decorate
    def unfairness_ci(
        self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None, bootstrap_levels: str = "both"
    ) -> UnfairnessInterval:
        """Confidence interval of the true unfairness: it reaches 0 when the spread is indistinguishable from noise.

        The one-way ANOVA test inverted through the noncentral F distribution, in a version for unequal group
        sizes (:func:`~aif360_subjective.opinion.equal_service.unfairness_interval`): the interval holds the
        spreads of the groups' expected values that the data do not reject. It carries the debiased unfairness
        (``interval.debiased``) beside the paper's raw std (``interval.estimate``, :meth:`unfairness`). The
        bootstrap (annotators within their group, then their annotations) supplies the groups' variances only
        when some group has a single unit (pooled groups, or no group with two annotators). Measured coverage:
        ``benchmarks/opinion_coverage.py`` (the guide's "How sure are these numbers?").

        Args:
            ci: confidence level in (0, 1).
            n_boot, random_state, bootstrap_levels: the bootstrap of :meth:`performance_ci` and
                :meth:`group_performance` (``random_state`` None = the metric's). ``bootstrap_levels``: "both"
                (annotators within their group, then their annotations: conditional on the items annotated),
                "crossed" (annotators within their group and, independently, the items: not conditional on the
                items) or "annotators" (annotators only: too narrow for small groups, no spread at all for a
                group of one annotator).

        Returns:
            UnfairnessInterval: the tuple ``(low, high)``, with ``estimate``, ``debiased``, ``method`` and
            ``indistinguishable_from_noise`` as attributes.

        Raises:
            ValueError: bad ``ci``/``bootstrap_levels``, ``n_boot`` < 100, or a callable performance measure.
            TypeError: ``n_boot`` is not an int.
        """
        return self._intervals(ci, n_boot, random_state, bootstrap_levels).unfairness

    @dont_decorate
    def exclusion_test(
        self, n_permutations: int = 9999, statistic: str = "studentized", random_state: Any = None,
        adjust: str = "none",
    ) -> ExclusionTest:
        """The test of equal service: is some group served worse than chance alone would make it?

        Annotators are permuted across the groups (sizes kept) and the statistic recomputed; for ADR bins the test is
        cross-fitted (bins from one half of each annotator's items, performance on the other, both ways), whatever
        ``adr_fit`` is. Null hypothesis (``test.null_hypothesis``): with the studentized statistic, every group's
        annotators have the same expected value (annotators with fewer annotations may be noisier); with
        "between"/"std", annotators are exchangeable across the groups. See
        :func:`~aif360_subjective.opinion.equal_service.exclusion_test`.

        Args:
            n_permutations: Monte-Carlo permutations (>= 99); all distinct ones when there are no more.
            statistic: "studentized" (default; valid when annotation counts differ, with a max-T test of every
                group against the rest), "between" (size-weighted between-group sum of squares, the former
                default) or "std" (the unfairness).
            random_state: None (the metric's ``random_state``), an int seed or a numpy Generator.
            adjust: "none" or "items" (each annotation compared with the other annotations of its item).

        Returns:
            ExclusionTest: ``statistic``, ``p_value``, ``method``, ``n_permutations``, ``thin_groups``, ...

        Raises:
            ValueError: bad ``n_permutations``/``statistic``.
            TypeError: ``n_permutations`` is not an int, or a bad ``random_state``.
        """
        test = check_test_options(n_permutations, statistic)
        seed = self.options.random_state if random_state is None else random_state
        key = (test, id(seed) if isinstance(seed, np.random.Generator) else seed, adjust)
        if key not in self._tests:
            self._tests[key] = exclusion_test(self._result(), self._encoded, n_permutations=test.n_permutations,
                                              statistic=test.statistic, adjust=adjust, random_state=seed)
        return self._tests[key]

    @dont_decorate
    def excluded_groups(
        self,
        *,
        attributes: str | Sequence[str] | None = None,
        max_conditions: int = 2,
        adjust: str = "none",
        alpha: float = 0.05,
        n_permutations: int = 999,
        min_annotators: int = 5,
        performance: str | None = None,
        ranges: int = 4,
        random_state: Any = None,
        balance: str = "conditions",
        step_down: bool = False,
        **renamed: Any,
    ) -> ExcludedGroups:
        """Whose opinions are excluded: the annotator groups (conjunctions of attribute values) served worse.

        The class face of :func:`~aif360_subjective.opinion.excluded_groups` on this metric's annotations, with
        the dataset's annotator table (``dataset.annotators``) and its binary view for the ADR. Every argument is
        keyword-only, as in the function.

        Args:
            attributes: annotator attributes to combine (default: every column of ``dataset.annotators``);
                ``"adr"`` adds the cross-fitted ADR.
            max_conditions, adjust, alpha, n_permutations, min_annotators, ranges: as in
                :func:`~aif360_subjective.opinion.excluded_groups` (``n_perm``: the former name of
                ``n_permutations``, a DeprecationWarning).
            balance: the classes of the max-T. "conditions" (default): each number of conditions gets its own
                threshold, so the few single attributes are found more easily; "none": one threshold for every
                candidate, lower for intersections (found more easily). As in
                :func:`~aif360_subjective.opinion.excluded_groups`.
            step_down: False (default): single-step max-T p-values; True: Westfall and Young's free step-down
                p-values (never larger; the intervals and thresholds stay the single step's). As in
                :func:`~aif360_subjective.opinion.excluded_groups`.
            performance: None = the metric's ``performance`` when it is one of
                :data:`~aif360_subjective.opinion.excluded.DISCOVERY_PERFORMANCES`, else a name of them.
            random_state: None (the metric's ``random_state``), an int seed or a numpy Generator.

        Returns:
            ExcludedGroups

        Raises:
            ValueError: as :func:`~aif360_subjective.opinion.excluded_groups`.
        """
        n_permutations = renamed_keyword("OpinionExclusionMetric.excluded_groups", renamed, "n_perm",
                                         "n_permutations", n_permutations, 999)
        perf = performance if performance is not None else self.performance_metric
        seed = self.options.random_state if random_state is None else random_state
        key = (attributes if not isinstance(attributes, list) else tuple(attributes), max_conditions, adjust, alpha,
               n_permutations, min_annotators, perf if isinstance(perf, str) else id(perf), ranges,
               id(seed) if isinstance(seed, np.random.Generator) else seed, balance, step_down)
        cache: dict[tuple[Any, ...], ExcludedGroups] = self.__dict__.setdefault("_discoveries", {})
        if key not in cache:
            opts = check_discovery_options(max_conditions=max_conditions, min_annotators=min_annotators,
                                           ranges=ranges, adjust=adjust, alpha=alpha, n_permutations=n_permutations,
                                           performance=perf, random_state=seed, balance=balance,
                                           step_down=step_down)
            cache[key] = discover_excluded(self._encoded, self.dataset.annotators, attributes, opts,
                                           tie=self.options.tie, adr_reference=self.options.adr_reference)
        return cache[key]

    @dont_decorate
    def verdict(
        self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None, n_permutations: int = 9999,
        adjust: str = "none",
    ) -> str:
        """The one verdict sentence: "no evidence that any group is served worse (across-groups test, p = 0.41);
        ..." or "group2 is served worse than the other groups: accuracy 0.80 [0.77, 0.84] against 0.92 for the
        rest, gap 0.12 [0.05, 0.19] (max-T adjusted p < 0.001 over 4 groups)", or why the test cannot decide.

        From :meth:`exclusion_test` (at level ``1 - ci``), :meth:`unfairness_ci` and the groups' intervals
        (:func:`~aif360_subjective.opinion.verdict.verdict_sentence`).

        Args:
            ci, n_boot, random_state: as in :meth:`unfairness_ci`.
            n_permutations, adjust: as in :meth:`exclusion_test`.

        Returns:
            str
        """
        intervals = self._intervals(ci, n_boot, random_state, "both")
        test = self.exclusion_test(n_permutations=n_permutations, random_state=random_state, adjust=adjust)
        result = attach_test(with_intervals(self._result(), intervals), test)
        return verdict_sentence(result)

    @dont_decorate
    def performance_ci(
        self, ci: float = 0.95, n_boot: int = 1000, random_state: Any = None, bootstrap_levels: str = "both"
    ) -> BootstrapInterval:
        """Bootstrap confidence interval of :meth:`performance` (same replicates as :meth:`unfairness_ci`)."""
        return self._intervals(ci, n_boot, random_state, bootstrap_levels).performance

    @dont_decorate
    def thin_groups(self) -> pd.DataFrame:
        """Groups with fewer annotators than ``warn_group_size`` and their share of the unfairness.

        Returns:
            pandas.DataFrame: see :func:`~aif360_subjective.opinion.uncertainty.thin_groups`.
        """
        return thin_groups(self._result(), self.options.warn_group_size)

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

    def seed_unfairness(self) -> float:
        """The paper's unfairness, with ADR bins fitted on the scored annotations (``adr_fit="same"``), whatever
        ``adr_fit`` this metric uses (equal to :meth:`unfairness` unless ``adr_fit="cross"``)."""
        if self.options.adr_fit == "same":
            return self.unfairness()
        same = dataclasses.replace(self.options, adr_fit="same")
        return float(compute_opinion_exclusion(self._encoded, same, self.dataset.annotators).unfairness)

    def performance(self) -> float:
        """General performance: mean of the groups' performance (undefined groups skipped)."""
        return float(self._result().performance)

    def annotator_unfairness(self) -> float:
        """Individual-level unfairness: population std of the per-annotator performance (§4.4)."""
        return float(individual_figures(self._result())["annotator_std"])

    def worst_group(self) -> Any:
        """The worst-served group: the lowest performance, or the highest for a lower-is-better measure such as
        ``"mae"`` (None if no group has a defined performance)."""
        return individual_figures(self._result())["worst_group"]

    def worst_group_performance(self) -> float:
        """The worst-served group's performance (the lowest, or the highest for a lower-is-better measure)."""
        return float(individual_figures(self._result())["worst_group_performance"])

    def performance_gap(self) -> float:
        """Distance between the best- and the worst-served groups' performance (max - min over groups, >= 0)."""
        return float(individual_figures(self._result())["gap"])

    @dont_decorate
    def individual_figures(self) -> pd.Series:
        """All individual-level figures: ``annotator_std``, worst/best group and value, ``gap``."""
        return individual_figures(self._result())

    def grouping_summary(self) -> GroupingSummary:
        """What the grouping did: group counts and everything skipped, merged or dropped."""
        return self._result().grouping_summary

    def grouping_report(self) -> GroupingSummary:
        """Deprecated: the former name of :meth:`grouping_summary` (warns; removed in 0.4)."""
        renamed_member("OpinionExclusionMetric.grouping_report()", "grouping_summary()")
        return self._result().grouping_summary

    @dont_decorate
    def result(self) -> OpinionExclusionResult:
        """The whole analysis as one :class:`~aif360_subjective.metrics.OpinionExclusionResult` (the object
        :func:`aif360_subjective.sklearn.metrics.opinion_exclusion` returns)."""
        return self._result()

    def performance_name(self) -> str:
        """A readable name of the performance option (e.g. "accuracy" or "mean(accuracy, f1)")."""
        return self._result().performance_name
