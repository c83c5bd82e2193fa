"""Feature encoding for subgroup discovery.

Two views of the same table are used:

* the *clustering matrix*: categorical columns one-hot coded with the first level dropped, then every column
  min-max scaled to [0, 1] (:func:`encode_for_clustering`), exactly as the ASDF-Dashboard prepares data;
* the *raw codes*: every column factorised to integer codes over its sorted distinct values
  (:func:`factorize_columns`), on which entropies, patterns and subgroup membership are computed.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis",
    and the reference implementation jeschaef/ASDF-Dashboard (encoding step of the fairness analysis).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._compat import is_string_like
from .._validation import check_finite_features

__all__ = ["detect_categorical", "encode_for_clustering", "factorize_columns", "RawCodes", "MAX_ONEHOT_LEVELS"]

#: Most one-hot columns a categorical column gets in the clustering matrix. A column with more levels (ids,
#: free text, zip codes) would make the dense matrix n x levels: its most frequent levels are kept and the
#: others share the all-zero baseline, with a warning. Patterns and subgroups still use every raw value.
MAX_ONEHOT_LEVELS = 64


def detect_categorical(X: pd.DataFrame) -> list[str]:
    """Columns treated as categorical when the user does not say: strings, categoricals and booleans.

    Args:
        X: the feature table.

    Returns:
        list of str: the categorical column names, in column order.
    """
    return [c for c in X.columns if is_string_like(X[c]) or pd.api.types.is_bool_dtype(X[c])]


def encode_for_clustering(
    X: pd.DataFrame, categorical_features: list[str], max_levels: int = MAX_ONEHOT_LEVELS
) -> tuple[np.ndarray, list[str]]:
    """One-hot (first level dropped) + min-max scaling, as the reference prepares data for clustering.

    Numeric columns come first in column order, then the dummies of each categorical column (levels sorted),
    the layout of ``pandas.get_dummies(..., drop_first=True)``. A constant column scales to 0 (the
    reference would divide by zero).

    Memory is bounded: a categorical column with more than ``max_levels`` + 1 levels gets one column for each
    of its ``max_levels`` most frequent levels (ties: sorted order) and the other levels share the all-zero
    baseline, with a ``UserWarning`` naming the column (the reference would build ``n x levels`` dense
    columns: 1.6 GB for 20,000 rows of a 10,000-level id column). With at most ``max_levels`` + 1 levels
    the encoding is exactly the reference's.

    Args:
        X: the feature table (validated: no missing values).
        categorical_features: names of the categorical columns.
        max_levels: most one-hot columns per categorical column.

    Returns:
        tuple: ``(Z, names)``, a C-contiguous float64 matrix and its column names.

    Raises:
        TypeError: if a column not declared categorical is not numeric.
        ValueError: an infinite value, or a column whose range overflows min-max scaling (column and row named).
    """
    cat = set(categorical_features)
    # checked here too (not only by the public entry points): a NaN in the scaled matrix crashes pyclustering
    check_finite_features(X[[c for c in X.columns if c not in cat]], "X")
    blocks, names = [], []
    numeric = [c for c in X.columns if c not in cat]
    for c in numeric:
        s = X[c]
        if is_string_like(s) and not pd.api.types.is_bool_dtype(s):
            raise TypeError(
                f"column {c!r} has non-numeric dtype {s.dtype} but is not in categorical_features; "
                "add it there (or leave categorical_features=None for auto-detection)"
            )
        blocks.append(s.to_numpy(dtype=np.float64)[:, None])
        names.append(c)
    for c in X.columns:
        if c not in cat:
            continue
        codes, uniques = _factorize(X[c])
        if len(uniques) > max_levels + 1:
            counts = np.bincount(codes, minlength=len(uniques))
            keep = np.sort(np.argsort(-counts, kind="stable")[:max_levels])
            column_of = np.full(len(uniques), -1, dtype=np.int64)
            column_of[keep] = np.arange(len(keep))
            onehot = np.zeros((len(codes), len(keep)))
            rows = np.flatnonzero(column_of[codes] >= 0)
            onehot[rows, column_of[codes[rows]]] = 1.0
            blocks.append(onehot)
            names.extend(f"{c}_{u}" for u in uniques[keep])
            warnings.warn(
                f"categorical column {c!r} has {len(uniques)} distinct values: its {max_levels} most frequent "
                f"are one-hot coded for clustering and the other {len(uniques) - max_levels} share one baseline "
                "(patterns still use every value); drop id-like columns or bin them if they should not "
                "drive the clustering",
                UserWarning,
                stacklevel=3,
            )
        elif len(uniques) > 1:
            # one column per level but the first: level j -> column j-1
            onehot = np.zeros((len(codes), len(uniques) - 1))
            rows = np.flatnonzero(codes > 0)
            onehot[rows, codes[rows] - 1] = 1.0
            blocks.append(onehot)
            names.extend(f"{c}_{u}" for u in uniques[1:])
    Z = np.hstack(blocks) if blocks else np.zeros((len(X), 0))
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    span = hi - lo
    span[span == 0] = 1.0  # constant column -> all zeros after subtracting the minimum
    Z = np.ascontiguousarray((Z - lo) / span)
    return Z, names


@dataclass(frozen=True)
class RawCodes:
    """Integer codes of every raw column over its sorted distinct values.

    Attributes:
        columns: column names.
        codes: int64 array (n_rows, n_columns); ``codes[i, j]`` indexes ``uniques[j]``.
        uniques: per column, the sorted distinct values (a pandas Index keeping the column's dtype).
    """

    columns: list[str]
    codes: np.ndarray
    uniques: list[pd.Index]

    @property
    def n_values(self) -> np.ndarray:
        """Number of distinct values per column (the active domain sizes)."""
        return np.array([len(u) for u in self.uniques], dtype=np.int64)


def factorize_columns(X: pd.DataFrame) -> RawCodes:
    """Factorise every column of ``X`` to codes over its sorted distinct values (smallest value = code 0)."""
    codes = np.empty(X.shape, dtype=np.int64)
    uniques = []
    for j, c in enumerate(X.columns):
        codes[:, j], u = _factorize(X[c])
        uniques.append(u)
    return RawCodes(list(X.columns), codes, uniques)


def _factorize(s: pd.Series) -> tuple[np.ndarray, pd.Index]:
    try:
        codes, uniques = pd.factorize(s, sort=True)
    except TypeError:
        # mixed, unorderable values (e.g. numbers and strings in an object column): order by their text
        codes, uniques = pd.factorize(s.astype(str), sort=True)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)
