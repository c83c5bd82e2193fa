"""The Spark back end of :func:`~aif360_subjective.detectors.detect_subgroups`: the Dask back end's passes
(:mod:`.._dask`) run over a Spark DataFrame's partitions (:mod:`.parts`), its columns named (:mod:`.detect`).
Like the ``_dask`` modules, left out of the AIF360 patch series."""

from __future__ import annotations

from .detect import detect_subgroups_spark as detect_subgroups_spark
from .detect import spark_features as spark_features
