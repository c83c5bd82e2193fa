"""Boundary checks shared by every subpackage: choices, numbers, fractions, random state, dataset type.

Each public constructor or function validates its arguments with these helpers, once, so an option is
checked the same way (same exception type, same message shape) wherever it is accepted. Errors name the
argument, show the offending value as a plain Python value and say what was expected.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "check_alpha",
    "check_choice",
    "check_ci",
    "check_columns",
    "check_finite_features",
    "check_same_index",
    "missing_counts",
    "duplicate_pairs_error",
    "check_fraction",
    "check_int",
    "check_positive",
    "check_random_state",
    "is_bool",
    "is_number",
    "plain",
]


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages show ``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def is_bool(x: Any) -> bool:
    """True for Python and numpy booleans."""
    return isinstance(x, bool | np.bool_)


def is_number(x: Any) -> bool:
    """True for real numbers (Python or numpy ints and floats); booleans are *not* numbers here."""
    return isinstance(x, numbers.Real) and not is_bool(x)


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``.

    Args:
        value: the value given.
        name: the argument's name (used in the message).
        choices: the admissible strings.

    Raises:
        ValueError: ``value`` is not one of ``choices`` (a non-string included).
    """
    options = list(choices)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {options}, got {plain(value)!r}")
    return value


def check_columns(names: str | Sequence[Any], frame: Any, arg: str) -> list[str]:
    """Every name in ``names`` must be a column of the DataFrame ``frame``.

    Returns:
        list[str]: the names as strings.

    Raises:
        ValueError: naming the argument ``arg``, the unknown columns and the available ones.
    """
    listed = [names] if isinstance(names, str) else list(names)
    out = [str(c) for c in listed]
    missing = [c for c in out if c not in frame.columns]
    if missing:
        raise ValueError(f"{arg}: unknown column(s) {missing}; the columns of X are {list(frame.columns)}")
    return out


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool) in ``[low, high]``.

    Raises:
        TypeError: ``value`` is not an int (floats such as 1.5 or 2.0 included).
        ValueError: ``value`` is outside ``[low, high]``.
    """
    if is_bool(value) or not isinstance(value, numbers.Integral):
        expected = "an int" + (f" >= {low}" if low is not None else "")
        raise TypeError(f"{name} must be {expected}, got {plain(value)!r}")
    v = int(value)
    if low is not None and v < low:
        raise ValueError(f"{name} must be >= {low}, got {v}")
    if high is not None and v > high:
        raise ValueError(f"{name} must be <= {high}, got {v}")
    return v


def check_fraction(value: Any, name: str) -> float:
    """A real number in [0, 1].

    Raises:
        TypeError: ``value`` is not a real number (booleans included).
        ValueError: ``value`` is outside [0, 1] or NaN.
    """
    if not is_number(value):
        raise TypeError(f"{name} must be a number in [0, 1], got {plain(value)!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {plain(value)!r}")
    return v


def check_positive(value: Any, name: str) -> float:
    """A finite real number > 0.

    Raises:
        TypeError: ``value`` is not a real number (booleans included).
        ValueError: ``value`` is not finite or not > 0.
    """
    if not is_number(value):
        raise TypeError(f"{name} must be a finite number > 0, got {plain(value)!r}")
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {plain(value)!r}")
    return v


def check_ci(value: Any, name: str = "ci") -> float:
    """A confidence level strictly between 0 and 1 (e.g. 0.95).

    Raises:
        ValueError: ``value`` is not a number strictly between 0 and 1 (booleans and strings included; one
            exception type, as the subgroup and the opinion-exclusion metrics always raised it).
    """
    if not is_number(value) or not 0.0 < float(value) < 1.0:
        raise ValueError(
            f"{name} must be a confidence level strictly between 0 and 1 (e.g. 0.95), got {plain(value)!r}"
        )
    return float(value)


def check_alpha(value: Any, name: str = "alpha") -> float:
    """A false-discovery rate (significance level) strictly between 0 and 1 (e.g. 0.05).

    Raises:
        ValueError: ``value`` is not a number strictly between 0 and 1 (booleans and strings included).
    """
    if not is_number(value) or not 0.0 < float(value) < 1.0:
        raise ValueError(
            f"{name} must be a false-discovery rate strictly between 0 and 1 or None, got {plain(value)!r}"
        )
    return float(value)


def check_random_state(value: Any, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from ``None``, an int seed or a Generator (never numpy's global state).

    Raises:
        TypeError: any other value (booleans included), naming the argument ``name``.
        ValueError: a negative int (numpy's own message, "expected non-negative integer", names no argument).
    """
    if isinstance(value, np.random.Generator):
        return value
    if value is None or (isinstance(value, numbers.Integral) and not is_bool(value)):
        if value is not None and int(value) < 0:
            raise ValueError(f"{name} must be None, a non-negative int or a numpy Generator, got {int(value)}")
        return np.random.default_rng(None if value is None else int(value))
    raise TypeError(f"{name} must be None, an int or a numpy Generator, got {plain(value)!r}")


