"""Dask back end of the annotation-level metrics (optional extra ``[dask]``).

Nothing here is imported unless a Dask collection reaches a public function: the public entry points
(:func:`aif360_subjective.sklearn.metrics.opinion_exclusion` and its helpers,
:func:`aif360_subjective.quality.crowdtruth_scores`) test their input with :func:`is_dask_collection`,
which never imports Dask itself (an object can only be a Dask collection if Dask is already imported).

* :mod:`._partitions`: making sure each item (unit) lives in one partition, tree reductions.
* :mod:`.opinion`: majority vote, ADR, per-annotator performance and the opinion-exclusion groups.
* :mod:`.crowdtruth`: the CrowdTruth 2.0 fixed point, one distributed pass per iteration.
"""

from __future__ import annotations

import sys
from typing import Any

INSTALL_HINT = "pip install 'aif360-subjective[dask]'"


def is_dask_collection(*objs: Any) -> bool:
    """Whether any of ``objs`` is a Dask collection (without importing Dask)."""
    if "dask" not in sys.modules:
        return False
    from dask import is_dask_collection as _is

    return any(_is(o) for o in objs)


def require_dask() -> None:
    """Import Dask's dataframe module or raise an ImportError naming the ``[dask]`` extra."""
    try:
        import dask.dataframe  # noqa: F401
    except ImportError as err:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"the Dask back end needs dask[dataframe]: {INSTALL_HINT}") from err


def opinion_options(*args: Any, **kwargs: Any) -> Any:
    """:func:`aif360_subjective._dask.opinion.opinion_options`, imported on first use."""
    from .opinion import opinion_options as check

    return check(*args, **kwargs)


def opinion_exclusion(*args: Any, **kwargs: Any) -> Any:
    """:func:`aif360_subjective._dask.opinion.opinion_exclusion`, imported on first use."""
    from .opinion import opinion_exclusion as run

    return run(*args, **kwargs)


def crowdtruth_scores(*args: Any, **kwargs: Any) -> Any:
    """:func:`aif360_subjective._dask.crowdtruth.crowdtruth_scores`, imported on first use."""
    from .crowdtruth import crowdtruth_scores as run

    return run(*args, **kwargs)
