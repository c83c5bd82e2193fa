"""The partitions of a Dask collection as the distributed passes read them: the Dask face of the engines' one
interface (the Spark face: :class:`~aif360_subjective._spark.partitions.SparkPartitions`).

A pass is a function of one partition's rows that returns counts, called as ``fn(frame, [yt, yp,] *each[i],
*args)``: the partition's columns (a pandas DataFrame), with ``labels=True`` its truth and prediction Series,
then what differs per partition (``each``) and what every partition shares (``args``). :meth:`DaskParts.map`
brings every partition's result to the client, :meth:`DaskParts.reduce` combines them as a tree on the cluster
and :meth:`DaskParts.total` sums them so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._partitions import tree_reduce

__all__ = ["DaskParts"]


def _add(parts: list[Any]) -> Any:
    return sum(parts[1:], parts[0])


class DaskParts:
    """The partitions of the Dask DataFrame ``X`` (and the Dask Series ``t`` and ``p``, partitioned as ``X``).

    Graphs are built unoptimised by default: optimised, a projection of fewer columns may fuse Parquet files into
    fewer partitions than another, and the partitions would no longer pair. ``optimize=True`` (one frame, no
    label Series to pair with it) lets Dask push the projection into the read. What every task shares is one
    Dask key (not hashed, not a copy per task).
    """

    def __init__(self, X: Any, t: Any = None, p: Any = None, *, optimize: bool = False):
        self.X, self.t, self.p = X, t, p
        self.optimize = optimize

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
        frames: list[tuple[Any, ...]] = [(x,) for x in self.X.to_delayed(optimize_graph=self.optimize)]
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

    def reduce(self, fn: Callable[..., Any], combine: Callable[[list[Any]], Any], *args: Any, labels: bool = False,
               each: Sequence[tuple[Any, ...]] | None = None) -> Any:
        """``combine`` of ``fn``'s results over the partitions, as a tree on the cluster (``combine`` takes a list
        of results or of combined results)."""
        return tree_reduce(self._jobs(fn, args, labels, each), combine).compute()

    def total(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
              each: Sequence[tuple[Any, ...]] | None = None) -> np.ndarray:
        """The sum of ``fn``'s results over the partitions (a tree of sums on the cluster)."""
        return np.asarray(self.reduce(fn, _add, *args, labels=labels, each=each))

    def lazy_mask(self, mask: Callable[..., pd.Series], items: Any, lo: np.ndarray, hi: np.ndarray) -> Any:
        """Boolean Dask Series (index of X): ``mask(frame, items, lo, hi)`` per partition, not computed."""
        import dask

        return self.X.map_partitions(mask, dask.delayed(items, pure=False), lo, hi, meta=pd.Series(dtype=bool),
                                     align_dataframes=False)

    def computed_mask(self, lazy: Any) -> pd.Series:
        """The computed mask."""
        out: pd.Series = lazy.compute()
        return out
