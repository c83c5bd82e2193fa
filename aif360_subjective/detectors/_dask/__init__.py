"""The Dask back end of :func:`~aif360_subjective.detectors.detect_subgroups`: the discovery (:mod:`.detect`), the
functions of one partition its passes send to the workers (:mod:`.passes`), the per-partition counts
(:mod:`.counts`) and the table summary (:mod:`.summary`). Reached through this package as every Dask back end of
the package is (``opinion._dask``, ``quality._dask``): the AIF360 patch series (``contrib/make_aif360_patches.py``)
leaves the ``_dask`` modules out.

The two entry points are imported on first use: a worker imports this package as the parent of :mod:`.passes`,
and must not import the analysis with it (see :data:`aif360_subjective.detectors._LAZY`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .detect import dask_frame as dask_frame  # re-exported for detect.py (home: .detect)
    from .detect import detect_subgroups_dask as detect_subgroups_dask

_LAZY = {"dask_frame": "detect", "detect_subgroups_dask": "detect"}


def __getattr__(name: str) -> Any:
    """``dask_frame`` or ``detect_subgroups_dask``, imported on first use."""
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
