"""A Spark DataFrame's partitions as the distributed subgroup discovery reads them (:class:`~.._dask.parts.Parts`).

Each pass is one ``mapInPandas``: the function of one partition runs on its rows (its Arrow batches joined into
one pandas frame, in their order) and returns one row, the partition's index and its pickled result. A
:meth:`SparkParts.map` collects those rows; a :meth:`SparkParts.total` adds them on the executors first, in
``ceil(sqrt(P))`` groups of partitions (one shuffle of the pickled results, no row), so that only that many
partial sums reach the driver (:attr:`SparkParts.driver_bytes` counts what did).

The rows' global positions are their order in the DataFrame (partition by partition, each partition's rows in
order: what ``toPandas()`` gives); every pass must see the same partitions, which is checked (their number and
indices, and every partition's rows against the first pass'). A DataFrame read from files keeps its partitions
from pass to pass; one computed by a shuffle (a sort, a repartition, a join) may not, and is persisted first.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._dask.counts import column_coding
from ..mining.pattern_mining import Items

__all__ = ["LABEL_COLUMNS", "MOVED", "SparkParts", "column"]

#: The names the label columns take inside the passes (never a feature's: checked).
LABEL_COLUMNS = ("__aif360_y_true", "__aif360_y_pred")
_SCHEMA = "pid int, payload binary"
#: The mark of a partition whose rows moved between passes (raised in the task, recognised on the driver).
MOVED = "aif360-subjective: partition rows moved"
_MOVED_TEXT = ("the Spark DataFrame's partitions changed between the passes of the analysis: its rows must keep "
               "their partitions and order from pass to pass (the keyed permutations are evaluated at the rows' "
               "positions). Read it from files, or persist it first (sdf.persist(); after a sort or a shuffle: "
               "sdf.orderBy('id').persist(), or write it to Parquet and read that)")


def column(name: str) -> Any:
    """A Spark Column by its name, quoted (a name with a dot or a space is a column, not a field access)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _partition_id() -> int:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return 0 if ctx is None else int(ctx.partitionId())


def _add_pickled(a: bytes, b: bytes) -> bytes:
    return pickle.dumps(pickle.loads(a) + pickle.loads(b), protocol=5)


class SparkParts:
    """The partitions of ``sdf`` (the features and, under :data:`LABEL_COLUMNS`, the labels).

    Args:
        sdf: the Spark DataFrame of the features and the label columns.
        features: the feature columns.
        dtypes: the features' pandas dtypes (those ``toPandas()`` gives).
    """

    #: Bytes of one partition's counts of one pass of the keyed max-T (float64 reckoning; sent as uint32): smaller
    #: than Dask's, since each result crosses the JVM as one binary value.
    RESULT_BYTES = 16 * 2**20
    #: Partitions up to which the driver adds the partitions' results itself (:meth:`total`).
    DRIVER_SUMS = 16

    def __init__(self, sdf: Any, features: list[str], dtypes: pd.Series):
        self.sdf = sdf
        self.features = list(features)
        self._dtypes = dtypes
        self._n = int(sdf.rdd.getNumPartitions())
        #: Bytes of the results that reached the driver (pickled), over every pass so far.
        self.driver_bytes = 0
        self.passes = 0
        #: Rows per partition once known (:meth:`pin`): every later pass checks that its partitions hold as many.
        self.lengths: list[int] | None = None

    def pin(self, lengths: Sequence[int]) -> None:
        """Remember the rows of every partition (the first pass'): a later pass that finds another number refuses
        (the rows' positions would no longer be theirs)."""
        self.lengths = [int(n) for n in lengths]

    def _collect(self, frame: Any) -> list[Any]:
        """``frame.collect()``, a partition whose rows moved between passes raised as one clear RuntimeError."""
        from pyspark.errors import PythonException

        try:
            rows: list[Any] = frame.collect()
        except PythonException as err:
            if MOVED in str(err):
                raise RuntimeError(_MOVED_TEXT) from None
            raise
        return rows

    @property
    def npartitions(self) -> int:
        return self._n

    @property
    def columns(self) -> list[str]:
        return list(self.features)

    @property
    def dtypes(self) -> pd.Series:
        return self._dtypes

    def _results(self, fn: Callable[..., Any], args: tuple[Any, ...], labels: bool,
                 each: Sequence[tuple[Any, ...]] | None) -> Any:
        features, dtypes, lengths = self.features, self._dtypes, self.lengths
        per = None if each is None else list(each)
        empty = {c: pd.Series(dtype=d) for c, d in dtypes.items()}
        t_col, p_col = LABEL_COLUMNS

        def task(batches: Any) -> Any:
            pid = _partition_id()
            frames = list(batches)
            frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
                {**empty, t_col: pd.Series(dtype=np.float64), p_col: pd.Series(dtype=np.float64)})
            if lengths is not None and len(frame) != lengths[pid]:
                raise RuntimeError(f"{MOVED}: partition {pid} holds {len(frame)} rows in this pass and held "
                                   f"{lengths[pid]} in the first")
            call = (frame[features], frame[t_col], frame[p_col]) if labels else (frame[features],)
            extra = () if per is None else per[pid]
            out = fn(*call, *extra, *args)
            yield pd.DataFrame({"pid": [pid], "payload": [pickle.dumps(out, protocol=5)]})

        self.passes += 1
        return self.sdf.mapInPandas(task, _SCHEMA)

    def _check(self, pids: list[int]) -> None:
        if sorted(pids) != list(range(self._n)):
            raise RuntimeError(f"{_MOVED_TEXT} ({self._n} partitions expected, results of {len(set(pids))})")

    def map(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
            each: Sequence[tuple[Any, ...]] | None = None) -> list[Any]:
        """``fn``'s result on every partition, in partition order."""
        rows = self._collect(self._results(fn, args, labels, each))
        self._check([int(r["pid"]) for r in rows])
        self.driver_bytes += sum(len(r["payload"]) for r in rows)
        return [pickle.loads(r["payload"]) for r in sorted(rows, key=lambda r: int(r["pid"]))]

    def total(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
              each: Sequence[tuple[Any, ...]] | None = None) -> np.ndarray:
        """The sum of ``fn``'s results over the partitions. Up to :attr:`DRIVER_SUMS` partitions the driver adds
        their results (one Spark job); above, the executors add them in ``ceil(sqrt(P))`` groups of partitions
        (a shuffle of the pickled results, no row) and only the groups' partial sums reach the driver."""
        if self._n <= self.DRIVER_SUMS:
            return np.asarray(sum(self.map(fn, *args, labels=labels, each=each)))
        groups = max(1, math.ceil(math.sqrt(self._n)))
        pairs = self._results(fn, args, labels, each).rdd.map(lambda r: (int(r["pid"]), bytes(r["payload"])))
        seen = pairs.map(lambda kv: (kv[0] % groups, ([kv[0]], kv[1])))
        partial = self._collect(seen.reduceByKey(lambda a, b: (a[0] + b[0], _add_pickled(a[1], b[1])), groups))
        self._check([pid for _, (pids, _) in partial for pid in pids])
        self.driver_bytes += sum(len(blob) for _, (_, blob) in partial)
        return np.asarray(sum(pickle.loads(blob) for _, (_, blob) in partial))

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
