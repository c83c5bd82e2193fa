"""A Spark DataFrame's partitions as the distributed passes read them: the Spark face of the engines' one interface.

Every distributed pass of this package (subgroup discovery, the opinion-exclusion counts) is a function of one
partition's rows that returns counts; the engine runs it on every partition and brings the results to the driver,
either each partition's (:meth:`SparkPartitions.map`, in partition order) or their combination
(:meth:`SparkPartitions.reduce`, :meth:`SparkPartitions.total`). The Dask face is
:class:`~aif360_subjective._dask.parts.DaskParts`, with the same methods.

Each pass is one ``mapInPandas``: the function of one partition runs on its rows (its Arrow batches joined into
one pandas frame, in their order) and returns its pickled result, cut into rows of at most
:attr:`SparkPartitions.CHUNK_BYTES` (the partition's index, the piece's place, the piece): a result of tens of
megabytes (the keyed max-T's permuted counts) crosses the JVM as many small values rather than one, which moves it
faster and never near the JVM's limit of 2 GB per row. A
:meth:`SparkPartitions.map` collects those rows; a :meth:`SparkPartitions.reduce` combines them on the executors
first, in ``floor(sqrt(P))`` groups of partitions (one shuffle of the pickled results, no row), so that only that
many partial results reach the driver (:attr:`SparkPartitions.driver_bytes` counts what did).

The rows' global positions are their order in the DataFrame (partition by partition, each partition's rows in
order: what ``toPandas()`` gives); a pass that needs the same partitions as an earlier one checks it (their number
and indices, and with :meth:`SparkPartitions.pin` every partition's rows against the first pass'). A DataFrame
read from files keeps its partitions from pass to pass; one computed by a sort may not, and is persisted first.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["LABEL_COLUMNS", "MOVED", "SparkPartitions", "column"]

#: The names the label columns take inside the passes (never a feature's: checked).
LABEL_COLUMNS = ("__aif360_y_true", "__aif360_y_pred")
_SCHEMA = "pid int, piece int, payload binary"
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


def _pieces(pid: int, blob: bytes, size: int) -> pd.DataFrame:
    """The rows of one partition's pickled result: ``blob`` in numbered pieces of at most ``size`` bytes."""
    starts = range(0, max(len(blob), 1), size)
    return pd.DataFrame({"pid": [pid] * len(starts), "piece": list(range(len(starts))),
                         "payload": [blob[s:s + size] for s in starts]})


def _joined(rows: Any) -> dict[int, bytes]:
    """Each partition's pickled result from its rows (:func:`_pieces`), in any order."""
    got: dict[int, list[tuple[int, bytes]]] = {}
    for r in rows:
        got.setdefault(int(r["pid"]), []).append((int(r["piece"]), bytes(r["payload"])))
    return {pid: b"".join(piece for _, piece in sorted(pieces)) for pid, pieces in got.items()}


def _combine_pickled(combine: Callable[[list[Any]], Any]) -> Callable[[bytes, bytes], bytes]:
    def both(a: bytes, b: bytes) -> bytes:
        return pickle.dumps(combine([pickle.loads(a), pickle.loads(b)]), protocol=5)

    return both


def _add(parts: list[Any]) -> Any:
    return sum(parts[1:], parts[0])


class SparkPartitions:
    """The partitions of ``sdf``: the columns a pass reads and, under :data:`LABEL_COLUMNS`, the labels.

    Args:
        sdf: the Spark DataFrame.
        columns: the columns a pass receives (with ``labels=True`` the label columns come separately).
        dtypes: their pandas dtypes (those ``toPandas()`` gives), for a partition without rows.
    """

    #: Largest piece of a partition's pickled result in one row (the result crosses the JVM in such pieces).
    CHUNK_BYTES = 4 * 2**20
    #: Partitions up to which the driver combines the partitions' results itself (:meth:`reduce`).
    DRIVER_SUMS = 16

    def __init__(self, sdf: Any, columns: list[str], dtypes: pd.Series):
        self.sdf = sdf
        self.features = list(columns)
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
        features, dtypes, lengths, size = self.features, self._dtypes, self.lengths, int(self.CHUNK_BYTES)
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
            yield _pieces(pid, pickle.dumps(out, protocol=5), size)

        self.passes += 1
        return self.sdf.mapInPandas(task, _SCHEMA)

    def _check(self, pids: list[int]) -> None:
        if sorted(pids) != list(range(self._n)):
            raise RuntimeError(f"{_MOVED_TEXT} ({self._n} partitions expected, results of {len(set(pids))})")

    def map(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
            each: Sequence[tuple[Any, ...]] | None = None) -> list[Any]:
        """``fn``'s result on every partition, in partition order."""
        blobs = _joined(self._collect(self._results(fn, args, labels, each)))
        self._check(list(blobs))
        self.driver_bytes += sum(len(b) for b in blobs.values())
        return [pickle.loads(blobs[pid]) for pid in sorted(blobs)]

    def reduce(self, fn: Callable[..., Any], combine: Callable[[list[Any]], Any], *args: Any, labels: bool = False,
               each: Sequence[tuple[Any, ...]] | None = None) -> Any:
        """``combine`` of ``fn``'s results over the partitions (``combine`` takes a list of results or of combined
        results). Up to :attr:`DRIVER_SUMS` partitions the driver combines their results (one Spark job); above,
        the executors combine them in ``floor(sqrt(P))`` groups of partitions (a shuffle of the pickled results, no
        row) and only the groups' partial results reach the driver: one for 2 or 3 partitions (where ``ceil`` would
        give a group per partition, and the shuffle would save nothing)."""
        if self._n <= self.DRIVER_SUMS:
            return combine(self.map(fn, *args, labels=labels, each=each))
        groups = max(1, math.isqrt(self._n))
        # a partition's pieces stay in its partition (mapInPandas is narrow): joined there, with no shuffle
        pairs = self._results(fn, args, labels, each).rdd.mapPartitions(lambda rows: iter(_joined(rows).items()))
        seen = pairs.map(lambda kv: (kv[0] % groups, ([kv[0]], kv[1])))
        both = _combine_pickled(combine)
        partial = self._collect(seen.reduceByKey(lambda a, b: (a[0] + b[0], both(a[1], b[1])), groups))
        self._check([pid for _, (pids, _) in partial for pid in pids])
        self.driver_bytes += sum(len(blob) for _, (_, blob) in partial)
        return combine([pickle.loads(blob) for _, (_, blob) in partial])

    def total(self, fn: Callable[..., Any], *args: Any, labels: bool = False,
              each: Sequence[tuple[Any, ...]] | None = None) -> np.ndarray:
        """The sum of ``fn``'s results over the partitions (:meth:`reduce` with ``+``)."""
        return np.asarray(self.reduce(fn, _add, *args, labels=labels, each=each))
