"""Shared helpers of the Dask back ends (optional extra ``[dask]``).

The back ends live beside what they parallelise: :mod:`aif360_subjective.opinion._dask` (majority vote, ADR,
per-annotator performance and the opinion-exclusion groups) and :mod:`aif360_subjective.quality._dask` (the
CrowdTruth 2.0 fixed point, one distributed pass per iteration). Their faces test the input with
:func:`is_dask_collection`, which never imports Dask itself (an object can only be a Dask collection if Dask is
already imported), and import the back end only then.

* :mod:`._partitions`: making sure each item (unit) lives in one partition, tree reductions.
"""

from __future__ import annotations

import sys
from typing import Any

INSTALL_HINT = "pip install 'aif360-subjective[dask]'"


def is_dask_collection(*objs: Any) -> bool:
    """Whether any of ``objs`` is a Dask collection (without importing Dask)."""
    if "dask" not in sys.modules:
        return False
    from dask.base import is_dask_collection as _is

    return any(_is(o) for o in objs)


def require_dask() -> None:
    """Import Dask's dataframe module or raise an ImportError naming the ``[dask]`` extra."""
    try:
        import dask.dataframe  # noqa: F401
    except ImportError as err:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"the Dask back end needs dask[dataframe]: {INSTALL_HINT}") from err