def duplicate_pairs_error(
    n: int, item: Any, annotator: Any, row: Any = None, item_name: str = "item", annotator_name: str = "annotator"
) -> ValueError:
    """The one error for annotations holding an (item, annotator) pair more than once (dataset class, functional
    and Dask faces): a second label of one annotator on one item would re-weight the item's majority vote.

    Args:
        n: duplicated rows (each row beyond a pair's first).
        item, annotator: the ids of the first duplicated pair.
        row: the first duplicated row (index label or position), if known.
        item_name, annotator_name: how the ids are named (the dataset's column names).

    Returns:
        ValueError: the error to raise (``1 duplicate (item, annotator) pair(s), e.g. item=1, annotator='a' (row 1);
        keep one label per annotator and item``).
    """
    where = "" if row is None else f" (row {plain(row)!r})"
    return ValueError(
        f"{n} duplicate (item, annotator) pair(s), e.g. {item_name}={plain(item)!r}, "
        f"{annotator_name}={plain(annotator)!r}{where}; keep one label per annotator and item"
    )


def check_same_index(values: dict[str, Any]) -> None:
    """Inputs paired by position must not be pandas objects with different indexes.

    Series are paired **by position** (as numpy arrays are); a pandas Series or Index whose index differs from
    the first one's (other order, other labels, other length) was almost always sorted or filtered on its own,
    and pairing it by position would silently mismatch rows.

    Args:
        values: argument name -> value, in the order they are compared (the first pandas one is the reference).

    Raises:
        ValueError: naming both arguments and the first position where the indexes differ.
    """
    import pandas as pd

    series = [(name, v) for name, v in values.items() if isinstance(v, pd.Series)]
    if len(series) < 2:
        return
    ref_name, ref = series[0]
    for name, s in series[1:]:
        if s.index.equals(ref.index):
            continue
        if len(s) != len(ref):
            raise ValueError(f"{name} has {len(s)} rows and {ref_name} {len(ref)}: one value per annotation is needed")
        pos = int(np.flatnonzero(s.index.to_numpy() != ref.index.to_numpy())[0])
        raise ValueError(
            f"{name} and {ref_name} are pandas Series with different indexes (first difference at position {pos}: "
            f"{plain(s.index[pos])!r} vs {plain(ref.index[pos])!r}); Series are paired by position, so align them "
            f"first ({name}.reindex({ref_name}.index)) or pass arrays"
        )


def check_finite_features(frame: Any, name: str = "X") -> None:
    """Numeric feature columns must hold finite values whose range a min-max scaling can divide by.

    ``inf``, or values such as ``-1e308`` and ``1e308`` whose difference overflows to ``inf``, would make the
    min-max scaled clustering matrix NaN, on which the clusterers fail or (pyclustering's C++ core) crash the
    interpreter: they are refused before any clustering, naming the column and the row.

    Args:
        frame: a pandas DataFrame of features.
        name: the argument's name for the message.

    Raises:
        ValueError: a non-finite value (column, row label, value, how many), or a column whose range overflows.
    """
    import pandas as pd

    for col in frame.columns:
        s = frame[col]
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.isinf(v)
        if bad.any():
            i = int(bad.argmax())
            raise ValueError(
                f"{name}: column {col!r} holds {v[i]} at row {plain(frame.index[i])!r} ({int(bad.sum())} infinite "
                "value(s)); features must be finite numbers: replace or drop those rows"
            )
        finite = v[np.isfinite(v)]
        if finite.size:
            with np.errstate(over="ignore"):
                span = np.float64(finite.max()) - np.float64(finite.min())
            if not np.isfinite(span):
                i = int(np.argmax(np.abs(np.nan_to_num(v, nan=0.0))))
                raise ValueError(
                    f"{name}: column {col!r} ranges from {finite.min():g} to {finite.max():g} (e.g. {v[i]:g} at row "
                    f"{plain(frame.index[i])!r}), a range too wide for min-max scaling (it overflows); rescale the "
                    "column"
                )


def missing_counts(df: Any) -> tuple[dict[str, int], dict[str, int]]:
    """Missing values per column, empty and blank strings (``''``, ``' '``) counted as missing, and those strings
    alone: ``({column: missing}, {column: empty or blank})``, columns without any left out."""
    import pandas as pd

    missing: dict[str, int] = {}
    blank: dict[str, int] = {}
    for c in df.columns:
        col = df[c]
        n_na = int(col.isna().sum())
        n_blank = 0
        if col.dtype == object or isinstance(col.dtype, pd.StringDtype | pd.CategoricalDtype):
            try:  # pandas' string methods: NaN for what is not a string
                n_blank = int(col.astype(object).str.strip().eq("").sum())
            except AttributeError:  # no string at all
                n_blank = 0
        if n_na + n_blank:
            missing[str(c)] = n_na + n_blank
        if n_blank:
            blank[str(c)] = n_blank
    return missing, blank
