"""Perspectivist evaluation beyond the majority vote: soft-label scores, per-annotator scores, ordinal scores.

Plain numpy functions (the core); :class:`PerspectivistMetric` and the functional face
:mod:`aif360_subjective.sklearn.metrics` call them.

Soft labels (LeWiDi Task A): per item, the distribution of the annotators' labels ``t`` (an N x C array,
rows summing to 1) against a model's predicted distribution ``p``:

* :func:`soft_cross_entropy` (LeWiDi 2023): ``-(1/N) sum_i sum_c t_ic log(clip(p_ic, 1e-12, 1 - 1e-12))``;
* :func:`manhattan_distance` (LeWiDi 2025, MultiPICo/VariErrNLI): ``(1/N) sum_i sum_c |p_ic - t_ic|``;
* :func:`wasserstein_distance` (LeWiDi 2025, CSC/Par): the earth mover's distance on an ordinal scale with
  cost ``|i - j|`` between scale points, computed exactly in closed form from the cumulative distributions,
  ``sum_k |T_ik - P_ik| (x_{k+1} - x_k)``, averaged over items.

Per-annotator predictions (LeWiDi 2025 Task B), one prediction per (item, annotator):

* :func:`annotator_error_rate`: mean over items of ``sum_a 1[y_ia != yhat_ia] / |A_i|``;
* :func:`normalized_absolute_distance`: mean over items of ``sum_a |y_ia - yhat_ia| / (|A_i| S)``.

Ordinal per-annotator performance (to plug into opinion exclusion on ratings):
:func:`unit_mean_absolute_error` and :func:`unit_within_one` compute one value per unit (annotator, group)
from unit codes in one pass (``numpy.bincount``), like the core's confusion counts.

References:
    E. Leonardelli et al., "SemEval-2023 Task 11: Learning with Disagreements (LeWiDi)", SemEval 2023
    (soft cross-entropy). LeWiDi 3rd edition (2025), https://le-wi-di.github.io/ (Manhattan and Wasserstein
    distances, error rate and normalised absolute distance of the perspectivist Task B).
    A. Uma, T. Fornaciari, D. Hovy, S. Paun, B. Plank, M. Poesio, "Learning from Disagreement: A Survey",
    JAIR 2021. M. Rizzi et al., "Soft metrics for evaluation with disagreements: an assessment",
    NLPerspectives 2024.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from aif360.metrics import Metric

from .._deprecation import moved_names
from .._validation import plain
from ..datasets.multi_annotator import check_multi_annotator_dataset

#: Clip of predicted probabilities in the soft cross-entropy (LeWiDi 2023).
CE_EPSILON = 1e-12
#: Tolerance on row sums: published soft labels are rounded to 2 decimals (3 x 0.33 = 0.99).
ROW_SUM_ATOL = 0.02

__all__ = [
    "soft_cross_entropy",
    "manhattan_distance",
    "wasserstein_distance",
    "soft_labels",
    "soft_labels_from_dataset",
    "annotator_error_rate",
    "normalized_absolute_distance",
    "PerspectivistMetric",
]


# ----------------------------------------------------------------------------------------- soft labels
def _distribution(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x.to_numpy() if isinstance(x, pd.DataFrame) else x)
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold probabilities (numbers), got dtype {arr.dtype}") from None
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] < 2:
        raise ValueError(f"{name} must be an (N items x C classes) array with N >= 1 and C >= 2, got shape "
                         f"{arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if bad.any():
        i, c = (int(v[0]) for v in np.nonzero(bad))
        raise ValueError(f"{name} must hold probabilities in [0, 1]; row {i}, column {c} is {float(arr[i, c])}")
    sums = arr.sum(axis=1)
    off = np.abs(sums - 1.0) > ROW_SUM_ATOL
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise ValueError(f"{name} rows must sum to 1 (within {ROW_SUM_ATOL}); row {i} sums to {float(sums[i]):.4f} "
                         f"({int(off.sum())} row(s))")
    return arr


def _pair(y_soft_true: Any, y_soft_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated (t, p) arrays; DataFrames are aligned by item index and by columns; a multi-annotator dataset
    as ``y_soft_true`` stands for its binary soft labels."""
    if hasattr(y_soft_true, "item_ids") and hasattr(y_soft_true, "annotation_info"):
        y_soft_true = soft_labels_from_dataset(y_soft_true)
        if not isinstance(y_soft_pred, pd.DataFrame):
            arr = np.asarray(y_soft_pred)
            if arr.ndim != 2 or arr.shape[0] != len(y_soft_true):
                raise ValueError(f"with a dataset as y_soft_true, y_soft_pred must be a DataFrame indexed by item id "
                                 f"or an array with one row per item ({len(y_soft_true)}, first-appearance order), "
                                 f"got shape {arr.shape}")
            y_soft_pred = pd.DataFrame(arr, index=y_soft_true.index, columns=y_soft_true.columns)
        elif all(isinstance(c, (int, float, np.number)) for c in y_soft_pred.columns):
            y_soft_pred = y_soft_pred.set_axis([float(c) for c in y_soft_pred.columns], axis=1)
    if isinstance(y_soft_true, pd.DataFrame) and isinstance(y_soft_pred, pd.DataFrame):
        if set(y_soft_true.columns) != set(y_soft_pred.columns):
            raise ValueError(f"y_soft_true and y_soft_pred have different classes (columns): "
                             f"{list(y_soft_true.columns)} vs {list(y_soft_pred.columns)}")
        pos = y_soft_pred.index.get_indexer(y_soft_true.index)
        if (pos < 0).any():
            missing = list(y_soft_true.index[pos < 0][:5])
            raise ValueError(f"y_soft_pred has no row for {int((pos < 0).sum())} item(s) of y_soft_true, e.g. "
                             f"{[plain(m) for m in missing]}")
        y_soft_pred = y_soft_pred.iloc[pos][list(y_soft_true.columns)]
    t = _distribution(y_soft_true, "y_soft_true")
    p = _distribution(y_soft_pred, "y_soft_pred")
    if t.shape != p.shape:
        raise ValueError(f"y_soft_true and y_soft_pred must have the same shape, got {t.shape} and {p.shape}")
    return t, p


