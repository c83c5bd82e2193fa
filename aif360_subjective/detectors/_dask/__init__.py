"""The Dask back end of :func:`~aif360_subjective.detectors.detect_subgroups`: the discovery (:mod:`.detect`), the
per-partition counts (:mod:`.counts`) and the table summary (:mod:`.summary`). Reached through this package as every
Dask back end of the package is (``opinion._dask``, ``quality._dask``): the AIF360 patch series
(``contrib/make_aif360_patches.py``) leaves the ``_dask`` modules out."""

from __future__ import annotations

from .detect import dask_frame as dask_frame  # re-exported for detect.py (home: .detect)
from .detect import detect_subgroups_dask as detect_subgroups_dask
