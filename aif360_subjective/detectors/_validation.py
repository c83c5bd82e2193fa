"""Boundary checks specific to subgroup discovery; the shared ones (choices, numbers, columns, random state) live in
:mod:`aif360_subjective._validation` and are re-exported here for the detectors' modules."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._param_tables import SUBGROUP_PARAMS
from .._validation import check_finite_features, check_fraction, is_bool, is_number, missing_counts, plain

__all__ = [
    "UNDEFINED_RATES",
    "as_frame",
    "check_labels",
    "check_n_clusters",
    "check_sample_size",
    "check_threshold",
    "check_weights",
    "eq_array",
]

UNDEFINED_RATES: tuple[str, ...] = SUBGROUP_PARAMS.choices("undefined_rates")


def as_frame(X: Any, name: str = "X") -> pd.DataFrame:
    """Return ``X`` as a DataFrame with string column names (a copy is not made when not needed)."""
    if isinstance(X, pd.DataFrame):
        df = X
    elif isinstance(X, np.ndarray | list | tuple):
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional (rows x features), got shape {arr.shape}")
        df = pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])
    else:
        raise TypeError(f"{name} must be a pandas DataFrame or a 2-d array, got {type(X).__name__}")
    if df.shape[1] == 0:
        raise ValueError(f"{name} has no feature columns")
    if df.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 rows, got {df.shape[0]}")
    if not all(isinstance(c, str) for c in df.columns):
        df = df.rename(columns=str)
    if df.columns.duplicated().any():
        dup = sorted(set(df.columns[df.columns.duplicated()]))
        raise ValueError(f"{name} has duplicated column names: {dup}")
    dated = [c for c in df.columns if pd.api.types.is_datetime64_any_dtype(df[c])
             or pd.api.types.is_timedelta64_dtype(df[c]) or isinstance(df[c].dtype, pd.PeriodDtype)]
    if dated:
        # each distinct instant would be a category of its own (thousands of one-row subgroups): say what to do
        raise ValueError(
            f"{name} column(s) {dated} hold dates or durations ({df[dated[0]].dtype}), which subgroup discovery "
            f"cannot use as they are: make each a number (e.g. X[{dated[0]!r}].dt.year, or days since a date) or "
            f"a category (e.g. X[{dated[0]!r}].dt.strftime('%Y-%m')), or leave it out"
        )
    bad, blank = missing_counts(df)
    if bad:
        # '' and ' ' would become the groups region= and region= (a value no one chose): they count as missing
        of_them = (f", of which {sum(blank.values()):,} empty or blank strings {blank}" if blank else "")
        raise ValueError(
            f"{name} contains missing values (column: count) {bad}{of_them}; impute them or encode them as a "
            "category (e.g. the string 'missing') before subgroup discovery"
        )
    check_finite_features(df, name)  # inf / overflowing ranges would make the scaled matrix NaN (a clusterer crash)
    return df


def check_paired_index(X: Any, **inputs: Any) -> None:
    """Per-row inputs given as pandas objects must carry ``X``'s index, row for row (or, without a DataFrame ``X``,
    each other's).

    Rows are paired by position, as numpy arrays are. A Series whose index differs (the same labels in another
    order, other labels) was sorted or filtered on its own: pairing it by position would silently mismatch rows, and
    aligning it by label would answer differently from an array of the same values. Both engines hold this one rule:
    a Dask collection's partitions must carry ``X``'s index too (:mod:`.dask_detect`).

    Args:
        X: the features (a DataFrame's index is the reference).
        inputs: argument name -> value (``y_true``, ``y_pred``, ``sample_weight``, ``groups``, ``loss``); values that
            are not pandas Series or one-column DataFrames are not checked here.

    Raises:
        ValueError: naming the argument, the reference and the first position where the indexes differ.
    """
    ref_name, ref = ("X", X.index) if isinstance(X, pd.DataFrame) else ("", None)
    for name, value in inputs.items():
        if not isinstance(value, pd.Series | pd.DataFrame):
            continue
        index = value.index
        if ref is None:
            ref_name, ref = name, index
            continue
        if index.equals(ref):
            continue
        if len(index) != len(ref):
            continue  # the length checks say so, with their own message
        pos = int(np.flatnonzero(index.to_numpy() != ref.to_numpy())[0])
        try:
            reordered = index.sort_values().equals(ref.sort_values())
        except TypeError:  # labels of types that do not compare
            reordered = False
        same = "the same labels in another order" if reordered else "other labels"
        raise ValueError(
            f"{name} is a pandas {type(value).__name__} whose index differs from {ref_name}'s ({same}; first "
            f"difference at position {pos}: {plain(index[pos])!r} vs {plain(ref[pos])!r}). Rows are paired by "
            f"position, not aligned by label: align it first ({name}.reindex({ref_name}.index)) or pass "
            f"{name}.to_numpy()")


def check_labels(
    y_true: Any, y_pred: Any, n: int, pos_label: Any, labels: Sequence[Any] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Validate the label vectors and return them as boolean arrays "is the favourable label".

    Args:
        y_true: ground-truth labels, length ``n``.
        y_pred: predicted labels, length ``n``.
        n: number of rows of ``X``.
        pos_label: the favourable label.
        labels: the two admissible label values, or ``None`` for ``{0, 1}`` (or, when ``pos_label`` is not
            0/1, ``pos_label`` plus one other value observed in the data).

    Returns:
        tuple: ``(t, p)`` boolean arrays (True = favourable) for truth and prediction.

    Raises:
        ValueError: on length mismatches, NaN labels, or labels outside the admissible pair.
    """
    out = []
    arrays = {}
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        if isinstance(y, pd.DataFrame):
            if y.shape[1] != 1:
                raise ValueError(f"{name} must be one column, got {y.shape[1]} columns")
            y = y.iloc[:, 0]
        arr = np.asarray(y)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr.ravel()
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
        if len(arr) != n:
            raise ValueError(f"{name} has {len(arr)} values but X has {n} rows; they must be aligned")
        if pd.isna(arr).any():
            raise ValueError(f"{name} contains {int(pd.isna(arr).sum())} missing values")
        arrays[name] = arr
    if labels is None:
        if is_number(pos_label) and pos_label in (0, 1):
            allowed = [0, 1]
        else:
            seen = pd.unique(
                np.concatenate([arrays["y_true"].astype(object), arrays["y_pred"].astype(object)])
            )
            allowed = list(dict.fromkeys([pos_label, *seen]))
            if len(allowed) > 2 and len(seen) == 2 and not any(_equal(pos_label, v) for v in seen):
                raise ValueError(
                    f"pos_label={pos_label!r} is not one of the admissible labels {list(seen)} (the values of "
                    "y_true and y_pred)"
                )
            if len(allowed) > 2:
                raise ValueError(
                    f"the labels take more than two values {allowed}; binary labels are expected "
                    "(pass labels=(favourable, unfavourable))"
                )
    else:
        allowed = list(labels)
        if len(allowed) != 2 or allowed[0] == allowed[1]:
            raise ValueError(f"labels must be two distinct values, got {labels!r}")
    if not any(_equal(pos_label, a) for a in allowed):
        raise ValueError(f"pos_label={pos_label!r} is not one of the admissible labels {allowed}")
    for name in ("y_true", "y_pred"):
        arr = arrays[name]
        ok = np.zeros(len(arr), dtype=bool)
        for a in allowed:
            ok |= eq_array(arr, a)
        if not ok.all():
            bad = pd.unique(arr[~ok].astype(object))[:5].tolist()
            raise ValueError(
                f"{name} has values {bad} outside the admissible labels {allowed} ({int((~ok).sum())} rows)"
            )
        out.append(eq_array(arr, pos_label))
    return out[0], out[1]


def check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Validate optional per-row weights (non-negative, finite, length ``n``, not all zero)."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"sample_weight must be numbers, got {type(sample_weight).__name__}") from None
    if len(w) != n:
        raise ValueError(f"sample_weight has {len(w)} values but X has {n} rows")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    if n and not (w > 0).any():
        # every weighted rate would be 0/0: the metrics would all be NaN beside intervals counted on rows
        raise ValueError(f"sample_weight is 0 for all {n:,} rows: no row would count; give at least one row a "
                         "positive weight (or sample_weight=None for equal weights)")
    return w


def check_threshold(entropy_threshold: Any) -> float:
    """The entropy threshold must be a real number in [0, 1] (TypeError / ValueError as :func:`check_fraction`)."""
    return check_fraction(entropy_threshold, "entropy_threshold")


def check_n_clusters(n_clusters: Any, n: int | None) -> int | tuple[int, ...] | None:
    """``None`` (automatic), an int in [2, n], or a non-empty sequence of such ints (fairness-aware k); with
    ``n=None`` (rows not known yet) the types only."""
    if n_clusters is None:
        return None
    if isinstance(n_clusters, Sequence) and not isinstance(n_clusters, str):
        if len(n_clusters) == 0:
            raise ValueError("n_clusters: the sequence of candidate numbers of clusters is empty")
        return tuple(_check_one_k(k, n) for k in n_clusters)
    return _check_one_k(n_clusters, n)


def _check_one_k(n_clusters: Any, n: int | None) -> int:
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, numbers.Integral):
        raise TypeError(f"n_clusters must be an int, a sequence of ints or None, got {n_clusters!r}")
    k = int(n_clusters)
    if n is not None and not 2 <= k <= n:
        raise ValueError(f"n_clusters must be between 2 and the number of rows ({n}), got {k}")
    return k


def check_sample_size(silhouette_sample_size: Any) -> int | None:
    """``None`` (all rows) or an int >= 2: rows sampled for the silhouette."""
    if silhouette_sample_size is None:
        return None
    if isinstance(silhouette_sample_size, bool) or not isinstance(silhouette_sample_size, numbers.Integral):
        raise TypeError(f"silhouette_sample_size must be an int or None, got {silhouette_sample_size!r}")
    if silhouette_sample_size < 2:
        raise ValueError(f"silhouette_sample_size must be >= 2 (or None for all rows), got {silhouette_sample_size}")
    return int(silhouette_sample_size)


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def eq_array(arr: np.ndarray, value: Any) -> np.ndarray:
    """Elementwise ``arr == value`` that never raises on mixed types (returns False instead)."""
    # booleans compare with boolean and numeric arrays (True == 1), never with text
    if arr.dtype.kind in "biuf" and not (is_number(value) or is_bool(value)):
        return np.zeros(len(arr), dtype=bool)
    res = arr == value
    if np.ndim(res) == 0:
        return np.full(len(arr), bool(res))
    return np.asarray(res, dtype=bool)
