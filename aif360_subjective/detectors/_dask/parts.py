"""The partitions a distributed subgroup discovery runs over: the one interface of its engines (Dask, Spark).

Every pass of :mod:`.detect` and :mod:`.summary` is a function of one partition's rows that returns counts;
the engine runs it on every partition and brings the results to the client, either each partition's
(:meth:`Parts.map`, in partition order) or their sum (:meth:`Parts.total`, reduced as a tree). A pass is
called as ``fn(frame, [yt, yp,] *each[i], *args)``: the partition's feature columns (a pandas DataFrame), with
``labels=True`` its truth and prediction Series, then what differs per partition (``each``, e.g. the global
position of its first row) and what every partition shares (``args``). The engines differ only in how they
run it: :class:`DaskParts` on the partitions of Dask collections, ``detectors._spark.parts.SparkParts`` on a
Spark DataFrame's (``mapInPandas``).

The rows' global positions (which the keyed permutations are evaluated at) are the rows' order in the
collection: partition by partition, in each partition the rows' order (what ``compute()`` or ``toPandas()``
gives).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..._dask._partitions import tree_reduce

__all__ = ["DaskParts", "Parts"]


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

    def lazy_mask(self, mask: Callable[..., pd.Series], items: Any, lo: np.ndarray, hi: np.ndarray) -> Any: ...

    def computed_mask(self, lazy: Any) -> pd.Series: ...


def _add(parts: list[Any]) -> Any:
    return sum(parts[1:], parts[0])


class DaskParts:
    """The partitions of the Dask DataFrame ``X`` (and the Dask Series ``t`` and ``p``, partitioned as ``X``).

    Graphs are built unoptimised: optimised, a projection of fewer columns may fuse Parquet files into fewer
    partitions than another, and the partitions would no longer pair. What every task shares is one Dask key
    (not hashed, not a copy per task).
    """

    def __init__(self, X: Any, t: Any = None, p: Any = None):
        self.X, self.t, self.p = X, t, p

    @property
    def npartitions(self) -> int:
        return int(self.X.npartitions)

    @property
    def columns(self) -> list[str]:
        return list(self.X.columns)

    @property
    def dtypes(self) -> pd.Series:
        out: pd.Series = self.X.dtypes
        return out

    def _jobs(self, fn: Callable[..., Any], args: tuple[Any, ...], labels: bool,
              each: Sequence[tuple[Any, ...]] | None) -> list[Any]:
        import dask

        shared = [dask.delayed(a, pure=False) if isinstance(a, np.ndarray | list | tuple | dict) or hasattr(
            a, "__dataclass_fields__") else a for a in args]
        frames: list[tuple[Any, ...]] = [(x,) for x in self.X.to_delayed(optimize_graph=False)]
        if labels:
            frames = [(x, a, b) for (x,), a, b in zip(frames, self.t.to_delayed(optimize_graph=False),
                                                       self.p.to_delayed(optimize_graph=False), strict=True)]
        per = [()] * len(frames) if each is None else list(each)
        return [dask.delayed(fn)(*f, *e, *shared) for f, e in zip(frames, per, strict=True)]

    def map(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
            each: Sequence[tuple[Any, ...]] | None = None) -> list[Any]:
        """``fn``'s result on every partition, in partition order."""
        import dask

        return list(dask.compute(*self._jobs(fn, args, labels, each)))

    def total(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
              each: Sequence[tuple[Any, ...]] | None = None) -> np.ndarray:
        """The sum of ``fn``'s results over the partitions (a tree of sums on the cluster)."""
        return np.asarray(tree_reduce(self._jobs(fn, args, labels, each), _add).compute())

    def lazy_mask(self, mask: Callable[..., pd.Series], items: Any, lo: np.ndarray, hi: np.ndarray) -> Any:
        """Boolean Dask Series (index of X): ``mask(frame, items, lo, hi)`` per partition, not computed."""
        import dask

        return self.X.map_partitions(mask, dask.delayed(items, pure=False), lo, hi, meta=pd.Series(dtype=bool),
                                     align_dataframes=False)

    def computed_mask(self, lazy: Any) -> pd.Series:
        """The computed mask."""
        out: pd.Series = lazy.compute()
        return out
