"""One small function per grouping kind of the opinion-exclusion metrics.

Each grouper returns :class:`UnitGroups`: what is grouped (annotators, items or annotations), the group code
of every unit and the group labels, plus what it could not group. The core
(:func:`aif360_subjective.opinion.core.opinion_exclusion_result`) picks the grouper by
``OpinionOptions.grouping`` through :data:`GROUPERS`, then applies the group-size rules and the performance.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4, "Grouping criteria" (sample-, annotation- and user-level groupings) and 4.4
    (clustering annotators with similar annotation trends).
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (the
    encoding and clusterers reused by ``grouping="discovered"``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._labels import majority_vote, ratio
from .annotations import (
    CrossFit,
    DisagreementRates,
    EncodedAnnotations,
    annotation_popularity,
    disagreement_rates,
    item_ambiguity,
    item_vote_counts,
)
from .groups import assign_bins
from .options import OpinionOptions

__all__ = [
    "ANNOTATOR_GROUPINGS",
    "GROUPERS",
    "MISSING_ATTRIBUTE",
    "UnitGroups",
    "annotator_profiles",
    "demographic_labels",
    "discovered_labels",
    "group_by_adr",
    "group_by_adr_cross",
    "group_by_ambiguity",
    "group_by_demographic",
    "group_by_discovered",
    "group_by_popularity",
    "group_by_series",
    "group_annotators",
    "uqs_ambiguity",
]

#: Value of a missing annotator attribute in the clustering profile of ``grouping="discovered"``.
MISSING_ATTRIBUTE = "(missing)"


def demographic_labels(annotators: pd.DataFrame, attributes: Sequence[str]) -> pd.Series:
    """Group label per annotator from one or several attribute columns (intersections).

    Args:
        annotators: table indexed by annotator id.
        attributes: column names; one gives the value itself, several give a tuple of values.

    Returns:
        pandas.Series: indexed by annotator id; NaN where any attribute is missing.

    Raises:
        ValueError: if an attribute is not a column of ``annotators``.
    """
    attributes = list(attributes)
    if not attributes:
        raise ValueError("attributes must name at least one annotator column")
    missing = [a for a in attributes if a not in annotators.columns]
    if missing:
        raise ValueError(
            f"attributes {missing} are not annotator columns; available: {list(annotators.columns)}"
        )
    sub = annotators[attributes]
    incomplete = sub.isna().any(axis=1).to_numpy()
    if len(attributes) == 1:
        out = sub.iloc[:, 0].astype(object)
    else:
        out = pd.Series(list(sub.itertuples(index=False, name=None)), index=sub.index, dtype=object)
    out[incomplete] = np.nan
    out.name = " & ".join(attributes)
    return out



def annotator_profiles(
    enc: EncodedAnnotations,
    annotator_table: pd.DataFrame | None = None,
    attributes: Sequence[str] | None = None,
    tie: str = "favorable",
) -> pd.DataFrame:
    """What each annotator is like, for clustering annotators (``grouping="discovered"``).

    Behaviour, from the annotations: ``adr`` (disagreement with the majority vote), ``positive_share``
    (share of the annotator's labels that are the positive label) and ``dissent_positive`` (among the
    annotator's disagreements with the majority, the share where the annotator said positive: 0.5
    when they never disagree), which separates annotators who disagree *in the same direction* -- an
    opinion -- from annotators who disagree both ways. Then the annotator attributes (categorical
    values as strings, missing ones as ``"(missing)"``).

    Args:
        enc: encoded annotations.
        annotator_table: attributes indexed by annotator id (optional).
        attributes: columns of ``annotator_table`` to add to the behaviour (default: none).
        tie: majority-vote tie policy.

    Returns:
        pandas.DataFrame: one row per annotator (index = annotator id).
    """
    rates = disagreement_rates(enc, tie)
    n, n_pos = item_vote_counts(enc)
    k = len(enc.annotators)
    counts = np.bincount(enc.annotator_codes, minlength=k).astype(np.float64)
    pos = np.bincount(enc.annotator_codes, weights=enc.t, minlength=k)
    mv = majority_vote(n, n_pos, tie)[enc.item_codes]
    dissent = ~np.isnan(mv) & (enc.t != (mv == 1.0))
    n_dis = np.bincount(enc.annotator_codes, weights=dissent, minlength=k)
    n_dis_pos = np.bincount(enc.annotator_codes, weights=dissent & enc.t, minlength=k)
    dissent_pos = ratio(n_dis_pos, n_dis, fill=0.5)
    profile = pd.DataFrame(
        {"adr": np.nan_to_num(rates.adr, nan=0.0), "positive_share": pos / counts,
         "dissent_positive": dissent_pos},
        index=enc.annotators,
    )
    cols = list(attributes or [])
    if cols:
        if annotator_table is None:
            raise ValueError(f"attributes {cols} given without an annotator table")
        missing = [c for c in cols if c not in annotator_table.columns]
        if missing:
            raise ValueError(f"attributes {missing} are not annotator columns; available: "
                             f"{list(annotator_table.columns)}")
        table = annotator_table[cols].reindex(enc.annotators)
        for c in cols:
            col = table[c]
            if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
                profile[c] = col.fillna(col.median() if col.notna().any() else 0.0).to_numpy(np.float64)
            else:
                profile[c] = col.astype(object).where(col.notna(), MISSING_ATTRIBUTE).astype(str).to_numpy()
    return profile


def discovered_labels(
    enc: EncodedAnnotations,
    annotator_table: pd.DataFrame | None = None,
    attributes: Sequence[str] | None = None,
    *,
    tie: str = "favorable",
    clustering: Any = "kmeans",
    n_clusters: int | None = None,
    random_state: Any = None,
) -> pd.Series:
    """Annotator groups discovered by clustering annotators on their profiles.

    The profiles (:func:`annotator_profiles`: behaviour and attributes) are encoded as the subgroup
    discovery encodes its data (one-hot with the first level dropped, min-max scaling) and clustered
    with the subgroup-discovery clusterers; ``n_clusters=None`` chooses k by x-means.

    Args:
        enc: encoded annotations.
        annotator_table, attributes, tie: as in :func:`annotator_profiles`.
        clustering: a clustering name of :func:`aif360_subjective.detectors.fit_clustering` ("kmeans"
            by default: single linkage tends to chain annotators into one large group) or a
            scikit-learn clusterer instance.
        n_clusters: number of groups (None = x-means).
        random_state: seed of the clustering.

    Returns:
        pandas.Series: group label ("cluster 0", ...) per annotator id.

    References:
        Balayn et al. (2019), Section 4.4 ("clustering ... of annotators with similar annotation
        trends"); J. Schäfer and L. Wiese, ASDF-Dashboard (the encoding and clusterers).
    """
    profile = annotator_profiles(enc, annotator_table, attributes, tie)
    if len(profile) < 2:
        return pd.Series("cluster 0", index=profile.index, name="discovered")
    if n_clusters is not None and not 2 <= int(n_clusters) <= len(profile):
        raise ValueError(f"n_clusters must be between 2 and the number of annotators ({len(profile)}), "
                         f"got {n_clusters}")
    # imported here, not at the top: the Dask and Spark workers import this module (through opinion._dask) and
    # never cluster; the subgroup discovery would cost each worker seconds of imports (scipy.stats, sklearn)
    from ..detectors import detect_categorical, encode_for_clustering, fit_clustering

    Z, _ = encode_for_clustering(profile, detect_categorical(profile))
    labels = np.asarray(fit_clustering(Z, clustering, n_clusters, random_state).labels)
    return pd.Series([f"cluster {c}" for c in labels], index=profile.index, name="discovered")


def uqs_ambiguity(enc: EncodedAnnotations) -> np.ndarray:
    """Item ambiguity as 1 - CrowdTruth unit quality score (UQS), per item code.

    Uses :func:`aif360_subjective.quality.crowdtruth_scores` on the binary labels.
    """
    from ..quality import crowdtruth_scores  # here: the workers never score (it imports the datasets and aif360)

    df = pd.DataFrame(
        {"unit": enc.item_codes, "worker": enc.annotator_codes, "label": enc.t.astype(np.int64)}
    )
    res = crowdtruth_scores(df, unit_col="unit", worker_col="worker", label_col="label")
    uqs = res.units["uqs"].reindex(np.arange(len(enc.items)))
    return np.asarray(1.0 - uqs.to_numpy(dtype=np.float64), dtype=np.float64)


# ----------------------------------------------------------------------------------------------
# one grouper per grouping kind
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class UnitGroups:
    """What a grouper returns: the unit kind, a group code per unit and the group labels.

    Attributes:
        unit: what is grouped: "annotator", "item" or "annotation" (``min_group_size`` counts these).
        codes: group code of every unit (annotator, item or annotation code order); -1 = ungrouped.
        labels: the group labels (ADR/ambiguity/popularity bins as Intervals, attribute values, ...).
        ordered: whether the groups are ordered bins (small ones merge with a neighbour) or not.
        notes: remarks of the binning (e.g. fewer quantile bins than asked).
        excluded: what was left out and why, with counts.
    """

    unit: str
    codes: np.ndarray
    labels: pd.Index
    ordered: bool = True
    notes: tuple[str, ...] = ()
    excluded: dict[str, int] = field(default_factory=dict)


Grouper = Callable[[EncodedAnnotations, OpinionOptions, DisagreementRates, "pd.DataFrame | None"], UnitGroups]


def _binned(unit: str, values: np.ndarray, bins: Any, excluded: dict[str, int]) -> UnitGroups:
    codes, labels, notes = assign_bins(values, bins)
    return UnitGroups(unit, codes, labels, True, tuple(notes), excluded)


def _adr_binned(unit: str, adr: np.ndarray, bins: Any, rates: DisagreementRates, without_adr: str) -> UnitGroups:
    """Units binned by their ADR, counting what the bins leave out: the annotations on dropped ties (not counted in
    any ADR) and the units without an ADR (``without_adr`` names them)."""
    excluded: dict[str, int] = {}
    if rates.n_tie_annotations:
        excluded["annotations on dropped ties (not counted in ADR)"] = rates.n_tie_annotations
    n_nan = int(np.isnan(adr).sum())
    if n_nan:
        excluded[without_adr] = n_nan
    return _binned(unit, adr, bins, excluded)


def group_by_adr(enc: EncodedAnnotations, options: OpinionOptions, rates: DisagreementRates,
                 annotator_table: pd.DataFrame | None = None) -> UnitGroups:
    """Annotators binned by their average disagreement rate (ADR) with the majority vote (the paper)."""
    return group_annotators(options, enc.annotators, rates, annotator_table)


def group_by_adr_cross(fit: CrossFit, options: OpinionOptions, rates: DisagreementRates) -> UnitGroups:
    """Annotator half-samples binned by their ADR (``adr_fit="cross"``): unit ``2 * annotator + half`` holds the
    ADR on that half of the annotator's items and groups the annotations of the *other* half
    (:meth:`~aif360_subjective.opinion.annotations.CrossFit.half_unit`). The bins (equal-width, quantile or given
    edges) are set over all half-sample ADRs."""
    return _adr_binned("annotator half-sample", fit.adr.ravel(), options.bins, rates,
                       "annotator half-samples without ADR (no counted annotation on that half of the items)")


def group_by_ambiguity(enc: EncodedAnnotations, options: OpinionOptions, rates: DisagreementRates,
                       annotator_table: pd.DataFrame | None = None) -> UnitGroups:
    """Items binned by the ambiguity of their annotations (``options.ambiguity``)."""
    if options.ambiguity == "uqs":
        values = uqs_ambiguity(enc)
    else:
        values = item_ambiguity(*item_vote_counts(enc), measure=options.ambiguity)
    values = np.asarray(values, dtype=np.float64)
    n_nan = int(np.isnan(values).sum())
    excluded = {"items without an ambiguity score": n_nan} if n_nan else {}
    return _binned("item", values, options.bins, excluded)


def group_by_popularity(enc: EncodedAnnotations, options: OpinionOptions, rates: DisagreementRates,
                        annotator_table: pd.DataFrame | None = None) -> UnitGroups:
    """Annotations binned by the share of identical labels on their item (itself included)."""
    n, n_pos = item_vote_counts(enc)
    return _binned("annotation", annotation_popularity(enc, n, n_pos), options.bins, {})


def _labelled(annotators: pd.Index, annotator_labels: pd.Series) -> UnitGroups:
    """Annotators grouped by a label per annotator id (missing annotators / NaN labels left ungrouped)."""
    lab = annotator_labels.reindex(annotators)
    n_missing = int(lab.isna().sum())
    excluded = {"annotators without a group label": n_missing} if n_missing else {}
    values = lab.to_numpy(dtype=object)
    try:
        codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    except TypeError:  # unorderable mixed labels: order of first appearance
        codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=True)
    labels = pd.Index(list(uniques), dtype=object, tupleize_cols=False)
    return UnitGroups("annotator", codes.astype(np.int64), labels, False, (), excluded)


def group_by_series(enc: EncodedAnnotations, options: OpinionOptions, rates: DisagreementRates,
                    annotator_table: pd.DataFrame | None = None) -> UnitGroups:
    """Annotators grouped by the user's Series mapping annotator ids to group labels."""
    return group_annotators(options, enc.annotators, rates, annotator_table)


def group_by_demographic(enc: EncodedAnnotations, options: OpinionOptions, rates: DisagreementRates,
                         annotator_table: pd.DataFrame | None = None) -> UnitGroups:
    """Annotators grouped by the values (intersections for several) of ``options.attributes``."""
    return group_annotators(options, enc.annotators, rates, annotator_table)


def group_by_discovered(enc: EncodedAnnotations, options: OpinionOptions, rates: DisagreementRates,
                        annotator_table: pd.DataFrame | None = None) -> UnitGroups:
    """Annotators grouped by clustering their behaviour profiles (and ``options.attributes``)."""
    # Behaviour only unless attributes are named: one-hot attributes, min-max scaled, would
    # dominate the distances (a 0/1 jump per level against ADR differences of a few tenths) and
    # split annotators by demographics instead of by opinion.
    labels = discovered_labels(
        enc, annotator_table, options.attributes or None, tie=options.tie, clustering=options.clustering,
        n_clusters=options.n_clusters, random_state=options.random_state,
    )
    return _labelled(enc.annotators, labels)


#: Groupings of annotators computed from the annotator ids and their ADR alone (:func:`group_annotators`): what a
#: back end holding only per-annotator counts (the Dask path) can group by.
ANNOTATOR_GROUPINGS = ("adr", "series", "demographic")


def group_annotators(options: OpinionOptions, annotators: pd.Index, rates: DisagreementRates,
                     annotator_table: pd.DataFrame | None = None) -> UnitGroups:
    """The groups of an annotator grouping of :data:`ANNOTATOR_GROUPINGS`, without the annotation rows.

    Args:
        options: validated options.
        annotators: the distinct annotator ids (the order of the ADR values).
        rates: ADR per annotator.
        annotator_table: annotator attributes ("demographic").

    Returns:
        UnitGroups
    """
    if options.grouping == "adr":
        return _adr_binned("annotator", rates.adr, options.bins, rates, "annotators without ADR (only tied items)")
    if options.grouping == "series":
        assert options.group_labels is not None  # guaranteed by check_opinion_options for "series"
        return _labelled(annotators, options.group_labels)
    if options.grouping == "demographic":
        assert annotator_table is not None  # check_opinion_options requires the attribute columns
        return _labelled(annotators, demographic_labels(annotator_table, options.attributes))
    raise ValueError(f"grouping {options.grouping!r} needs the annotation rows; from annotator figures alone: "
                     f"{list(ANNOTATOR_GROUPINGS)}")


#: The grouper of every ``OpinionOptions.grouping`` kind.
GROUPERS: dict[str, Grouper] = {
    "adr": group_by_adr,
    "ambiguity": group_by_ambiguity,
    "popularity": group_by_popularity,
    "series": group_by_series,
    "demographic": group_by_demographic,
    "discovered": group_by_discovered,
}
