"""Version shims: the only place where we work around our dependencies' releases.

* pyclustering 0.10.1.2 (its last release) calls ``numpy.warnings``, removed in numpy 1.24.
* aif360 0.6.1 cannot handle pandas-3 string columns (``StringDtype``) and rejects NA: every
  frame handed to AIF360 goes through :func:`to_float_frame` first.
"""

from __future__ import annotations

import logging
import types
import warnings

import numpy as np
import pandas as pd


def import_pyclustering() -> types.ModuleType:
    """Import :mod:`pyclustering` with the ``numpy.warnings`` shim in place.

    Returns:
        module: the imported ``pyclustering`` package.
    """
    if "warnings" not in np.__dict__:
        # pyclustering.cluster.center_initializer calls numpy.warnings.filterwarnings.
        np.warnings = warnings  # type: ignore[attr-defined]
    import pyclustering

    module: types.ModuleType = pyclustering
    return module


def to_float_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Return ``df`` with every column as float64, as AIF360's datasets require.

    Booleans become 0/1. Raises a clear error for non-numeric columns instead of the
    ``Cannot interpret StringDtype`` failure of aif360 0.6.1 under pandas 3.

    Args:
        df: a frame of numeric or boolean columns.

    Returns:
        pandas.DataFrame: a float64 copy with string column names.

    Raises:
        TypeError: if a column is neither numeric nor boolean.
    """
    out = {}
    for col in df.columns:
        s = df[col]
        if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
            out[str(col)] = s.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            raise TypeError(
                f"column {col!r} has dtype {s.dtype}; AIF360 needs numeric columns: "
                "encode it first (e.g. as category codes)"
            )
    return pd.DataFrame(out, index=df.index)


def is_string_like(s: pd.Series) -> bool:
    """True for object, pandas string and categorical series (not numbers or booleans)."""
    return not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s))


class _OptionalDependencyFilter(logging.Filter):
    """Drops aif360's import-time notices about optional extras (tensorflow, fairlearn, inFairness...)."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        return not ("will be unavailable" in msg and "No module named" in msg)


def import_aif360_quietly() -> None:
    """Import ``aif360.metrics`` and ``aif360.algorithms`` without their optional-extras notices.

    aif360 0.6.1 logs a WARNING on the root logger for every optional extra that is not installed
    (tensorflow, fairlearn, inFairness) as soon as its metrics or algorithms are imported. None of those
    extras is used here, so the notices are filtered during that import only.
    """
    root = logging.getLogger()
    filt = _OptionalDependencyFilter()
    root.addFilter(filt)
    try:
        import aif360.algorithms  # noqa: F401
        import aif360.metrics  # noqa: F401
    finally:
        root.removeFilter(filt)