def soft_cross_entropy(y_soft_true: Any, y_soft_pred: Any) -> float:
    """Soft cross-entropy of LeWiDi 2023: ``-(1/N) sum_i sum_c t_ic log(clip(p_ic, 1e-12, 1 - 1e-12))``.

    Natural logarithm; lower is better; 0 only for one-hot targets predicted exactly.

    Args:
        y_soft_true: the annotators' label distributions, (N, C) array or DataFrame (index = items,
            columns = classes; then ``y_soft_pred`` is aligned to it by index and columns), or a
            :class:`~aif360_subjective.datasets.MultiAnnotatorDataset` (its binary soft labels, columns the label
            values 0.0 and 1.0; ordinal ratings: build them with :func:`soft_labels_from_dataset`).
        y_soft_pred: the predicted distributions, same shape (with a dataset: a DataFrame per item, or an
            array with one row per item in first-appearance order).

    Returns:
        float

    Raises:
        ValueError: shapes differ, values outside [0, 1], rows not summing to 1 (within 0.02), missing items.

    References:
        E. Leonardelli et al., "SemEval-2023 Task 11: Learning with Disagreements (LeWiDi)", SemEval 2023.
    """
    t, p = _pair(y_soft_true, y_soft_pred)
    return float(-(t * np.log(np.clip(p, CE_EPSILON, 1.0 - CE_EPSILON))).sum() / t.shape[0])


