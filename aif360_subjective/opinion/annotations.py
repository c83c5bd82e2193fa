"""Annotations as aligned arrays, and what is computed from them before any grouping.

The encoded annotations (:class:`EncodedAnnotations`), each item's votes, each annotator's average
disagreement rate (ADR) with the majority vote, item ambiguity and annotation popularity.

Labels are handled as "positive" indicators: ``y == pos_label`` (AIF360's favourable label, or the
``pos_label`` of the functional API). The tie policy of the majority vote ("favorable",
"unfavorable", "drop") refers to that positive label.

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1 (ADR) and "Grouping criteria" (sample ambiguity, annotation popularity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from .._labels import binary_entropy, majority_vote, ratio, vote_counts
from .._validation import duplicate_pairs_error, plain

__all__ = [
    "DisagreementRates",
    "EncodedAnnotations",
    "adr_from_counts",
    "annotation_popularity",
    "binary_view",
    "check_positive_from",
    "check_ratings",
    "disagreement_rates",
    "encode_annotations",
    "ids_or_level",
    "CrossFit",
    "HalfCounts",
    "cross_fit",
    "item_ambiguity",
    "item_halves",
    "item_vote_counts",
    "row_disagreements",
    "median_disagreements",
    "row_popularity",
    "unit_mean_absolute_error",
    "unit_within_one",
]


@dataclass(frozen=True)
class EncodedAnnotations:
    """Annotations as aligned arrays with integer codes for items and annotators.

    Attributes:
        t: bool array, annotator's label is the positive label.
        p: bool array, prediction is the positive label.
        item_codes, annotator_codes: int64 codes into ``items`` / ``annotators``.
        items, annotators: the distinct ids (sorted), the codes' categories.
        y_true, y_pred: the raw label arrays (handed to user callables).
        r_true, r_pred: the annotators' and the predicted ratings (float arrays) for the measures on ratings
            (``"mae"``, ``"within_one"``; handed to user callables instead of the labels when given), or None.
    """

    t: np.ndarray
    p: np.ndarray
    item_codes: np.ndarray
    annotator_codes: np.ndarray
    items: pd.Index
    annotators: pd.Index
    y_true: np.ndarray
    y_pred: np.ndarray
    r_true: np.ndarray | None = None
    r_pred: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.t)

    def callable_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """What a user performance callable receives: the ratings when given, else the raw labels."""
        if self.r_true is not None and self.r_pred is not None:
            return self.r_true, self.r_pred
        return self.y_true, self.y_pred


def check_ratings(values: Any, name: str, n: int) -> np.ndarray:
    """Ratings as a float array: numbers (numeric strings such as LeWiDi's ``"4"`` converted), no missing value,
    ``n`` of them.

    Raises:
        ValueError: wrong length, or values that are missing or not numbers (counted, first rows named).
    """
    raw = pd.Series(_as_1d(values, name))
    if len(raw) != n:
        raise ValueError(f"{name} must hold one rating per annotation ({n}), got {len(raw)}")
    num: np.ndarray = np.asarray(pd.to_numeric(raw, errors="coerce"), dtype=np.float64)
    bad = ~np.isfinite(num)
    if bad.any():
        rows = np.flatnonzero(bad)[:5].tolist()
        examples = [plain(v) for v in raw.iloc[rows]]
        raise ValueError(
            f"{name} must hold numeric ratings: {int(bad.sum())} value(s) are missing or not numbers, "
            f"at rows {rows} ({examples})"
        )
    return num


def check_positive_from(positive_from: Any, pos_label: Any) -> float:
    """The cut of the binary view of ratings (1 = rating >= ``positive_from``, else 0), checked with ``pos_label``.

    Raises:
        TypeError: ``positive_from`` is not a number.
        ValueError: ``positive_from`` is not finite, or ``pos_label`` is not 1 or 0 (the view's labels).
    """
    if isinstance(positive_from, bool) or not isinstance(positive_from, Real):
        raise TypeError(f"positive_from must be a number (the lowest rating of the positive class), got "
                        f"{positive_from!r}")
    if not math.isfinite(float(positive_from)):
        raise ValueError(f"positive_from must be a finite number, got {float(positive_from)}")
    if isinstance(pos_label, bool) or pos_label not in (0, 1):
        raise ValueError(f"with positive_from, the binary view codes a rating >= positive_from as 1 and the others "
                         f"as 0: pos_label must be 1 or 0, got {pos_label!r}")
    return float(positive_from)


def ids_or_level(y_true: Any, ids: Any, default_level: str, name: str) -> Any:
    """The item or annotator of each annotation: ``ids`` itself when it is an array, else the index level of
    ``y_true`` it names (None: ``default_level``).

    Raises:
        ValueError: no such index level (``name`` says which argument to pass).
    """
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


def binary_view(y_true: Any, y_pred: Any, positive_from: Any, pos_label: Any) -> tuple[Any, ...]:
    """Ratings as (binary y_true, binary y_pred, (ratings, predicted ratings)): 1 = rating >= positive_from."""
    cut = check_positive_from(positive_from, pos_label)
    n = len(y_true)
    r_true, r_pred = check_ratings(y_true, "y_true", n), check_ratings(y_pred, "y_pred", n)
    return (r_true >= cut).astype(np.int64), (r_pred >= cut).astype(np.int64), (r_true, r_pred)


def _as_1d(x: Any, name: str) -> np.ndarray:
    arr = x.to_numpy() if isinstance(x, pd.Series | pd.Index) else np.asarray(x)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def _factorize(ids: np.ndarray, name: str) -> tuple[np.ndarray, pd.Index]:
    if pd.isna(ids).any():
        rows = np.flatnonzero(pd.isna(ids))[:5].tolist()
        raise ValueError(f"{name} contains missing values at rows {rows}")
    try:
        codes, uniques = pd.factorize(ids, sort=True)
    except TypeError:  # mixed, unorderable ids: keep order of appearance
        codes, uniques = pd.factorize(ids, sort=False)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def encode_annotations(
    y_true: Any,
    y_pred: Any,
    item_ids: Any,
    annotator_ids: Any,
    pos_label: Any = 1,
    ratings: tuple[Any, Any] | None = None,
) -> EncodedAnnotations:
    """Validate aligned annotation arrays and encode them.

    Args:
        y_true: the annotators' labels, one per annotation.
        y_pred: the model's predictions for the same annotations.
        item_ids: the item of each annotation.
        annotator_ids: the annotator of each annotation.
        pos_label: the positive (favourable) label.
        ratings: optional (annotators' ratings, predicted ratings), one of each per annotation, for the
            measures on ratings, already checked by the face with :func:`check_ratings`. ``y_true``/``y_pred``
            stay the binary view the majority vote, ADR and the other groupings use.

    Returns:
        EncodedAnnotations

    Raises:
        ValueError: on misaligned lengths, missing ids or labels, or more than two distinct labels. (Duplicated
            (item, annotator) pairs are refused by the faces: :func:`check_unique_pairs`.)
    """
    arrays = {
        "y_true": _as_1d(y_true, "y_true"),
        "y_pred": _as_1d(y_pred, "y_pred"),
        "item_ids": _as_1d(item_ids, "item_ids"),
        "annotator_ids": _as_1d(annotator_ids, "annotator_ids"),
    }
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(
            f"y_true, y_pred, item_ids and annotator_ids must have the same length, got {lengths}"
        )
    if lengths["y_true"] == 0:
        raise ValueError("no annotations: y_true is empty")
    yt, yp = arrays["y_true"], arrays["y_pred"]
    for name, y in (("y_true", yt), ("y_pred", yp)):
        missing = pd.isna(y)
        if missing.any():
            raise ValueError(
                f"{name} contains missing labels at rows {np.flatnonzero(missing)[:5].tolist()}; "
                "drop those annotations first"
            )
    values = pd.unique(np.concatenate([pd.unique(yt), pd.unique(yp)]).astype(object))
    if len(values) > 2:
        raise ValueError(
            f"labels must be binary: y_true and y_pred hold {len(values)} distinct values "
            f"{sorted(map(repr, values))[:6]}; expected at most two (pos_label={pos_label!r} and one other)"
        )
    if len(values) == 2 and not any(_same(v, pos_label) for v in values):
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the labels {sorted(map(repr, values))} of y_true and y_pred"
        )
    item_codes, items = _factorize(arrays["item_ids"], "item_ids")
    ann_codes, annotators = _factorize(arrays["annotator_ids"], "annotator_ids")
    r_true = r_pred = None
    if ratings is not None:
        # the faces checked them (check_ratings, with their own argument names)
        r_true, r_pred = (np.asarray(r, dtype=np.float64) for r in ratings)
    return EncodedAnnotations(
        t=np.asarray(yt == pos_label, dtype=bool),
        p=np.asarray(yp == pos_label, dtype=bool),
        item_codes=item_codes,
        annotator_codes=ann_codes,
        items=items,
        annotators=annotators,
        y_true=yt,
        y_pred=yp,
        r_true=r_true,
        r_pred=r_pred,
    )


def has_repeats(key: np.ndarray) -> bool:
    """Whether an int64 array holds a value twice (a sort: several times faster than hashing for the clean case;
    the rows are found by the caller only when there are repeats)."""
    k = np.sort(key)
    return bool((k[1:] == k[:-1]).any())


def check_unique_pairs(item_codes: np.ndarray, annotator_codes: np.ndarray, items: pd.Index, annotators: pd.Index,
                       index: Any = None) -> None:
    """Every (item, annotator) pair at most once (the dataset class's rule, with its message).

    Args:
        item_codes, annotator_codes: integer codes of the ids (non-negative), one per row.
        items, annotators: the ids the codes stand for (for the message).
        index: row labels for the message (default: positions).

    Raises:
        ValueError: :func:`~aif360_subjective._validation.duplicate_pairs_error`.
    """
    if not len(item_codes):
        return
    width = np.int64(annotator_codes.max()) + 1
    key = item_codes.astype(np.int64) * width + annotator_codes
    if not has_repeats(key):
        return
    dup = pd.Series(key).duplicated().to_numpy()
    i = int(dup.argmax())
    raise duplicate_pairs_error(int(dup.sum()), items[item_codes[i]], annotators[annotator_codes[i]],
                                i if index is None else index[i])


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------------------------------------
# majority vote, ADR, ambiguity, popularity
# ----------------------------------------------------------------------------------------------
def item_vote_counts(enc: EncodedAnnotations) -> tuple[np.ndarray, np.ndarray]:
    """Number of annotations and of positive labels per item (float arrays over ``enc.items``)."""
    return vote_counts(enc.item_codes, enc.t, len(enc.items))


@dataclass(frozen=True)
class DisagreementRates:
    """ADR per annotator and what the tie policy removed."""

    adr: np.ndarray  # per annotator code, NaN when no annotation was counted
    n_counted: np.ndarray  # annotations counted per annotator
    n_tie_items: int  # items whose tie was dropped
    n_tie_annotations: int  # annotations on those items (not counted in ADR)
    n_resolved_tie_items: int = 0  # tied items the policy resolved to one label (tie="favorable"/"unfavorable")


def disagreement_rates(
    enc: EncodedAnnotations, tie: str = "favorable", reference: str = "majority"
) -> DisagreementRates:
    """Average disagreement rate (ADR) of every annotator with the items' majority vote.

    ADR = share of the annotator's labels that differ from the majority vote of their item,
    the vote being taken over all the item's annotations (the annotator's own included).
    With ``tie="drop"`` the annotations on tied items are not counted; an annotator with no
    counted annotation gets NaN.

    With ``reference="median"`` (ratings needed) an annotation disagrees when its rating is more than half a
    scale point from its item's median rating (all the item's ratings, its own included): the median itself
    agrees, or both middle points when the median falls between two of them. ``tie`` does not apply.

    Args:
        enc: encoded annotations.
        tie: tie policy of the majority vote.
        reference: "majority" (the binary majority vote, the paper's) or "median" (ratings).

    Returns:
        DisagreementRates

    References:
        Balayn et al. (2019), Section 4.1 a).
    """
    if reference == "median":
        return _median_disagreement_rates(enc)
    n, n_pos = item_vote_counts(enc)
    mv = majority_vote(n, n_pos, tie)
    row_mv = mv[enc.item_codes]
    counted = ~np.isnan(row_mv)
    disagree = counted & (enc.t != (row_mv == 1.0))
    k = len(enc.annotators)
    n_counted = np.bincount(enc.annotator_codes, weights=counted, minlength=k)
    n_dis = np.bincount(enc.annotator_codes, weights=disagree, minlength=k)
    return DisagreementRates(
        adr=adr_from_counts(n_dis, n_counted),
        n_counted=n_counted,
        n_tie_items=int(np.isnan(mv).sum()),
        n_tie_annotations=int((~counted).sum()),
        n_resolved_tie_items=int((2.0 * n_pos == n).sum()) - int(np.isnan(mv).sum()),
    )


def adr_from_counts(n_disagreements: np.ndarray, n_counted: np.ndarray) -> np.ndarray:
    """ADR = disagreements / counted annotations per annotator; NaN without a counted annotation."""
    return ratio(n_disagreements, n_counted)


def median_disagreements(ratings: np.ndarray, item_codes: np.ndarray, n_items: int) -> np.ndarray:
    """Whether each rating is more than half a scale point from its item's median rating (all the item's
    ratings, its own included; an item's rows may be any subset of a larger table holding all of them, e.g. one
    Dask partition).

    Args:
        ratings: float ratings, one per row.
        item_codes: item code (0..n_items-1) of each row; every item has at least one row.
        n_items: number of items.

    Returns:
        numpy.ndarray: bool per row.
    """
    order = np.lexsort((ratings, item_codes))  # by item, then rating
    size = np.bincount(item_codes, minlength=n_items)
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    ranked = ratings[order]
    median = (ranked[start + (size - 1) // 2] + ranked[start + size // 2]) / 2.0
    return np.asarray(np.abs(ratings - median[item_codes]) > 0.5, dtype=bool)


def row_disagreements(
    enc: EncodedAnnotations, tie: str = "favorable", reference: str = "majority"
) -> tuple[np.ndarray, np.ndarray]:
    """Per annotation: whether it is counted in the ADR and whether it disagrees with its item's reference.

    The per-row view of :func:`disagreement_rates` (same majority vote, tie policy and median rule), so that ADR
    can be computed on any subset of an annotator's annotations (:func:`cross_fit`).

    Returns:
        tuple: ``(counted, disagrees)``, two bool arrays with one value per row.
    """
    if reference == "median":
        assert enc.r_true is not None  # the options check requires ratings for the median reference
        return np.ones(enc.n, dtype=bool), median_disagreements(enc.r_true, enc.item_codes, len(enc.items))
    n, n_pos = item_vote_counts(enc)
    row_mv = majority_vote(n, n_pos, tie)[enc.item_codes]
    counted = ~np.isnan(row_mv)
    return counted, counted & (enc.t != (row_mv == 1.0))


def item_halves(enc: EncodedAnnotations) -> np.ndarray:
    """The half (0 or 1) of every annotation for cross-fitting: the parity of its item's rank among the item ids
    written as text.

    Items are split, not annotations, so that the two halves share no item: the majority votes an annotator's
    ADR is measured against on one half never involve the items its performance is scored on in the other.
    Consecutive items alternate between the halves (each annotator gets about half of its items in each); the
    split is deterministic (no seed). The ids are ranked as text so that the split does not depend on how the
    ids were read: items ``1, 2, ..., 10`` read as integers (Python) and as text (the command line, which keeps
    ids as written) fall in the same halves.

    Returns:
        numpy.ndarray: int64 half per row.
    """
    text = np.asarray(enc.items.astype(str), dtype=object)
    rank = np.empty(len(text), dtype=np.int64)
    rank[np.argsort(text, kind="stable")] = np.arange(len(text))
    half: np.ndarray = (rank[enc.item_codes] % 2).astype(np.int64)
    return half


@dataclass(frozen=True)
class CrossFit:
    """ADR on each half of every annotator's items (:func:`cross_fit`).

    Attributes:
        row_half: half (0 or 1) of every annotation (:func:`item_halves`).
        adr: ``(n_annotators, 2)`` ADR of every annotator on each half; NaN when the half holds no counted
            annotation (the annotator then has no group for the *other* half's performance).
        n_counted: ``(n_annotators, 2)`` annotations counted in each half's ADR.
    """

    row_half: np.ndarray
    adr: np.ndarray
    n_counted: np.ndarray

    def half_unit(self, annotator_codes: np.ndarray) -> np.ndarray:
        """The half-unit whose ADR sets the group of every row: ``2 * annotator + (1 - half)`` (the *other*
        half of the same annotator), an index into ``adr.ravel()``."""
        return np.asarray(2 * np.asarray(annotator_codes, dtype=np.int64) + (1 - self.row_half), dtype=np.int64)


@dataclass(frozen=True)
class HalfCounts:
    """The counts of cross-fitting, per annotator and half of its items (:func:`item_halves`): all the cross-fitted
    test of ADR bins reads when the rows stay elsewhere (the Dask back end sums them over partitions).

    Attributes:
        fit: ADR on each half (:class:`~aif360_subjective.opinion.annotations.CrossFit`, without row halves).
        counts: ``(n_annotators, 2, 4)`` confusion counts TN, FP, FN, TP.
        errors: ``(n_annotators, 2, C)`` histograms of absolute errors (measures on ratings), else None.
        cells: the ``C`` distinct errors, else None.
    """

    fit: CrossFit
    counts: np.ndarray
    errors: np.ndarray | None = None
    cells: np.ndarray | None = None


def cross_fit(enc: EncodedAnnotations, tie: str = "favorable", reference: str = "majority") -> CrossFit:
    """ADR of every annotator on each half of its items (for ``adr_fit="cross"``).

    With ``adr_fit="same"`` (the paper's method) annotators are sorted into ADR bins by the very annotations their
    performance is then scored on: an annotator who by chance disagreed more with the majority also, by the same
    chance, agrees less with a model close to the majority, so identical annotators end up in bins of different
    performance. Cross-fitting removes this: the performance on one half of an annotator's items is grouped by the
    ADR on the other half, and the halves are swapped, so every annotation is scored once.

    Returns:
        CrossFit

    References:
        Chernozhukov, V. et al. (2018). Double/debiased machine learning for treatment and structural parameters.
        The Econometrics Journal 21(1) (cross-fitting: estimate on one fold, evaluate on the other, swap).
    """
    counted, disagrees = row_disagreements(enc, tie, reference)
    half = item_halves(enc)
    k = len(enc.annotators)
    codes = 2 * enc.annotator_codes + half
    n_counted = np.bincount(codes, weights=counted, minlength=2 * k)
    n_dis = np.bincount(codes, weights=disagrees, minlength=2 * k)
    return CrossFit(row_half=half, adr=adr_from_counts(n_dis, n_counted).reshape(k, 2),
                    n_counted=n_counted.reshape(k, 2))


def _median_disagreement_rates(enc: EncodedAnnotations) -> DisagreementRates:
    assert enc.r_true is not None  # the options check requires ratings for the median reference
    disagree = median_disagreements(enc.r_true, enc.item_codes, len(enc.items))
    k = len(enc.annotators)
    n_counted = np.bincount(enc.annotator_codes, minlength=k).astype(np.float64)
    n_dis = np.bincount(enc.annotator_codes, weights=disagree, minlength=k)
    return DisagreementRates(adr=n_dis / n_counted, n_counted=n_counted, n_tie_items=0, n_tie_annotations=0)


def item_ambiguity(n: np.ndarray, n_pos: np.ndarray, measure: str = "disagreement") -> np.ndarray:
    """Ambiguity of every item from the split of its annotations.

    Args:
        n: annotations per item.
        n_pos: positive labels per item.
        measure: "disagreement" = share of the item's annotations that differ from its majority
            (min(p, 1 - p), in [0, 0.5]); "entropy" = binary entropy of the label shares in bits
            (in [0, 1]).

    Returns:
        numpy.ndarray: one value per item.
    """
    # the minority share from counts, min(k, n - k) / n: items split k to n - k and n - k to k get the very same
    # value (1 - 2/3 differs from 1/3 in the last bit, which made pandas.cut see duplicate bin edges)
    minority = np.minimum(n_pos, n - n_pos) / n
    if measure == "disagreement":
        return np.asarray(minority, dtype=np.float64)
    if measure == "entropy":
        return binary_entropy(minority)
    raise ValueError(f"ambiguity must be one of ['disagreement', 'entropy'] here, got {measure!r}")


def annotation_popularity(enc: EncodedAnnotations, n: np.ndarray, n_pos: np.ndarray) -> np.ndarray:
    """Share of the item's annotations identical to each annotation (itself included), per row."""
    return row_popularity(enc.t, enc.item_codes, n, n_pos)


def row_popularity(t: np.ndarray, item_codes: np.ndarray, n: np.ndarray, n_pos: np.ndarray) -> np.ndarray:
    """:func:`annotation_popularity` from the rows' positive indicators ``t`` and item codes (e.g. of one
    partition of a larger table, with its items' vote counts ``n``, ``n_pos``)."""
    # from counts, so that identical shares are identical floats (k / n, not 1 - (n - k) / n)
    same = np.where(t, n_pos[item_codes], (n - n_pos)[item_codes])
    return np.asarray(same / n[item_codes], dtype=np.float64)


#: Most distinct absolute errors |rating - predicted| a bootstrap of rating measures redraws as histogram cells
#: (a 1-6 scale with integer predictions has 6; rounded predictions keep it small, raw float predictions may not).
MAX_ERROR_CELLS = 64


def rating_error_counts(
    enc: EncodedAnnotations, rows: np.ndarray, unit_codes: np.ndarray, n_units: int
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Per unit, how many of its annotations have each absolute error |rating - predicted rating|.

    Rating measures are means over annotations of a function of that error (MAE: the error itself; within one
    point: error <= 1), so this histogram is all a bootstrap needs to redraw an annotator's annotations.

    Args:
        enc: encoded annotations with ratings (``r_true``, ``r_pred``).
        rows: the rows the units are built from.
        unit_codes: unit code of each of ``rows``.
        n_units: number of units.

    Returns:
        tuple: ``(counts, cells)``: counts ``(n_units, len(cells))`` and the sorted distinct errors, or
        ``(None, None)`` when there are more than :data:`MAX_ERROR_CELLS` of them.
    """
    assert enc.r_true is not None and enc.r_pred is not None
    err = np.abs(np.asarray(enc.r_true[rows], dtype=np.float64) - np.asarray(enc.r_pred[rows], dtype=np.float64))
    return error_histogram(err, unit_codes, n_units)


def error_histogram(
    err: np.ndarray, unit_codes: np.ndarray, n_units: int
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Per unit, how many of its rows have each distinct value of ``err`` (the pandas and the Dask paths).

    Returns:
        tuple: ``(counts, cells)``: integer counts ``(n_units, len(cells))`` and the sorted distinct values, or
        ``(None, None)`` when there are more than :data:`MAX_ERROR_CELLS` of them.
    """
    cells, codes = np.unique(err, return_inverse=True)
    if len(cells) > MAX_ERROR_CELLS:
        return None, None
    k = len(cells)
    counts = np.bincount(np.asarray(unit_codes, dtype=np.int64) * k + codes.ravel(), minlength=n_units * k)
    return counts.reshape(n_units, k), cells


def unit_mean_absolute_error(codes: np.ndarray, n_units: int, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Mean absolute error ``mean |y - yhat|`` per unit, in one pass.

    Written for the opinion-exclusion core's per-unit interface (``codes`` = the unit of each row, as in its
    confusion counts): lower is better; NaN for a unit without rows.

    Args:
        codes: unit code (0..n_units-1) of each row.
        n_units: number of units.
        y_true, y_pred: numeric ratings, aligned with ``codes``.

    Returns:
        numpy.ndarray: one value per unit.
    """
    err = np.abs(np.asarray(y_true, dtype=np.float64) - np.asarray(y_pred, dtype=np.float64))
    return _unit_mean(err, codes, n_units)


def unit_within_one(codes: np.ndarray, n_units: int, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Share of predictions within one scale point of the rating, ``mean 1[|y - yhat| <= 1]``, per unit.

    Same interface as :func:`unit_mean_absolute_error`; higher is better.
    """
    close = np.abs(np.asarray(y_true, dtype=np.float64) - np.asarray(y_pred, dtype=np.float64)) <= 1.0
    return _unit_mean(close.astype(np.float64), codes, n_units)


def _unit_mean(values: np.ndarray, codes: np.ndarray, n_units: int) -> np.ndarray:
    n = np.bincount(codes, minlength=n_units).astype(np.float64)
    total = np.bincount(codes, weights=values, minlength=n_units)
    return ratio(total, n)
