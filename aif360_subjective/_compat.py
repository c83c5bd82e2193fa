"""Version shims: the only place where we work around our dependencies' releases.

* pyclustering 0.10.1.2 (its last release) calls ``numpy.warnings``, removed in numpy 1.24.
* aif360 0.6.1 cannot handle pandas-3 string columns (``StringDtype``) and rejects NA: every
  frame handed to AIF360 goes through :func:`to_float_frame` first.
* numpy >= 1.24 is supported, but ``numpy.bitwise_count`` (the bitsets' popcount) came in numpy 2.0:
  :func:`bitwise_count` counts bytes through a table before it.
* scikit-learn's OpenMP threads spin on a loaded machine during hundreds of small fits: :func:`single_threaded`
  limits them through threadpoolctl (a dependency of scikit-learn, imported by name).
"""

from __future__ import annotations

import importlib
import logging
import sys
import types
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from typing import TYPE_CHECKING, Any

# numpy and pandas are imported inside the functions: the package's __init__ imports this module, and the command
# line's --help and --version must stay fast.
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


def import_pyclustering() -> types.ModuleType:
    """Import :mod:`pyclustering` with the ``numpy.warnings`` shim in place.

    Returns:
        module: the imported ``pyclustering`` package.
    """
    import numpy as np

    if "warnings" not in np.__dict__:
        # pyclustering.cluster.center_initializer calls numpy.warnings.filterwarnings.
        np.warnings = warnings  # type: ignore[attr-defined]
    import pyclustering

    module: types.ModuleType = pyclustering
    return module


def single_threaded() -> Any:
    """A context manager running OpenMP and BLAS on one thread (``threadpoolctl.threadpool_limits(limits=1)``).

    The limit reaches the native libraries loaded when it is entered: import the estimators first.
    """
    threadpoolctl = importlib.import_module("threadpoolctl")
    return threadpoolctl.threadpool_limits(limits=1)


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
    import numpy as np
    import pandas as pd

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
    import pandas as pd

    return not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s))


def bitwise_count(words: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Set bits of each unsigned integer word, as uint8: ``numpy.bitwise_count`` (numpy >= 2.0) when there is one.

    Args:
        words: an array of unsigned integers (the bitsets' uint64 words).
        out: a uint8 array of the same shape to write into, optional.

    Returns:
        numpy.ndarray: uint8 counts, ``out`` when given.
    """
    import numpy as np

    count = getattr(np, "bitwise_count", None)
    if count is not None:
        result: np.ndarray = count(words, out=out)
        return result
    return byte_table_count(words, out)


def byte_table_count(words: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`bitwise_count` for numpy < 2.0: each byte's count from a 256-entry table, summed per word."""
    import numpy as np

    table = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)
    words = np.ascontiguousarray(words)
    by = table[words.view(np.uint8)].reshape(*words.shape, words.dtype.itemsize)
    return np.add.reduce(by, axis=-1, dtype=np.uint8, out=out)


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


class _QuietAif360Finder:
    """A ``sys.meta_path`` finder that runs the first import of every ``aif360`` module with
    :class:`_OptionalDependencyFilter` on the root logger, whenever (and by whomever) it is imported (the notices
    come from ``aif360.algorithms.inprocessing`` and friends, reached through several import paths).

    It finds nothing itself: it asks the other finders for the module's spec and wraps its loader's
    ``exec_module``. This replaces importing aif360 eagerly in the package's ``__init__`` (seconds), so that
    importing ``aif360_subjective`` (and the command line's ``--help``/``--version``) does not load aif360,
    scikit-learn or matplotlib.
    """

    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> ModuleSpec | None:
        if name != "aif360" and not name.startswith("aif360."):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def quiet_exec_module(module: types.ModuleType) -> None:
            root = logging.getLogger()
            filt = _OptionalDependencyFilter()
            root.addFilter(filt)
            try:
                exec_module(module)
            finally:
                root.removeFilter(filt)

        # an instance attribute: the loader object is this spec's own (a fresh one per find_spec call)
        loader.exec_module = quiet_exec_module  # type: ignore[method-assign]
        return spec


def install_quiet_aif360_import() -> None:
    """Make the first import of aif360's modules quiet, without importing them now
    (see :class:`_QuietAif360Finder`). Idempotent."""
    if not any(isinstance(f, _QuietAif360Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _QuietAif360Finder())