def manhattan_distance(y_soft_true: Any, y_soft_pred: Any) -> float:
    """Average Manhattan distance of LeWiDi 2025: ``(1/N) sum_i sum_c |p_ic - t_ic|`` (0 = exact, at most 2).

    Args:
        y_soft_true, y_soft_pred: as in :func:`soft_cross_entropy`.

    Returns:
        float

    References:
        LeWiDi 3rd edition (2025), Task A soft evaluation; M. Rizzi et al., NLPerspectives 2024.
    """
    t, p = _pair(y_soft_true, y_soft_pred)
    return float(np.abs(p - t).sum() / t.shape[0])


def wasserstein_distance(y_soft_true: Any, y_soft_pred: Any, *, scale: Sequence[float] | None = None) -> float:
    """Average Wasserstein-1 (earth mover's) distance between distributions on an ordinal scale (LeWiDi 2025).

    With scale points ``x_1 < ... < x_C`` (default ``0, 1, ..., C-1``: cost ``|i - j|`` between classes i, j),
    the distance between two distributions on a line is exactly the area between their cumulative
    distributions: ``W_i = sum_{k<C} |T_ik - P_ik| (x_{k+1} - x_k)`` with ``T_ik = sum_{c<=k} t_ic``. No
    optimal-transport solver is needed. Columns must be in scale order.

    Args:
        y_soft_true, y_soft_pred: as in :func:`soft_cross_entropy` (columns = scale points in order).
        scale: the scale points' positions (strictly increasing, one per column); default unit spacing.

    Returns:
        float: the mean over items of ``W_i`` (0 = exact; at most ``x_C - x_1``).

    Raises:
        ValueError: as :func:`soft_cross_entropy`, or a scale that is not strictly increasing / of length C.

    References:
        LeWiDi 3rd edition (2025), Task A for ordinal datasets (CSC, Par); S. S. Vallender, "Calculation of the
        Wasserstein distance between probability distributions on the line", 1974.
    """
    t, p = _pair(y_soft_true, y_soft_pred)
    n_cls = t.shape[1]
    if scale is None:
        steps = np.ones(n_cls - 1)
    else:
        x = np.asarray(scale, dtype=np.float64)
        if x.shape != (n_cls,) or not (np.diff(x) > 0).all():
            raise ValueError(f"scale must be {n_cls} strictly increasing positions (one per column), got "
                             f"{list(np.asarray(scale).tolist())}")
        steps = np.diff(x)
    diff = np.abs(np.cumsum(t, axis=1) - np.cumsum(p, axis=1))[:, :-1]
    return float((diff @ steps).mean())


def soft_labels(values: Any, item_ids: Any, labels: Sequence[Any] | None = None) -> pd.DataFrame:
    """The annotators' label distribution per item (soft labels) from one value per annotation.

    Args:
        values: the labels or ratings, one per annotation (numbers or strings).
        item_ids: the item of each annotation.
        labels: the classes / scale points, in order (default: the sorted distinct values). Values outside
            ``labels`` are an error.

    Returns:
        pandas.DataFrame: index = item ids (first-appearance order), one column per label, rows summing to 1.

    Raises:
        ValueError: lengths differ, missing values, or values outside ``labels``.
    """
    v = np.asarray(values.to_numpy() if isinstance(values, pd.Series) else values)
    items = np.asarray(item_ids.to_numpy() if isinstance(item_ids, pd.Series) else item_ids)
    if v.ndim != 1 or items.shape != v.shape or v.size == 0:
        raise ValueError(f"values and item_ids must be non-empty 1-d arrays of the same length, got shapes "
                         f"{v.shape} and {items.shape}")
    if pd.isna(v).any():
        raise ValueError(f"values has {int(pd.isna(v).sum())} missing value(s); drop them first")
    cats = pd.Index(pd.unique(v)).sort_values() if labels is None else pd.Index(list(labels))
    codes = cats.get_indexer(v)
    if (codes < 0).any():
        bad = pd.unique(v[codes < 0])[:5]
        raise ValueError(f"values {[plain(b) for b in bad]} are not in labels {[plain(c) for c in cats]}")
    icodes, uniques = pd.factorize(items)
    counts = np.zeros((len(uniques), len(cats)))
    np.add.at(counts, (icodes, codes), 1.0)
    return pd.DataFrame(counts / counts.sum(axis=1, keepdims=True), index=pd.Index(uniques, name="item"),
                        columns=pd.Index(cats, name="label"))


