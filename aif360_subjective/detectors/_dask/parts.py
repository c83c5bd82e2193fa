"""The partitions a distributed subgroup discovery runs over: the one interface of its engines (Dask, Spark).

Every pass of :mod:`.detect` and :mod:`.summary` is a function of one partition's rows that returns counts;
the engine runs it on every partition and brings the results to the client, either each partition's
(:meth:`Parts.map`, in partition order), their sum (:meth:`Parts.total`, reduced as a tree) or another
combination of them (:meth:`Parts.reduce`). A pass is called as ``fn(frame, [yt, yp,] *each[i], *args)``:
the partition's feature columns (a pandas DataFrame), with ``labels=True`` its truth and prediction Series,
then what differs per partition (``each``, e.g. the global position of its first row) and what every partition
shares (``args``). The engines differ only in how they run it: :class:`~aif360_subjective._dask.parts.DaskParts`
on the partitions of Dask collections, ``detectors._spark.parts.SparkParts`` on a Spark DataFrame's
(``mapInPandas``, through :class:`~aif360_subjective._spark.partitions.SparkPartitions`). The engine faces live on
the ground floor, where the opinion-exclusion counts use them too.

The rows' global positions (which the keyed permutations are evaluated at) are the rows' order in the
collection: partition by partition, in each partition the rows' order (what ``compute()`` or ``toPandas()``
gives).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

__all__ = ["Parts"]


class Parts(Protocol):
    """The partitions of one table: feature columns and, paired with them row for row, truth and prediction."""

    @property
    def npartitions(self) -> int: ...

    @property
    def columns(self) -> list[str]: ...

    @property
    def dtypes(self) -> pd.Series: ...

    def map(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
            each: Sequence[tuple[Any, ...]] | None = None) -> list[Any]: ...

    def total(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
              each: Sequence[tuple[Any, ...]] | None = None) -> np.ndarray: ...

    def reduce(self, fn: Callable[..., Any], combine: Callable[[list[Any]], Any], *args: Any, labels: bool = False,
               each: Sequence[tuple[Any, ...]] | None = None) -> Any: ...

    def lazy_mask(self, mask: Callable[..., pd.Series], items: Any, lo: np.ndarray, hi: np.ndarray) -> Any: ...

    def computed_mask(self, lazy: Any) -> pd.Series: ...

