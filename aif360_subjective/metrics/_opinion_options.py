"""Grouping options of the opinion-exclusion metrics, shared by the metric class and the functional API.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4, "Grouping criteria" (sample-, annotation- and user-level groupings).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ._opinion_core import (
    AMBIGUITY_MEASURES,
    EncodedAnnotations,
    check_choice,
    item_ambiguity,
    item_vote_counts,
)

GROUPING_NAMES = ("adr", "ambiguity", "popularity", "demographic")


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
) -> dict:
    """Translate a user-level ``grouping`` option into :func:`compute_opinion_exclusion` arguments.

    Args:
        enc: encoded annotations.
        grouping: "adr", "ambiguity", "popularity", "demographic", or a pandas Series mapping
            annotator ids to group labels.
        ambiguity: item ambiguity measure for "ambiguity": "disagreement", "entropy" or "uqs"
            (1 - CrowdTruth UQS).
        annotator_table: annotator attributes indexed by annotator id (for "demographic").
        attributes: a column name or a list of them (for "demographic"; their intersections).

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
    if annotator_table is None or annotator_table.shape[1] == 0:
        raise ValueError("grouping='demographic' needs an annotator table with attribute columns")
    if attributes is None:
        raise ValueError("grouping='demographic' needs attributes (an annotator column or a list of them)")
    attrs = [attributes] if isinstance(attributes, str) else list(attributes)
    labels = demographic_labels(annotator_table, attrs)
    name = "demographic: " + " & ".join(attrs)
    return {"grouping": "labels", "grouping_name": name, "annotator_labels": labels}