def soft_labels_from_dataset(
    dataset: Any, column: str | None = None, labels: Sequence[Any] | None = None
) -> pd.DataFrame:
    """Soft labels of a :class:`~aif360_subjective.datasets.MultiAnnotatorDataset`.

    Args:
        dataset: the annotations.
        column: ``None`` = the binary labels (columns: the unfavourable and favourable label values, sorted);
            else a column of :attr:`annotation_info` holding the raw ratings (POPQUORN ``"rating"``, LeWiDi
            ``"raw_label"``), converted to numbers when they all are numeric.
        labels: the scale points in order (e.g. ``range(1, 7)`` for CSC), so that absent ratings get a 0
            column; default: the sorted distinct values.

    Returns:
        pandas.DataFrame: as :func:`soft_labels`.

    Raises:
        TypeError: not a MultiAnnotatorDataset. ValueError: unknown column, values outside ``labels``.
    """
    check_multi_annotator_dataset(dataset, "dataset")
    if column is None:
        values = dataset.labels.ravel()
    else:
        if column not in dataset.annotation_info.columns:
            raise ValueError(f"column={column!r} is not in the dataset's annotation_info (columns "
                             f"{list(dataset.annotation_info.columns)})")
        raw = dataset.annotation_info[column]
        num = pd.to_numeric(raw, errors="coerce")
        values = num.to_numpy(dtype=np.float64) if num.notna().all() else raw.to_numpy(dtype=object)
        if labels is not None and num.notna().all():
            labels = [float(x) for x in labels]
    out = soft_labels(values, dataset.item_ids, labels)
    out.index.name = getattr(dataset, "item_col", "item")
    return out


# ------------------------------------------------------------------------------------ per-annotator
def _per_annotation(y_true: Any, y_pred: Any, item_ids: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    yt = np.asarray(y_true.to_numpy() if isinstance(y_true, pd.Series) else y_true)
    yp = np.asarray(y_pred.to_numpy() if isinstance(y_pred, pd.Series) else y_pred)
    items = np.asarray(item_ids.to_numpy() if isinstance(item_ids, pd.Series) else item_ids)
    if yt.ndim != 1 or yt.size == 0 or yp.shape != yt.shape or items.shape != yt.shape:
        raise ValueError(f"y_true, y_pred and item_ids must be non-empty 1-d arrays of one length (one per "
                         f"(item, annotator) pair), got shapes {yt.shape}, {yp.shape}, {items.shape}")
    if pd.isna(items).any():
        raise ValueError("item_ids has missing values")
    codes, _ = pd.factorize(items)
    return yt, yp, codes


def _numeric(x: np.ndarray, name: str) -> np.ndarray:
    try:
        arr = x.astype(np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers (ratings or 0/1 labels), got values like "
                        f"{[plain(v) for v in x[:3]]}") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} has {int(np.isnan(arr).sum())} missing value(s)")
    return arr


def _item_mean(per_row: np.ndarray, codes: np.ndarray) -> float:
    n_items = int(codes.max()) + 1
    per_item = np.bincount(codes, weights=per_row, minlength=n_items) / np.bincount(codes, minlength=n_items)
    return float(per_item.mean())


def annotator_error_rate(y_true: Any, y_pred: Any, *, item_ids: Any) -> float:
    """LeWiDi 2025 Task B error rate: mean over items of ``sum_a 1[y_ia != yhat_ia] / |A_i|``.

    Each item counts once whatever its number of annotators ``|A_i|``. For 0/1 labels this is the official
    ``sum_a |y_ia - yhat_ia| / |A_i|``.

    Args:
        y_true: each annotator's label, one per (item, annotator) pair.
        y_pred: the prediction for that annotator (e.g. of an annotator-aware model).
        item_ids: the item of each pair.

    Returns:
        float in [0, 1].

    Raises:
        ValueError: lengths differ, empty input, missing item ids.

    References:
        LeWiDi 3rd edition (2025), perspectivist Task B (MultiPICo, VariErrNLI).
    """
    yt, yp, codes = _per_annotation(y_true, y_pred, item_ids)
    wrong = (yt != yp).astype(np.float64)
    return _item_mean(wrong, codes)


