"""A Spark DataFrame's partitions as the distributed subgroup discovery reads them (:class:`~.._dask.parts.Parts`).

The passes run through :class:`~aif360_subjective._spark.partitions.SparkPartitions` (one ``mapInPandas`` per pass,
one row of pickled counts per partition, the sums added on the executors above 16 partitions; see there); this
class adds what only the discovery asks of its engine: a pattern's members as a Spark Column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..._spark.partitions import SparkPartitions, column
from .._dask.counts import column_coding
from ..mining.pattern_mining import Items

__all__ = ["SparkParts"]


class SparkParts(SparkPartitions):
    """The partitions of ``sdf`` (the features and, under :data:`~aif360_subjective._spark.partitions.LABEL_COLUMNS`,
    the labels).

    Args:
        sdf: the Spark DataFrame of the features and the label columns.
        features: the feature columns.
        dtypes: the features' pandas dtypes (those ``toPandas()`` gives).
    """

    #: Bytes of one partition's counts of one pass of the keyed max-T (float64 reckoning; sent as uint32): smaller
    #: than Dask's, since each result crosses the JVM as one binary value.
    RESULT_BYTES = 16 * 2**20

    def lazy_mask(self, mask: Callable[..., pd.Series], items: Items, lo: np.ndarray, hi: np.ndarray) -> Any:
        """A boolean Spark Column of the pattern whose codes lie in ``[lo, hi)`` on every column: the conditions
        written on the columns themselves (a value among the column's values at codes ``lo .. hi - 1``; a number
        at or above the edge ``lo`` and below the edge ``hi``), so ``sdf.filter(column)`` selects its rows."""
        from pyspark.sql import functions as F

        out = F.lit(True)
        for c_pos, c in enumerate(items.columns):
            kind, arg = column_coding(items, c_pos)
            a, b = int(lo[c_pos]), int(hi[c_pos])
            if kind == "edges":
                if a > 0:
                    out = out & (column(c) >= float(arg[a]))
                if b < len(arg) - 1:
                    out = out & (column(c) < float(arg[b]))
            elif a > 0 or b < len(arg):
                out = out & column(c).isin(list(arg[a:b].tolist()))
        return out

    def computed_mask(self, lazy: Any) -> pd.Series:
        """The mask as a pandas Series over the rows in the DataFrame's order."""
        out: pd.Series = self.sdf.select(lazy.alias("member")).toPandas()["member"].astype(bool)
        self.driver_bytes += len(out)
        return out.rename(None)
