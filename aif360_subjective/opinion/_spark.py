"""Opinion-exclusion metrics on Spark: the Dask back end's passes over a Spark DataFrame's partitions.

``opinion_exclusion("label", "pred", item_ids="item", annotator_ids="annotator", data=sdf)`` names four columns
of a Spark DataFrame of annotations. Everything after naming them is :mod:`._dask`'s, one code for both engines:
the same per-partition counts (majority vote, agreement, per-annotator confusion counts; bins of items or
annotations; per (annotator, half) counts for cross-fitting), the same checks and messages, the same in-memory
core on the counts. This module adds only the Spark face of the annotations (:class:`SparkAnnotations`): its
partitions run the passes through :class:`~aif360_subjective._spark.partitions.SparkPartitions` (one
``mapInPandas`` per pass, one row of pickled counts per partition), and a table whose items are spread over
partitions is repartitioned by the item column once (hash partitioning: the same items in the same partition in
every later pass, which the cross-fitting checks).

What reaches the driver: per pass one small table per partition (a row per annotator of the partition; with
ratings and "mae"/"within_one" a histogram over at most ``MAX_ERROR_CELLS`` distinct errors), or above 16
partitions the combination of ``floor(sqrt(P))`` groups of them; for the cross-fitting each partition's distinct
item ids. No label leaves its executor except inside counts. ``result.extras["driver_bytes"]`` counts it.

What it refuses (checked by :func:`~._dask.distributed_face` before any pass): the options the Dask back end
refuses (:data:`~._dask.UNSUPPORTED`), named with "Spark"; here, a name that is not a column of ``data`` and nested
columns (arrays, maps, structs).

References:
    Balayn, A., Bozzon, A., Szlavik, Z. (2019). Unfairness towards subjective opinions in Machine
    Learning. Section 4.1.
    M. Zaharia et al., "Apache Spark: a unified engine for big data processing", Communications of the ACM
    59(11), 2016.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._spark import require_spark
from .._spark.partitions import SparkPartitions, column
from .data_form import INPUTS, check_column_names

__all__ = ["SparkAnnotations", "spark_annotations"]

#: The paired columns the passes read (:mod:`._dask`'s names), in the order of :data:`~.data_form.INPUTS`.
_PAIRED = ("y_true", "y_pred", "item", "annotator")


class SparkAnnotations:
    """A Spark DataFrame of the four paired columns as the passes' annotations (:class:`~._dask.Annotations`).

    Args:
        frame: the Spark DataFrame of the columns ``y_true``, ``y_pred``, ``item``, ``annotator``.
        dtypes: their pandas dtypes (those ``toPandas()`` gives), for a partition without rows.
        names: the user's column names, for messages.
        driver_bytes: bytes that reached the driver before (carried over a repartition).
    """

    row_labels = False  # a Spark DataFrame has no row labels: messages name the ids' columns
    engine = "spark"

    def __init__(self, frame: Any, dtypes: pd.Series, names: dict[str, str], driver_bytes: int = 0):
        self.frame, self.dtypes, self.names = frame, dtypes, names
        self.parts = SparkPartitions(frame, list(_PAIRED), dtypes)
        self.parts.driver_bytes = driver_bytes

    def by_item(self, kinds: list[str | None]) -> SparkAnnotations:
        """Each item's rows in one partition: hash partitioning by the item column, as many partitions as before
        (every later pass computes the same partitions again: the same items in each)."""
        frame = self.frame.repartition(max(1, self.parts.npartitions), column("item"))
        return SparkAnnotations(frame, self.dtypes, self.names, self.parts.driver_bytes)


def spark_annotations(data: Any, y_true: Any, y_pred: Any, item_ids: Any, annotator_ids: Any) -> SparkAnnotations:
    """The annotations of the Spark DataFrame ``data``, whose columns the four inputs name (no pass over the data).

    Raises:
        TypeError: an input that is not a column name; a nested column (array, map, struct).
        ValueError: a name that is not a column of ``data``.
    """
    require_spark()
    from pyspark.sql import types as T

    given = dict(zip(INPUTS, (y_true, y_pred, item_ids, annotator_ids), strict=True))
    check_column_names(list(data.columns), given, "a Spark DataFrame")
    types = {f.name: f.dataType for f in data.schema.fields}
    for name, value in given.items():
        if isinstance(types[value], T.ArrayType | T.MapType | T.StructType):
            raise TypeError(f"{name}={value!r} holds {types[value].simpleString()} values; expected labels or ids "
                            "(numbers, booleans or text): flatten the column first")
    frame = data.select(*[column(given[n]).alias(c) for n, c in zip(INPUTS, _PAIRED, strict=True)])
    dtypes = frame.limit(0).toPandas().dtypes
    names = {c: given[n] for n, c in zip(INPUTS, _PAIRED, strict=True)}
    return SparkAnnotations(frame, dtypes, names)
