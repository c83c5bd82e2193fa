"""Turning annotator and item tables into the float columns AIF360 needs.

Categorical values are coded 0..k-1 in sorted order; a missing value (NaN, or an id absent from its table)
gets :data:`MISSING_CODE`. The code -> value maps follow AIF360's ``metadata['protected_attribute_maps']``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._compat import is_string_like

#: Code of a missing annotator attribute (NaN in the table, or an annotator absent from the table).
MISSING_CODE = -1.0


def code_column(values: pd.Series, name: str) -> tuple[np.ndarray, dict[float, object]]:
    """Code one table column as float64 for AIF360.

    Numeric columns keep their values; booleans become 0/1; other columns become category codes
    0..k-1 in sorted order. NaN becomes :data:`MISSING_CODE`.

    Args:
        values: the column.
        name: its name, for error messages.

    Returns:
        (codes, mapping): float64 codes aligned with ``values`` and the code -> value map
        (empty for numeric columns without missing values).

    Raises:
        ValueError: a numeric column with missing values that also holds negative values (the missing
            code would be ambiguous).
    """
    missing = values.isna().to_numpy()
    if pd.api.types.is_bool_dtype(values) and not missing.any():
        return values.to_numpy(dtype=np.float64), {0.0: False, 1.0: True}
    if not is_string_like(values):
        arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
        if not missing.any():
            return arr, {}
        if np.nanmin(arr) < 0:
            raise ValueError(
                f"column {name!r} is numeric with missing values and negative values; the missing code "
                f"{MISSING_CODE} would be ambiguous: fill or encode the missing values first"
            )
        arr = np.where(missing, MISSING_CODE, arr)
        return arr, {MISSING_CODE: np.nan}
    cats = pd.Index(pd.unique(values[~missing].astype(object)))
    try:
        cats = cats.sort_values()
    except TypeError:  # mixed types: order by their text
        cats = pd.Index(sorted(cats, key=str))
    codes = cats.get_indexer(pd.Index(values.astype(object))).astype(np.float64)
    codes[missing] = MISSING_CODE
    mapping: dict[float, object] = {float(i): v for i, v in enumerate(cats)}
    if missing.any():
        mapping[MISSING_CODE] = np.nan
    return codes, mapping


def one_hot_column(values: pd.Series, name: str) -> tuple[np.ndarray, list[str]]:
    """One-hot code a categorical column the AIF360 way (columns named ``name=value``).

    Args:
        values: the column (no missing values).
        name: its name.

    Returns:
        (matrix, names): an (n, k) float64 0/1 matrix and the column names, categories sorted.
    """
    codes, mapping = code_column(values, name)
    cats = [mapping[float(i)] for i in range(len([k for k in mapping if k != MISSING_CODE]))]
    mat = np.zeros((len(values), len(cats)), dtype=np.float64)
    ok = codes >= 0
    mat[np.flatnonzero(ok), codes[ok].astype(np.intp)] = 1.0
    return mat, [f"{name}={c}" for c in cats]