def normalized_absolute_distance(y_true: Any, y_pred: Any, *, item_ids: Any, scale_size: int | None = None,
                                 labels: Sequence[float] | None = None) -> float:
    """LeWiDi 2025 Task B distance for ratings: mean over items of ``sum_a |y_ia - yhat_ia| / (|A_i| S)``.

    ``S`` normalises by the scale. The official scorer divides by the **number of scale points** (6 for CSC's
    1-6 scale, 11 for Par's -5..5) while its docstring speaks of the **range** (5 for CSC): this function
    follows the scorer. Pass ``scale_size=5`` for the range convention (values then lie in [0, 1]; with the
    scorer's S they lie in [0, (S - 1) / S]).

    Args:
        y_true: each annotator's rating, one per (item, annotator) pair.
        y_pred: the predicted rating for that annotator.
        item_ids: the item of each pair.
        scale_size: ``S``. Default: ``len(labels)`` if ``labels`` is given, else the number of integer points
            between the smallest and largest rating observed in ``y_true`` and ``y_pred`` (``max - min + 1``);
            pass it when the observed ratings may not cover the scale.
        labels: the scale points (e.g. ``range(1, 7)``), an alternative way to give ``S``.

    Returns:
        float

    Raises:
        ValueError: lengths differ, missing values, ``scale_size`` < 1, or no ``S`` given with non-integer
            ratings.
        TypeError: non-numeric ratings.

    References:
        LeWiDi 3rd edition (2025), perspectivist Task B (CSC, Par).
    """
    yt, yp, codes = _per_annotation(y_true, y_pred, item_ids)
    yt, yp = _numeric(yt, "y_true"), _numeric(yp, "y_pred")
    if scale_size is None:
        if labels is not None:
            scale_size = len(list(labels))
        else:
            both = np.concatenate([yt, yp])
            if not np.array_equal(both, np.round(both)):
                raise ValueError("the ratings are not integers: pass scale_size (the number of scale points)")
            scale_size = int(both.max() - both.min()) + 1
    if isinstance(scale_size, bool) or not isinstance(scale_size, (int, np.integer)) or scale_size < 1:
        raise ValueError(f"scale_size must be a positive int (the number of scale points), got {scale_size!r}")
    return _item_mean(np.abs(yt - yp) / float(scale_size), codes)


