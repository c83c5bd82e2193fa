"""Partition layout and reductions shared by the Dask back ends.

Per-item (per-unit) computations -- majority vote, the pairs of workers of a unit -- are partition-local
when every item lives in exactly one partition. Tables written item by item (the synthetic Parquet
writer, most exports sorted by item) are laid out like that already: each partition holds a contiguous,
non-overlapping range of ids. :func:`items_are_local` tests that from per-partition minima and maxima
computed in the same pass as the statistics, and :func:`by_item` shuffles the table by item once when
they are not (ids in no order, or an item cut in two by a CSV block boundary).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd


def id_range(ids: np.ndarray) -> tuple[Any, Any] | None:
    """(min, max) of a partition's ids; None when empty or when the ids cannot be ordered."""
    if len(ids) == 0:
        return None
    try:
        return ids.min(), ids.max()
    except TypeError:  # mixed, unorderable ids: no range, the caller shuffles
        return None


def items_are_local(ranges: Sequence[tuple[Any, Any] | None], lengths: Sequence[int]) -> bool:
    """Whether per-partition id ranges are pairwise disjoint (so each id lives in one partition).

    Args:
        ranges: (min, max) per partition, None for an empty or unorderable partition.
        lengths: rows per partition (an empty partition has no range and does not count).

    Returns:
        bool: True when the closed ranges of the non-empty partitions do not overlap.
    """
    present: list[tuple[Any, Any]] = []
    for r, n in zip(ranges, lengths, strict=True):
        if not n:
            continue
        if r is None:
            return False
        present.append(r)
    try:
        present.sort(key=lambda r: r[0])
        return all(a[1] < b[0] for a, b in zip(present, present[1:], strict=False))
    except TypeError:  # ranges of different types across partitions
        return False


def id_kind(ids: np.ndarray) -> str | None:
    """The kind of a partition's ids (pandas' ``infer_dtype``: "integer", "string", "mixed-integer", ...); None
    when empty."""
    return pd.api.types.infer_dtype(ids, skipna=True) if len(ids) else None


def by_item(frame: Any, column: str, kinds: Sequence[str | None] = ()) -> Any:
    """The Dask DataFrame shuffled so that all rows of one ``column`` value share a partition.

    ``kinds``: the partitions' :func:`id_kind`. Ids of different kinds across partitions (int in one file, text in
    another), or of mixed kinds within one, are shuffled by Dask's task-based shuffle, which concatenates pandas
    partitions as pandas does (an object column); the default (P2P, through Arrow) refuses to merge them.
    """
    present = {k for k in kinds if k is not None}
    if len(present) > 1 or any(k.startswith("mixed") for k in present):
        return frame.shuffle(on=column, shuffle_method="tasks")
    return frame.shuffle(on=column)


def tree_reduce(parts: Sequence[Any], combine: Callable[[list[Any]], Any], fan_in: int = 8) -> Any:
    """Reduce a list of Delayed objects pairwise-in-groups with ``combine(list) -> value`` (a Delayed)."""
    from dask import delayed

    level = list(parts)
    if not level:
        raise ValueError("nothing to reduce: the Dask collection has no partitions")
    while len(level) > 1:
        level = [delayed(combine)(level[i:i + fan_in]) for i in range(0, len(level), fan_in)]
    return level[0] if len(parts) > 1 else delayed(combine)(level)


def add_frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Sum per-id count tables (index = id) over partitions; ids missing from a table count 0."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame()
    out = pd.concat(frames)
    levels = list(range(out.index.nlevels))
    return out.groupby(level=levels, sort=False).sum() if len(frames) > 1 else out
