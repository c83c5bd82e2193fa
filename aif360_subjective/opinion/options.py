"""Options of the opinion-exclusion metrics: declared once, checked once.

Both faces, :class:`~aif360_subjective.metrics.OpinionExclusionMetric` and
:func:`aif360_subjective.sklearn.metrics.opinion_exclusion`, build one frozen :class:`OpinionOptions` with
:func:`check_opinion_options` and hand it to the one core
(:func:`aif360_subjective.opinion.core.opinion_exclusion_result`). A bad option therefore raises the
same exception with the same message from either face.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4 (grouping criteria, evaluation method).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from .._labels import TIE_POLICIES, check_tie
from .._param_tables import OPINION_PARAMS
from .._validation import check_choice, check_ci, check_random_state
from .groups import validate_bins

__all__ = [
    "ADR_REFERENCES",
    "ADR_FITS",
    "AGGREGATES",
    "AMBIGUITY_MEASURES",
    "GROUPING_NAMES",
    "NAN_POLICIES",
    "ORDINAL_PERFORMANCES",
    "PERFORMANCES",
    "PERFORMANCE_NAMES",
    "SMALL_GROUP_POLICIES",
    "TEST_STATISTICS",
    "ADJUSTMENTS",
    "TIE_POLICIES",
    "OpinionOptions",
    "PerformanceInfo",
    "PerformanceSpec",
    "BOOTSTRAP_LEVELS",
    "IntervalOptions",
    "ExclusionTestOptions",
    "check_grouping",
    "check_interval_options",
    "check_test_options",
    "check_opinion_options",
    "performance_direction",
    "performance_name",
    "resolve_performance",
]

#: Grouping names accepted by ``grouping=`` (besides a pandas Series mapping annotator ids to groups).
GROUPING_NAMES: Final = OPINION_PARAMS.choices("grouping")


@dataclass(frozen=True)
class PerformanceInfo:
    """What the rest of the package must know about a named performance measure.

    Attributes:
        higher_is_better: the direction: which group is the worst-served one (lowest or highest value), the
            sign of a gap, the colour scale of a figure, the words of an explanation.
        needs_ratings: computed on ordinal ratings (the annotators' and the predicted ones), not on the binary
            labels' confusion counts.
        unit_interval: the values lie in [0, 1] (a rate); else in the ratings' units (a figure's colour scale is
            then the data's range).
    """

    higher_is_better: bool
    needs_ratings: bool = False
    unit_interval: bool = True


#: Every named performance measure and its direction: the one place the direction is declared; worst/best group,
#: explanations and figures read it from here (through :attr:`OpinionOptions.higher_is_better`).
PERFORMANCES: Final = {
    "accuracy": PerformanceInfo(higher_is_better=True),
    "balanced_accuracy": PerformanceInfo(higher_is_better=True),
    "true_positive_rate": PerformanceInfo(higher_is_better=True),
    "true_negative_rate": PerformanceInfo(higher_is_better=True),
    "false_positive_rate": PerformanceInfo(higher_is_better=False),
    "false_negative_rate": PerformanceInfo(higher_is_better=False),
    "precision": PerformanceInfo(higher_is_better=True),
    "f1": PerformanceInfo(higher_is_better=True),
    # ordinal ratings (CSC 1-6, POPQUORN 1-5): mean |rating - predicted rating|, share within one point
    "mae": PerformanceInfo(higher_is_better=False, needs_ratings=True, unit_interval=False),
    "within_one": PerformanceInfo(higher_is_better=True, needs_ratings=True),
}
#: Named performance measures (the table's order; a test checks that :data:`PERFORMANCES` describes each).
PERFORMANCE_NAMES: Final = OPINION_PARAMS.choices("performance")
#: Named performance measures computed on ratings.
ORDINAL_PERFORMANCES: Final = tuple(k for k, v in PERFORMANCES.items() if v.needs_ratings)
# The vocabularies and bounds below are read from the one table of the family's options
# (:data:`~aif360_subjective._param_tables.OPINION_PARAMS`), which the command line and the dashboard read too.
AMBIGUITY_MEASURES: Final = OPINION_PARAMS.choices("ambiguity")
AGGREGATES: Final = OPINION_PARAMS.choices("aggregate")
#: What an annotation's ADR disagreement is measured against: the item's majority vote of the binary labels, or
#: (ratings only) the item's median rating.
ADR_REFERENCES: Final = OPINION_PARAMS.choices("adr_reference")
#: How ADR bins are fitted: on the same annotations the performance is scored on ("same", the paper's), or
#: cross-fitted ("cross": ADR on one half of the items, performance on the other, then the halves swapped).
ADR_FITS: Final = OPINION_PARAMS.choices("adr_fit")
NAN_POLICIES: Final = OPINION_PARAMS.choices("nan_policy")
SMALL_GROUP_POLICIES: Final = OPINION_PARAMS.choices("small_groups")
#: ``bootstrap_levels``: resample annotators within groups and then their annotations ("both"), annotators only
#: (too narrow for small groups: it ignores the noise of their annotations), or annotators and items ("crossed":
#: intervals not conditional on the items annotated; pandas only).
BOOTSTRAP_LEVELS: Final = OPINION_PARAMS.choices("bootstrap_levels")
#: Statistics of the test of equal service: the size-weighted between-group sum of squares, or the plain std of
#: the groups' values (the unfairness itself).
TEST_STATISTICS: Final = OPINION_PARAMS.choices("test_statistic")


def _bounds(name: str) -> tuple[int, int]:
    """The bounds of an option's interval in the table (0 for an open end)."""
    interval = OPINION_PARAMS[name].interval
    if interval is None:
        raise TypeError(f"{name} has no interval in the opinion-exclusion table")
    return int(interval.low or 0), int(interval.high or 0)


#: Item adjustments of the test of equal service: none, or each annotation against the other annotations of its item.
ADJUSTMENTS: Final = OPINION_PARAMS.choices("adjust")
#: Fewest permutations accepted: fewer cannot give a p-value below 0.01.
#: Most permutations accepted: p-values then resolve to 1e-5, and the test's time grows in proportion (without a
#: bound, a mistyped 10**9 ran for hours instead of failing).
MIN_PERMUTATIONS, MAX_PERMUTATIONS = _bounds("n_permutations")
#: Fewest and most bootstrap replicates accepted: fewer cannot place a 95% interval's bounds; each keeps at least
#: three float64 values (the unfairness, the performance, one per group), and past the most a 95% interval's ends
#: move by Monte-Carlo noise only.
MIN_BOOT, MAX_BOOT = _bounds("n_boot")

#: One performance measure: a name of :data:`PERFORMANCE_NAMES` or a callable ``(y_true, y_pred) -> float``.
PerformanceSpec = str | Callable[[np.ndarray, np.ndarray], float]


@dataclass(frozen=True, eq=False)
class OpinionOptions:
    """The validated options of one opinion-exclusion analysis (build it with :func:`check_opinion_options`).

    Attributes:
        grouping: "adr", "ambiguity", "popularity", "demographic", "discovered" or "series" (a user Series).
        group_labels: for "series": the user's Series mapping annotator ids to groups; else None.
        bins: the ``bins`` option as given (validated).
        performance: the performance measures (names or callables), at least one.
        tie: majority-vote tie policy.
        min_group_size: minimum units per group (>= 1).
        small_groups: "merge" or "drop".
        aggregate: "annotator" or "pooled" (``None`` given = resolved from the grouping).
        ambiguity: item ambiguity measure for "ambiguity".
        attributes: annotator attributes ("demographic": at least one; "discovered": possibly none).
        nan_policy: "propagate" or "omit".
        clustering, n_clusters: the clusterer of "discovered".
        random_state: None, an int or a numpy Generator (seed of "discovered" and of the bootstrap).
        warn_group_size: groups with fewer annotators are warned about, with their share of the unfairness
            (0 = never warn).
        higher_is_better: the direction of the performance measures (:data:`PERFORMANCES`; for callables alone
            the ``greater_is_better`` option, default True): the worst-served group is the one with the lowest
            value when True, the highest when False (e.g. ``"mae"``).
        adr_reference: "majority" (ADR against the binary majority vote, the paper's) or "median" (ratings:
            against the item's median rating).
        adr_fit: "same" (ADR bins from the annotations the performance is scored on, the paper's exact method)
            or "cross" (cross-fitted: :func:`~aif360_subjective.opinion.annotations.item_halves`).
    """

    grouping: str
    group_labels: pd.Series | None
    bins: Any
    performance: tuple[PerformanceSpec, ...]
    tie: str
    min_group_size: int
    small_groups: str
    aggregate: str
    ambiguity: str
    attributes: tuple[str, ...]
    nan_policy: str
    clustering: Any
    n_clusters: int | None
    random_state: Any
    warn_group_size: int = 5
    higher_is_better: bool = True
    adr_reference: str = "majority"
    adr_fit: str = "same"

    @property
    def needs_ratings(self) -> bool:
        """Whether a performance measure is computed on ratings (``"mae"``, ``"within_one"``)."""
        return any(isinstance(p, str) and PERFORMANCES[p].needs_ratings for p in self.performance)

    @property
    def unit_interval(self) -> bool:
        """Whether every performance value lies in [0, 1] (named rates; not ``"mae"`` nor a callable)."""
        return all(isinstance(p, str) and PERFORMANCES[p].unit_interval for p in self.performance)

    @property
    def direction_text(self) -> str:
        """``"higher is better"`` or ``"lower is better"`` (for explanations and axis labels)."""
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def performance_name(self) -> str:
        """A readable name of the performance option (e.g. "accuracy" or "mean(accuracy, f1)")."""
        return performance_name(self.performance)

    @property
    def grouping_name(self) -> str:
        """The grouping's name in summaries: "adr", "ambiguity (entropy)", "demographic: gender", ..."""
        if self.grouping == "series":
            assert self.group_labels is not None
            return str(self.group_labels.name) if self.group_labels.name is not None else "custom"
        if self.grouping == "ambiguity":
            return f"ambiguity ({self.ambiguity})"
        if self.grouping == "demographic":
            return "demographic: " + " & ".join(self.attributes)
        if self.grouping == "discovered":
            c = self.clustering
            return f"discovered ({c if isinstance(c, str) else type(c).__name__})"
        return self.grouping


def resolve_performance(performance: Any) -> tuple[PerformanceSpec, ...]:
    """Validate the ``performance`` option: a name, a callable, or a non-empty list of them.

    A list is averaged per unit, so its named measures must share one direction and one kind: measures on
    ratings (``"mae"``, ``"within_one"``) are not mixed with measures on binary labels.

    Raises:
        ValueError: an unknown name, an empty list, or a list mixing directions or kinds.
        TypeError: an element that is neither a name nor a callable.
    """
    items = list(performance) if isinstance(performance, list | tuple) else [performance]
    if not items:
        raise ValueError("performance must not be an empty list")
    for p in items:
        if isinstance(p, str):
            check_choice(p, "performance", PERFORMANCE_NAMES)
        elif not callable(p):
            raise TypeError(
                f"performance must be a metric name {list(PERFORMANCE_NAMES)}, a callable "
                f"(y_true, y_pred) -> float, or a list of them; got {type(p).__name__} {p!r}"
            )
    names = [p for p in items if isinstance(p, str)]
    _one_side(names, "needs_ratings", "measures on ratings {}", "measures on binary labels {}", "kind")
    _one_side(names, "higher_is_better", "higher-is-better measures {}", "lower-is-better measures {}", "direction")
    return tuple(items)


def _one_side(names: list[str], flag: str, side: str, other_side: str, what: str) -> None:
    """Raise when the named measures fall on both sides of ``PERFORMANCES[name].<flag>``: a list is averaged per
    unit, which only means something for measures of one kind and one direction."""
    yes = sorted({p for p in names if getattr(PERFORMANCES[p], flag)})
    no = sorted({p for p in names if not getattr(PERFORMANCES[p], flag)})
    if yes and no:
        raise ValueError(
            f"performance {names} mixes {side.format(yes)} with {other_side.format(no)}; a list is averaged per "
            f"unit, so use measures of one {what}"
        )


def performance_direction(specs: Sequence[PerformanceSpec], greater_is_better: Any = None) -> bool:
    """Whether higher values of the (resolved) performance measures are better.

    Args:
        specs: resolved performance measures (:func:`resolve_performance`).
        greater_is_better: None = the direction of the named measures (:data:`PERFORMANCES`; True for callables
            alone); a bool states it, e.g. ``False`` for a callable error measure.

    Returns:
        bool

    Raises:
        TypeError: ``greater_is_better`` is neither None nor a bool.
        ValueError: ``greater_is_better`` contradicts a named measure.
    """
    if greater_is_better is not None and not isinstance(greater_is_better, bool | np.bool_):
        raise TypeError(f"greater_is_better must be None, True or False, got {greater_is_better!r}")
    named = [p for p in specs if isinstance(p, str)]
    if not named:
        return True if greater_is_better is None else bool(greater_is_better)
    direction = PERFORMANCES[named[0]].higher_is_better
    if greater_is_better is not None and bool(greater_is_better) != direction:
        raise ValueError(
            f"greater_is_better={bool(greater_is_better)} contradicts performance {named[0]!r} "
            f"({'higher' if direction else 'lower'} is better); leave greater_is_better=None for named measures"
        )
    return direction


def performance_name(specs: Sequence[PerformanceSpec]) -> str:
    """A readable name for a performance option."""
    names = [s if isinstance(s, str) else getattr(s, "__name__", type(s).__name__) for s in specs]
    return names[0] if len(names) == 1 else "mean(" + ", ".join(names) + ")"


def _check_ratings_given(specs: Sequence[PerformanceSpec], has_ratings: bool) -> None:
    on_ratings = [p for p in specs if isinstance(p, str) and PERFORMANCES[p].needs_ratings]
    if on_ratings and not has_ratings:
        raise ValueError(
            f"performance {on_ratings[0]!r} compares ratings, but none were given: pass rating_column= "
            "(OpinionExclusionMetric: the annotation_info column holding the ratings of both datasets) or "
            "positive_from= (opinion_exclusion: y_true and y_pred are then ratings, binarised at positive_from "
            "for the majority vote)"
        )


def check_grouping(grouping: Any, annotators: pd.Index) -> tuple[str, pd.Series | None]:
    """The grouping's name and, for a grouping Series, the Series (its index checked against ``annotators``).

    Raises:
        ValueError: an unknown grouping name, or a Series sharing no annotator id with the data or repeating one.
        TypeError: neither a name nor a Series.
    """
    if isinstance(grouping, pd.Series):
        if not grouping.index.isin(annotators).any():
            raise ValueError(
                f"grouping Series shares no annotator id with the data (its index holds e.g. "
                f"{list(grouping.index[:3])}, the annotators are e.g. {list(annotators[:3])}): index it by "
                "annotator id, with the same dtype"
            )
        repeated = grouping.index[grouping.index.duplicated()].unique()
        if len(repeated):
            # one group per annotator: pandas' own "cannot reindex on an axis with duplicate labels" named nothing
            raise ValueError(
                f"grouping Series holds {len(repeated):,} annotator id(s) more than once (e.g. "
                f"{list(repeated[:3])}): give each annotator one group, e.g. "
                "grouping[~grouping.index.duplicated()] to keep the first"
            )
        return "series", grouping
    if not isinstance(grouping, str):
        raise TypeError(
            f"grouping must be one of {list(GROUPING_NAMES)} or a pandas Series mapping annotator ids "
            f"to groups, got {type(grouping).__name__}"
        )
    return check_choice(grouping, "grouping", GROUPING_NAMES), None


def _check_attributes(
    attributes: Any, grouping: str, annotator_table: pd.DataFrame | None, default: Sequence[str]
) -> tuple[str, ...]:
    """Annotator attributes: needed by "demographic" (default ``default``), optional for "discovered"."""
    if grouping not in ("demographic", "discovered"):
        return ()
    if attributes is None:
        attrs = list(default) if grouping == "demographic" else []
    else:
        attrs = [attributes] if isinstance(attributes, str) else list(attributes)
    if annotator_table is None and (attrs or grouping == "demographic"):
        raise ValueError(
            f"grouping={grouping!r} needs an annotator table with attribute columns (annotators=, a DataFrame "
            "indexed by annotator id)"
        )
    columns = [] if annotator_table is None else list(annotator_table.columns)
    if grouping == "demographic" and not attrs:
        raise ValueError(
            "grouping='demographic' needs annotator attributes: none given and no protected attribute or "
            f"annotator table column to default to; pass attributes=[...] naming columns of the annotator table "
            f"(columns: {columns})"
        )
    missing = [a for a in attrs if a not in columns]
    if missing:
        raise ValueError(f"attributes {missing} are not annotator columns; available: {columns}")
    return tuple(attrs)


def _check_clustering(clustering: Any, n_clusters: Any, n_annotators: int) -> int | None:
    OPINION_PARAMS.check("clustering", clustering)
    if n_clusters is None:
        return None
    if not isinstance(n_clusters, int | np.integer) or isinstance(n_clusters, bool | np.bool_):
        raise TypeError(f"n_clusters must be an int or None, got {n_clusters!r}")
    if not 2 <= n_clusters <= max(n_annotators, 2):
        raise ValueError(
            f"n_clusters must be between 2 and the number of annotators ({n_annotators}), got {int(n_clusters)}"
        )
    return int(n_clusters)


def check_opinion_options(
    *,
    annotators: pd.Index,
    annotator_table: pd.DataFrame | None = None,
    default_attributes: Sequence[str] = (),
    grouping: str | pd.Series = OPINION_PARAMS.default("grouping"),
    bins: Any = 5,
    performance: Any = OPINION_PARAMS.default("performance"),
    tie: str = "favorable",
    min_group_size: int = OPINION_PARAMS.default("min_group_size"),
    small_groups: str = OPINION_PARAMS.default("small_groups"),
    aggregate: str | None = OPINION_PARAMS.default("aggregate"),
    ambiguity: str = OPINION_PARAMS.default("ambiguity"),
    attributes: str | Sequence[str] | None = None,
    nan_policy: str = OPINION_PARAMS.default("nan_policy"),
    clustering: Any = OPINION_PARAMS.default("clustering"),
    n_clusters: int | None = OPINION_PARAMS.default("n_clusters"),
    random_state: Any = None,
    warn_group_size: int = OPINION_PARAMS.default("warn_group_size"),
    greater_is_better: bool | None = None,
    adr_reference: str = OPINION_PARAMS.default("adr_reference"),
    adr_fit: str = OPINION_PARAMS.default("adr_fit"),
    has_ratings: bool = False,
) -> OpinionOptions:
    """Validate every option of the opinion-exclusion analysis, in a fixed order, and freeze them.

    The options ``grouping``, ``bins``, ``performance``, ``tie``, ``min_group_size``, ``small_groups``,
    ``aggregate``, ``ambiguity``, ``attributes``, ``nan_policy``, ``clustering``, ``n_clusters``,
    ``random_state`` and ``warn_group_size`` are those of
    :class:`~aif360_subjective.metrics.OpinionExclusionMetric`; ``clustering`` and
    ``n_clusters`` are checked against their rules whatever the grouping (an invalid value is a mistake even where it
    is not read), and ``n_clusters`` against the number of annotators for ``grouping="discovered"``, the only
    grouping that uses them.
    ``greater_is_better`` states the direction of callable measures (:func:`performance_direction`);
    ``adr_reference`` what ADR disagreement is measured against (:data:`ADR_REFERENCES`); ``adr_fit`` how ADR
    bins are fitted (:data:`ADR_FITS`; "cross" only with ``grouping="adr"``). An option that is a row of the
    opinion parameter table (:data:`~aif360_subjective._param_tables.OPINION_PARAMS`) defaults to the row's default,
    the faces' default too (``tests/test_param_faces.py``); the faces pass every option.

    Args:
        annotators: the distinct annotator ids of the data (a grouping Series must share some of them;
            ``n_clusters`` is bounded by their number).
        annotator_table: annotator attributes indexed by annotator id (for "demographic"/"discovered").
        default_attributes: the attributes of ``grouping="demographic"`` when ``attributes`` is None (the
            metric class: the dataset's protected attributes; the function: every column of ``annotators``).
        has_ratings: whether the face was given ratings (the class: ``rating_column=``; the function:
            ``positive_from=``); ``"mae"`` and ``"within_one"`` need them.

    Returns:
        OpinionOptions

    Raises:
        TypeError: an option of the wrong type (``min_group_size=1.5``, ``random_state=True``, ...).
        ValueError: an option of the right type but an invalid value.
    """
    kind, group_labels = check_grouping(grouping, annotators)
    validate_bins(bins)
    specs = resolve_performance(performance)
    higher = performance_direction(specs, greater_is_better)
    _check_ratings_given(specs, has_ratings)
    OPINION_PARAMS.check("adr_reference", adr_reference)
    if adr_reference == "median" and not has_ratings:
        raise ValueError(
            "adr_reference='median' measures disagreement with the item's median rating, but no ratings were "
            "given: pass rating_column= (OpinionExclusionMetric) or positive_from= (opinion_exclusion)"
        )
    OPINION_PARAMS.check("adr_fit", adr_fit)
    if adr_fit == "cross" and kind != "adr":
        raise ValueError(
            f"adr_fit='cross' cross-fits ADR bins and applies to grouping='adr' only, got grouping={kind!r}; "
            "leave adr_fit='same'"
        )
    check_tie(tie)
    size = int(OPINION_PARAMS.check("min_group_size", min_group_size))
    OPINION_PARAMS.check("small_groups", small_groups)
    if aggregate is None:
        aggregate = "pooled" if kind in ("ambiguity", "popularity") else "annotator"
    OPINION_PARAMS.check("aggregate", aggregate)
    OPINION_PARAMS.check("ambiguity", ambiguity)
    OPINION_PARAMS.check("nan_policy", nan_policy)
    attrs = _check_attributes(attributes, kind, annotator_table, default_attributes)
    if kind == "discovered":
        k = _check_clustering(clustering, n_clusters, len(annotators))
    else:
        OPINION_PARAMS.check("clustering", clustering)
        k = OPINION_PARAMS.check("n_clusters", n_clusters)
    check_random_state(random_state)
    warn_size = int(OPINION_PARAMS.check("warn_group_size", warn_group_size))
    return OpinionOptions(
        grouping=kind,
        group_labels=group_labels,
        bins=bins,
        performance=specs,
        tie=tie,
        min_group_size=size,
        small_groups=small_groups,
        aggregate=aggregate,
        ambiguity=ambiguity,
        attributes=attrs,
        nan_policy=nan_policy,
        clustering=clustering,
        n_clusters=k,
        random_state=random_state,
        warn_group_size=warn_size,
        higher_is_better=higher,
        adr_reference=adr_reference,
        adr_fit=adr_fit,
    )


@dataclass(frozen=True)
class ExclusionTestOptions:
    """The validated options of the test of equal service (build with :func:`check_test_options`).

    Attributes:
        n_permutations: Monte-Carlo permutations (the test enumerates every distinct permutation instead when
            there are no more of them than this).
        statistic: one of :data:`TEST_STATISTICS`.
    """

    n_permutations: int
    statistic: str


def check_test_options(n_permutations: Any, statistic: Any) -> ExclusionTestOptions:
    """Validate the options of the test of equal service, the same way for both faces.

    Args:
        n_permutations: an int from :data:`MIN_PERMUTATIONS` to :data:`MAX_PERMUTATIONS`.
        statistic: one of :data:`TEST_STATISTICS`.

    Returns:
        ExclusionTestOptions

    Raises:
        TypeError: ``n_permutations`` is not an int.
        ValueError: too few or too many permutations, or an unknown statistic.
    """
    n = int(OPINION_PARAMS.check("n_permutations", n_permutations))
    OPINION_PARAMS.check("test_statistic", statistic)
    return ExclusionTestOptions(n_permutations=n, statistic=statistic)


@dataclass(frozen=True)
class IntervalOptions:
    """The validated options of the opinion-exclusion bootstrap (build with :func:`check_interval_options`).

    Attributes:
        ci: confidence level in (0, 1).
        n_boot: number of bootstrap replicates (>= 100).
        levels: "both" (annotators within groups, then their annotations), "annotators" or "crossed" (annotators
            within groups and, independently, items).
    """

    ci: float
    n_boot: int
    levels: str


def check_interval_options(
    ci: Any, n_boot: Any, levels: Any, performance: Sequence[PerformanceSpec]
) -> IntervalOptions:
    """Validate the bootstrap options, in the same way for the metric class and the functional API.

    Args:
        ci: confidence level strictly between 0 and 1.
        n_boot: replicates, an int >= 100.
        levels: one of :data:`BOOTSTRAP_LEVELS`.
        performance: the analysis' performance measures (resolved): the bootstrap redraws confusion counts, so
            each must be a named measure.

    Raises:
        ValueError: a bad level, too few or too many replicates (:data:`MAX_BOOT`), or a callable performance.
        TypeError: ``n_boot`` is not an int.
    """
    level = check_ci(ci)
    if isinstance(n_boot, numbers.Integral) and not isinstance(n_boot, bool) and int(n_boot) > MAX_BOOT:
        # the table's rule, with what the replicates would cost
        raise ValueError(f"n_boot must be <= {MAX_BOOT:,}, got {int(n_boot):,}: that many replicates would need at "
                         f"least {int(n_boot) * 3 * 8 / 1e9:,.1f} GB (8 bytes for each of at least 3 values per "
                         "replicate)")
    n = int(OPINION_PARAMS.check("n_boot", n_boot))
    OPINION_PARAMS.check("bootstrap_levels", levels)
    callables = [performance_name([p]) for p in performance if not isinstance(p, str)]
    if callables:
        raise ValueError(
            f"confidence intervals need named performance measures (the bootstrap redraws confusion counts); "
            f"performance holds the callable(s) {callables}: use one of {list(PERFORMANCE_NAMES)} or ci=None"
        )
    return IntervalOptions(ci=level, n_boot=n, levels=levels)
