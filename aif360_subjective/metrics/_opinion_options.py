"""Grouping options of the opinion-exclusion metrics, shared by the metric class and the functional API.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4, "Grouping criteria" (sample-, annotation- and user-level groupings).
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np
import pandas as pd

from ._opinion_core import (
    AMBIGUITY_MEASURES,
    EncodedAnnotations,
    check_choice,
    compute_opinion_exclusion,
    disagreement_rates,
    item_ambiguity,
    item_vote_counts,
    majority_vote,
)

GROUPING_NAMES = ("adr", "ambiguity", "popularity", "demographic", "discovered")

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
    with np.errstate(invalid="ignore", divide="ignore"):
        dissent_pos = np.where(n_dis > 0, n_dis_pos / np.maximum(n_dis, 1), 0.5)
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
    clustering="kmeans",
    n_clusters: int | None = None,
    random_state=None,
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
    from aif360_subjective.detectors import detect_categorical, encode_for_clustering, fit_clustering

    profile = annotator_profiles(enc, annotator_table, attributes, tie)
    if len(profile) < 2:
        return pd.Series("cluster 0", index=profile.index, name="discovered")
    if n_clusters is not None and not 2 <= int(n_clusters) <= len(profile):
        raise ValueError(f"n_clusters must be between 2 and the number of annotators ({len(profile)}), "
                         f"got {n_clusters}")
    Z, _ = encode_for_clustering(profile, detect_categorical(profile))
    labels = np.asarray(fit_clustering(Z, clustering, n_clusters, random_state).labels)
    return pd.Series([f"cluster {c}" for c in labels], index=profile.index, name="discovered")


def check_discovered_options(clustering, n_clusters, random_state, n_annotators: int) -> None:
    """Validate the options of ``grouping="discovered"`` before any clustering runs.

    Raises:
        ValueError: unknown clustering name, or ``n_clusters`` outside [2, number of annotators].
        TypeError: ``clustering`` neither a name nor a scikit-learn clusterer, ``n_clusters`` not an int,
            ``random_state`` not None, an int or a numpy Generator.
    """
    from aif360_subjective.detectors.clustering import CLUSTERINGS, as_generator

    if isinstance(clustering, str):
        check_choice(clustering, "clustering", CLUSTERINGS)
    elif not (hasattr(clustering, "fit") and hasattr(clustering, "get_params")):
        raise TypeError(
            f"clustering must be one of {list(CLUSTERINGS)} or a scikit-learn clusterer instance, "
            f"got {type(clustering).__name__}"
        )
    if n_clusters is not None:
        if isinstance(n_clusters, bool) or not isinstance(n_clusters, Integral):
            raise TypeError(f"n_clusters must be an int or None, got {n_clusters!r}")
        if not 2 <= n_clusters <= max(n_annotators, 2):
            raise ValueError(
                f"n_clusters must be between 2 and the number of annotators ({n_annotators}), got {n_clusters}"
            )
    as_generator(random_state)


def check_grouping_series(grouping: pd.Series, annotator_ids) -> None:
    """A grouping Series must map at least one annotator of the data (else every annotator is ungrouped).

    Raises:
        ValueError: no index value of ``grouping`` is an annotator id (e.g. ids of another dtype).
    """
    ids = pd.Index(pd.unique(np.asarray(annotator_ids, dtype=object)))
    if not grouping.index.isin(ids).any():
        raise ValueError(
            f"grouping Series shares no annotator id with the data (its index holds e.g. "
            f"{list(grouping.index[:3])}, the annotators are e.g. {list(ids[:3])}): index it by annotator id, "
            "with the same dtype"
        )


def uqs_ambiguity(enc: EncodedAnnotations) -> np.ndarray:
    """Item ambiguity as 1 - CrowdTruth unit quality score (UQS), per item code.

    Needs :func:`aif360_subjective.quality.crowdtruth_scores`.

    Raises:
        ImportError: if the CrowdTruth module is not available.
    """
    try:
        from aif360_subjective.quality import crowdtruth_scores
    except ImportError as err:  # the CrowdTruth module is optional for this metric
        raise ImportError(
            "ambiguity='uqs' needs aif360_subjective.quality.crowdtruth_scores, which is not available; "
            "use ambiguity='disagreement' or 'entropy'"
        ) from err
    df = pd.DataFrame(
        {"unit": enc.item_codes, "worker": enc.annotator_codes, "label": enc.t.astype(np.int64)}
    )
    res = crowdtruth_scores(df, unit_col="unit", worker_col="worker", label_col="label")
    uqs = res.units["uqs"].reindex(np.arange(len(enc.items)))
    return 1.0 - uqs.to_numpy(dtype=np.float64)


def prepare_grouping(
    enc: EncodedAnnotations,
    grouping,
    *,
    ambiguity: str = "disagreement",
    annotator_table: pd.DataFrame | None = None,
    attributes=None,
    tie: str = "favorable",
    clustering="kmeans",
    n_clusters: int | None = None,
    random_state=None,
) -> dict:
    """Translate a user-level ``grouping`` option into :func:`compute_opinion_exclusion` arguments.

    Args:
        enc: encoded annotations.
        grouping: "adr", "ambiguity", "popularity", "demographic", "discovered", or a pandas Series
            mapping annotator ids to group labels.
        ambiguity: item ambiguity measure for "ambiguity": "disagreement", "entropy" or "uqs"
            (1 - CrowdTruth UQS).
        annotator_table: annotator attributes indexed by annotator id (for "demographic").
        attributes: a column name or a list of them (for "demographic"; their intersections; for
            "discovered": attributes added to the behaviour profile, default none).
        tie, clustering, n_clusters, random_state: for "discovered" (see :func:`discovered_labels`).

    Returns:
        dict: keyword arguments ``grouping``, ``grouping_name`` and ``item_values`` or
        ``annotator_labels``.

    Raises:
        ValueError: for unknown grouping names or missing demographic information.
        TypeError: for other grouping types.
    """
    if isinstance(grouping, pd.Series):
        check_grouping_series(grouping, enc.annotators)
        name = grouping.name if grouping.name is not None else "custom"
        return {"grouping": "labels", "grouping_name": str(name), "annotator_labels": grouping}
    if not isinstance(grouping, str):
        raise TypeError(
            f"grouping must be one of {list(GROUPING_NAMES)} or a pandas Series mapping annotator ids "
            f"to groups, got {type(grouping).__name__}"
        )
    check_choice(grouping, "grouping", GROUPING_NAMES)
    if grouping in ("adr", "popularity"):
        return {"grouping": grouping, "grouping_name": grouping}
    if grouping == "ambiguity":
        check_choice(ambiguity, "ambiguity", AMBIGUITY_MEASURES)
        values = (
            uqs_ambiguity(enc)
            if ambiguity == "uqs"
            else item_ambiguity(*item_vote_counts(enc), measure=ambiguity)
        )
        return {"grouping": "ambiguity", "grouping_name": f"ambiguity ({ambiguity})", "item_values": values}
    if grouping == "discovered":
        # Behaviour only unless attributes are named: one-hot attributes, min-max scaled, would
        # dominate the distances (a 0/1 jump per level against ADR differences of a few tenths) and
        # split annotators by demographics instead of by opinion.
        attrs = None if attributes is None else ([attributes] if isinstance(attributes, str) else list(attributes))
        check_discovered_options(clustering, n_clusters, random_state, len(enc.annotators))
        labels = discovered_labels(enc, annotator_table, attrs, tie=tie, clustering=clustering,
                                   n_clusters=n_clusters, random_state=random_state)
        name = f"discovered ({clustering if isinstance(clustering, str) else type(clustering).__name__})"
        return {"grouping": "labels", "grouping_name": name, "annotator_labels": labels}
    if annotator_table is None or annotator_table.shape[1] == 0:
        raise ValueError("grouping='demographic' needs an annotator table with attribute columns")
    if attributes is None:
        raise ValueError("grouping='demographic' needs attributes (an annotator column or a list of them)")
    attrs = [attributes] if isinstance(attributes, str) else list(attributes)
    labels = demographic_labels(annotator_table, attrs)
    name = "demographic: " + " & ".join(attrs)
    return {"grouping": "labels", "grouping_name": name, "annotator_labels": labels}


def opinion_exclusion_result(
    enc: EncodedAnnotations,
    grouping,
    *,
    ambiguity: str = "disagreement",
    annotator_table: pd.DataFrame | None = None,
    attributes=None,
    tie: str = "favorable",
    clustering="kmeans",
    n_clusters: int | None = None,
    random_state=None,
    **options,
):
    """Grouping, then the computation: the one core behind ``OpinionExclusionMetric`` and
    :func:`aif360_subjective.sklearn.metrics.opinion_exclusion`.

    Args:
        enc: encoded annotations.
        grouping, ambiguity, annotator_table, attributes, tie, clustering, n_clusters, random_state: see
            :func:`prepare_grouping`.
        **options: the other keyword arguments of :func:`compute_opinion_exclusion` (bins, performance,
            min_group_size, small_groups, aggregate, nan_policy).

    Returns:
        OpinionExclusionResult
    """
    spec = prepare_grouping(
        enc, grouping, ambiguity=ambiguity, annotator_table=annotator_table, attributes=attributes, tie=tie,
        clustering=clustering, n_clusters=n_clusters, random_state=random_state,
    )
    return compute_opinion_exclusion(enc, tie=tie, **options, **spec)