# ------------------------------------------------------------------------- ordinal unit performance
# ------------------------------------------------------------------------------------ metric class
class PerspectivistMetric(Metric):
    """Soft-label and per-annotator scores of a model on a multi-annotator dataset.

    Args:
        dataset (MultiAnnotatorDataset): the annotators' labels (and raw ratings in ``annotation_info``).
        classified_dataset (MultiAnnotatorDataset | None): a prediction per (item, annotator), same rows, for
            the per-annotator scores.
        predicted_distributions (pandas.DataFrame | None): a predicted distribution per item (index = item ids,
            columns = classes / scale points), for the soft-label scores.
        rating_column: the ``annotation_info`` column holding ratings (``"rating"``, ``"raw_label"``); ``None``
            = the binary labels. Per-annotator distances then compare ratings: ``classified_dataset`` must hold
            the predicted ratings in the same column.
        labels: the classes / scale points in order (ordinal scales: all of them, e.g. ``range(1, 7)``).
        scale_size: ``S`` of :func:`normalized_absolute_distance` (default: ``len(labels)``).

    References:
        E. Leonardelli et al., SemEval 2023 Task 11 (LeWiDi); LeWiDi 3rd edition (2025).
    """

    def __init__(self, dataset: Any, classified_dataset: Any = None, *,
                 predicted_distributions: pd.DataFrame | None = None,
                 rating_column: str | None = None, labels: Sequence[Any] | None = None,
                 scale_size: int | None = None) -> None:
        super().__init__(dataset)
        if classified_dataset is not None and not (
                len(classified_dataset.item_ids) == len(dataset.item_ids)
                and np.array_equal(classified_dataset.item_ids, dataset.item_ids)
                and np.array_equal(classified_dataset.annotator_ids, dataset.annotator_ids)):
            raise ValueError("classified_dataset must hold the same (item, annotator) rows as dataset, in the "
                             "same order (use dataset.align_datasets(classified_dataset))")
        if predicted_distributions is not None and not isinstance(predicted_distributions, pd.DataFrame):
            raise TypeError("predicted_distributions must be a DataFrame indexed by item id, got "
                            f"{type(predicted_distributions).__name__}")
        self.classified_dataset = classified_dataset
        self.predicted_distributions = predicted_distributions
        self.rating_column = rating_column
        self.labels = None if labels is None else tuple(labels)
        self.scale_size = scale_size

    def soft_labels(self) -> pd.DataFrame:
        """The annotators' distribution per item (:func:`soft_labels_from_dataset`)."""
        return soft_labels_from_dataset(self.dataset, self.rating_column, self.labels)

    def _soft_pair(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        if self.predicted_distributions is None:
            raise ValueError("soft-label scores need predicted_distributions (a DataFrame per item)")
        t = self.soft_labels()
        p = self.predicted_distributions.copy()
        if self.rating_column is not None and all(isinstance(c, (int, float, np.number)) for c in p.columns):
            p.columns = [float(c) for c in p.columns]
        return t, p

    def soft_cross_entropy(self) -> float:
        """:func:`soft_cross_entropy` of the soft labels and the predicted distributions."""
        return soft_cross_entropy(*self._soft_pair())

    def manhattan_distance(self) -> float:
        """:func:`manhattan_distance` of the soft labels and the predicted distributions."""
        return manhattan_distance(*self._soft_pair())

    def wasserstein_distance(self) -> float:
        """:func:`wasserstein_distance` with unit spacing between the (ordered) scale points."""
        return wasserstein_distance(*self._soft_pair())

    def _per_annotation(self) -> tuple[np.ndarray, np.ndarray]:
        if self.classified_dataset is None:
            raise ValueError("per-annotator scores need classified_dataset (a prediction per (item, annotator))")
        if self.rating_column is None:
            return self.dataset.labels.ravel(), self.classified_dataset.labels.ravel()
        pred_info = self.classified_dataset.annotation_info
        if self.rating_column not in pred_info.columns:
            raise ValueError(f"classified_dataset has no predicted ratings in annotation_info[{self.rating_column!r}]")
        return (pd.to_numeric(self.dataset.annotation_info[self.rating_column]).to_numpy(),
                pd.to_numeric(pred_info[self.rating_column]).to_numpy())

    def annotator_error_rate(self) -> float:
        """:func:`annotator_error_rate` over the dataset's (item, annotator) pairs."""
        yt, yp = self._per_annotation()
        return annotator_error_rate(yt, yp, item_ids=self.dataset.item_ids)

    def normalized_absolute_distance(self) -> float:
        """:func:`normalized_absolute_distance` (``S`` = ``scale_size``, else ``len(labels)``)."""
        yt, yp = self._per_annotation()
        return normalized_absolute_distance(yt, yp, item_ids=self.dataset.item_ids, scale_size=self.scale_size,
                                            labels=self.labels)


# a name whose home is another module: still importable from here, with a DeprecationWarning
__getattr__ = moved_names(__name__, {"unit_mean_absolute_error": "aif360_subjective.opinion.annotations",
                                        "unit_within_one": "aif360_subjective.opinion.annotations"})
