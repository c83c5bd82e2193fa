"""CrowdTruth 2.0 on a Dask DataFrame: the in-memory iteration, split over blocks of units.

Layout. The table is partitioned by unit once: if every unit already lives in one partition (checked
from the partitions' id ranges, gathered with the worker and label sets in the first pass) it is used
as it is, otherwise it is shuffled by unit once and kept on the workers. The partitions are then grouped
into *blocks*, one per thread of the cluster (contiguous runs of partitions; each block placed on one
worker). Each partition of a block is encoded by the in-memory encoder (:func:`build_tensor`: same
validation, same judgment order) with the global worker codes and label set, and kept with its block as
an in-memory ``Job`` for the whole iteration.

One task per block and iteration. With the previous WQS (per worker, small), AQS (per label) and the
block's own previous UQS (per unit, never leaves its worker), a block computes partition by partition,
with the in-memory :func:`unit_step`:

* its units' new UQS (kept on the worker);
* per worker, the numerators and denominators of WWA and WUA (sums over units: they add over
  blocks; a tree reduction brings them to the client, a few arrays of length n_workers);
* the pair sums of AQS, ``D_ij[a]`` and ``N_ij[a]`` per (worker i, worker j, label a), summed over the
  block's units into one dense array indexed by the key ``(i * n_workers + j) * n_labels + a``.

Pair sums (single-choice judgments, ``n_workers**2 * n_labels <= DENSE_PAIR_KEYS``). The ordered worker
pairs of a unit are formed by broadcasting, per unit size k, the (units, k) matrices of its judgments'
workers and labels: no pair structure is stored (the in-memory engine's one holds about ten entries
per annotation, which is what filled the workers' memory), and no per-partition pair table travels. The
blocks' dense arrays are added (one transfer per block) and AQS's numerator and denominator per label
are formed where they meet; only those come to the client. Multiple-choice judgments, or more keys than
``DENSE_PAIR_KEYS``, take the general path: the in-memory pair structure per partition, whose sums are
completed per bucket of keys (layout built once), at the price of moving every partition's pair sums
once per iteration.

The client forms WQS = WWA * WUA and AQS as the in-memory code does. Floating sums are the in-memory
ones associated differently (per partition first), so scores agree to ~1e-15, not bitwise.

Results: ``units`` is a Dask DataFrame (one row per unit, one partition per block, computed from the
persisted per-block state); ``workers`` and ``annotations`` are pandas DataFrames.

Not on Dask (ValueError before any computation): ``duplicates="last"`` (a shuffle does not keep the
row order), ``keep_history=True``.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .._dask import active_client, check_workers, require_dask
from .._dask._partitions import by_item, id_kind, id_range, items_are_local, tree_reduce
from ._vectors import (
    DUPLICATE_POLICIES,
    build_tensor,
    check_table_columns,
    factorize_ids,
    label_entries,
)
from .engine import (
    Convergence,
    CrowdTruthResult,
    Job,
    aqs_from_sums,
    aqs_label_sums,
    decode_pair_keys,
    pair_sums,
    unit_annotation_scores,
    unit_step,
    worker_scores,
)


# ----------------------------------------------------------------------------------------------
# per-partition functions (run on the workers)
# ----------------------------------------------------------------------------------------------
def _scan(df: pd.DataFrame, unit_col: str, worker_col: str, label_col: str) -> dict[str, list[Any]]:
    """First pass: the partition's workers, labels, unit id range and size."""
    if not len(df):
        return {"workers": [np.asarray([], dtype=object)], "labels": [], "ranges": [None], "lengths": [0],
                "kinds": [None]}
    _, values = label_entries(df[label_col], label_col)
    units = df[unit_col].to_numpy()
    return {"workers": [pd.unique(df[worker_col].dropna().to_numpy())], "labels": [pd.unique(values)],
            "ranges": [id_range(units)], "lengths": [len(df)], "kinds": [id_kind(units)]}


def _merge_scans(parts: list[dict[str, list[Any]]]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {"workers": [], "labels": [], "ranges": [], "lengths": [], "kinds": []}
    for p in parts:
        for k in out:
            out[k].extend(p[k])
    out["workers"] = [pd.unique(np.concatenate(out["workers"]))] if out["workers"] else []
    out["labels"] = [pd.unique(np.concatenate(out["labels"]))] if out["labels"] else []
    return out


def _build(df: pd.DataFrame, unit_col: str, worker_col: str, label_col: str, labels: pd.Index, workers: pd.Index,
           duplicates: str) -> dict[str, Any] | None:
    """The partition's judgments as an in-memory ``Job`` with global worker codes (None when empty)."""
    if not len(df):
        return None
    t = build_tensor(df, unit_col, worker_col, label_col, list(labels), duplicates)
    t = replace(t, worker_ids=workers, worker=workers.get_indexer(t.worker_ids)[t.worker].astype(np.int64),
                labels=labels)
    return {"job": Job(t), "units": t.unit_ids, "n_rows": t.n_rows, "n_duplicate_rows": t.n_duplicate_rows}


def _with_pair_layout(part: dict[str, Any], n_buckets: int) -> tuple[dict[str, Any], list[np.ndarray]]:
    """Build the partition's pair structure once and sort its keys into buckets (by key modulo n_buckets).

    Returns the partition with the order and bucket bounds of its keys, and the keys of every bucket.
    """
    job = part["job"]
    pair_sums(job, np.ones(job.n_units))  # builds job.pairs (the self-join on unit)
    keys = job.pairs.keys
    bucket = keys % n_buckets
    order = np.argsort(bucket, kind="stable")
    bounds = np.searchsorted(bucket[order], np.arange(n_buckets + 1))
    part = {**part, "pair_order": order, "pair_bounds": bounds}
    return part, [keys[order[bounds[b]:bounds[b + 1]]] for b in range(n_buckets)]


def _bucket_layout(key_pieces: list[np.ndarray], n_workers: int, n_labels: int) -> dict[str, Any]:
    """The distinct keys of one bucket (decoded) and, per partition, where its keys go among them."""
    uk, inv = np.unique(np.concatenate(key_pieces), return_inverse=True)
    cuts = np.cumsum([len(k) for k in key_pieces])[:-1]
    i, j, label = decode_pair_keys(uk, n_workers, n_labels)
    return {"n_keys": len(uk), "inv": np.split(inv, cuts), "i": i, "j": j, "label": label}


def _step(part: dict[str, Any], q: np.ndarray | None, w: np.ndarray, g: np.ndarray, open_ended: bool) -> dict[str, Any]:
    """One iteration on one partition (see the module docstring)."""
    job = part["job"]
    q = np.ones(job.n_units) if q is None else q
    step = unit_step(job, w, q, g)
    change = np.abs(step["uqs"] - q)
    out = {"uqs": step["uqs"], "worker_sums": step["worker_sums"],
           "uqs_change": (change.max(initial=0.0), change.sum())}
    if not open_ended:
        d, n = pair_sums(job, q)
        order, bounds = part["pair_order"], part["pair_bounds"]
        d, n = d[order], n[order]
        out["pairs"] = [(d[lo:hi], n[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    return out


def _piece(step: dict[str, Any], b: int) -> tuple[np.ndarray, np.ndarray]:
    """Bucket b of a partition's pair sums (a task of its own, so only this piece travels)."""
    piece: tuple[np.ndarray, np.ndarray] = step["pairs"][b]
    return piece


def _bucket(layout: dict[str, Any], pieces: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray,
            n_labels: int) -> np.ndarray:
    """AQS numerator and denominator per label over the keys of one bucket (pair sums completed here)."""
    d = np.zeros(layout["n_keys"])
    n = np.zeros(layout["n_keys"])
    for inv, (piece_d, piece_n) in zip(layout["inv"], pieces, strict=True):
        d += np.bincount(inv, piece_d, minlength=len(d))
        n += np.bincount(inv, piece_n, minlength=len(n))
    return np.vstack(aqs_label_sums(layout["i"], layout["j"], layout["label"], d, n, w, n_labels))


def _add(arrays: list[Any]) -> Any:
    out = arrays[0]
    for a in arrays[1:]:
        out = out + a
    return out


def _change(parts: list[tuple[float, float]]) -> tuple[float, float]:
    return max(p[0] for p in parts), sum(p[1] for p in parts)


def _units_frame(part: dict[str, Any], q_last: np.ndarray, q_first: np.ndarray, w: np.ndarray,
                 label_names: list[str]) -> pd.DataFrame:
    job = part["job"]
    uas = unit_annotation_scores(job, w)
    uas0 = unit_annotation_scores(job, np.ones(job.n_workers))
    units = pd.DataFrame({"n_workers": job.k_u, "uqs": q_last, "uqs_initial": q_first}, index=part["units"])
    cols = {f"uas_{name}": uas[:, k] for k, name in enumerate(label_names)}
    cols.update({f"uas_{name}_initial": uas0[:, k] for k, name in enumerate(label_names)})
    return pd.concat([units, pd.DataFrame(cols, index=part["units"])], axis=1)


# ----------------------------------------------------------------------------------------------
# blocks: per-thread groups of partitions, pair sums accumulated densely (run on the workers)
# ----------------------------------------------------------------------------------------------
DENSE_PAIR_KEYS = 1 << 24
"""Most (worker, worker, label) keys for the dense pair sums (two float64 arrays of this length per block)."""

LOCAL_PAIR_BYTES = 1 << 31
"""On Dask's local schedulers, fewer blocks when their dense pair sums (16 bytes per key each) would pass this."""

_PAIR_CHUNK = 1 << 22  # ordered pairs broadcast at once (bounds the transient arrays to ~100 MB)


def _pair_groups(job: Job) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
    """A single-choice job's units of k >= 2 judgments as (units, k) matrices of worker, label and count, per k.

    Judgments are sorted by unit, and with one label per judgment nonzero j belongs to judgment j. Counts that
    are all 1 (one label per cell) are stored as None.
    """
    starts = np.concatenate([[0], np.cumsum(job.k_u)[:-1]])
    groups = []
    for k in np.unique(job.k_u[job.k_u >= 2]):
        units = np.flatnonzero(job.k_u == k)
        idx = starts[units][:, None] + np.arange(k)
        x = job.nz_x[idx]
        groups.append((units, job.worker[idx].astype(np.int32), job.nz_a[idx].astype(np.int32),
                       None if np.all(x == 1.0) else x))
    return groups


def _add_pair_sums(groups: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]], q: np.ndarray,
                   n_workers: int, n_labels: int, acc: np.ndarray) -> None:
    """Add ``D_ij[a]`` and ``N_ij[a]`` of a job's units into ``acc`` (2, n_workers**2 * n_labels), in place.

    For every ordered pair (i, j) of a unit's judgments: key ``(i * n_workers + j) * n_labels + a`` with a the
    label of j; ``D += q x_j`` and ``N += q x_j x_i [label_i == a]`` (the in-memory :func:`pair_sums`). The pairs
    i == j are added too (cheaper than leaving them out); they weigh 0 in AQS (:func:`_dense_label_sums`).
    """
    for units, wk, lk, xk in groups:
        k = wk.shape[1]
        step = max(1, _PAIR_CHUNK // (k * k))
        for lo in range(0, len(units), step):
            w = wk[lo:lo + step]  # int32: every key is below DENSE_PAIR_KEYS (2^24); ufunc.at is faster on int32
            lab = lk[lo:lo + step]
            m = len(w)
            key = (w * np.int32(n_workers * n_labels))[:, :, None] + (w * np.int32(n_labels) + lab)[:, None, :]
            qx = np.repeat(q[units[lo:lo + step]][:, None], k, axis=1) if xk is None else \
                q[units[lo:lo + step]][:, None] * xk[lo:lo + step]
            d = np.broadcast_to(qx[:, None, :], (m, k, k)).ravel()  # q x_j, whatever i
            n = d * (lab[:, :, None] == lab[:, None, :]).ravel()
            if xk is not None:
                n *= np.broadcast_to(xk[lo:lo + step][:, :, None], (m, k, k)).ravel()
            flat = key.ravel()
            # in place: a bincount would allocate (and fault in) an array of every key per chunk
            np.add.at(acc[0], flat, d)
            np.add.at(acc[1], flat, n)


def _build_block(dfs: list[pd.DataFrame], unit_col: str, worker_col: str, label_col: str, labels: pd.Index,
                 workers: pd.Index, duplicates: str, dense: bool) -> dict[str, Any]:
    """The block's non-empty partitions as in-memory Jobs (with their pair groups on the dense path)."""
    parts = []
    for df in dfs:
        part = _build(df, unit_col, worker_col, label_col, labels, workers, duplicates)
        if part is None:
            continue
        if dense and part["job"].single_choice:
            part["groups"] = _pair_groups(part["job"])
        parts.append(part)
    return {"parts": parts}


def _block_sizes(block: dict[str, Any]) -> list[tuple[int, int, int, bool]]:
    return [(p["n_rows"], p["n_duplicate_rows"], p["job"].n_units, p["job"].single_choice) for p in block["parts"]]


def _block_step(block: dict[str, Any], prev: dict[str, Any] | None, w: np.ndarray, g: np.ndarray,
                open_ended: bool) -> dict[str, Any]:
    """One iteration on one block: new UQS per partition, worker sums, UQS change, dense pair sums."""
    n_w, n_l = len(w), len(g)
    acc = None if open_ended else np.zeros((2, n_w * n_w * n_l))
    sums = np.zeros((4, n_w))
    new_q, c_max, c_sum = [], 0.0, 0.0
    for i, part in enumerate(block["parts"]):
        job = part["job"]
        q = np.ones(job.n_units) if prev is None else prev["uqs"][i]
        step = unit_step(job, w, q, g)
        change = np.abs(step["uqs"] - q)
        c_max, c_sum = max(c_max, change.max(initial=0.0)), c_sum + change.sum()
        sums += step["worker_sums"]
        new_q.append(step["uqs"])
        if acc is not None:
            _add_pair_sums(part["groups"], q, n_w, n_l, acc)
    return {"uqs": new_q, "worker_sums": sums, "uqs_change": (c_max, c_sum), "pairs": acc}


def _dense_label_sums(acc: np.ndarray, w: np.ndarray, n_labels: int) -> np.ndarray:
    """AQS numerator and denominator per label from the complete dense pair sums.

    Over the (i, j, a) cube: ``num[a] = sum_ij w_i w_j N/D [D > 0]`` and ``den[a] = sum_ij w_i w_j [D > 0]``,
    i != j (:func:`aqs_label_sums`, as quadratic forms in w).
    """
    n_w = len(w)
    d, n = acc[0].reshape(n_w, n_w, n_labels), acc[1].reshape(n_w, n_w, n_labels)
    ok = d > 0
    diag = np.arange(n_w)
    ok[diag, diag, :] = False  # the reference skips a worker paired with itself
    ratio = np.divide(n, d, out=np.zeros_like(d), where=ok)
    num = w @ np.tensordot(ratio, w, axes=(1, 0))  # sum_i w_i sum_j ratio_ija w_j
    den = w @ np.tensordot(ok.astype(np.float64), w, axes=(1, 0))
    return np.vstack([num, den])


def _block_units(block: dict[str, Any], last: dict[str, Any], first: dict[str, Any], w: np.ndarray,
                 label_names: list[str]) -> pd.DataFrame:
    frames = [_units_frame(p, ql, qf, w, label_names)
              for p, ql, qf in zip(block["parts"], last["uqs"], first["uqs"], strict=True)]
    return pd.concat(frames) if frames else pd.DataFrame()


def _block_worker_units(block: dict[str, Any], n_workers: int) -> np.ndarray:
    out = np.zeros(n_workers, dtype=np.int64)
    for p in block["parts"]:
        out += p["job"].n_units_of_worker
    return out


def _n_threads() -> tuple[int, list[str]]:
    """Threads of the active distributed client (one entry per thread: its worker's address), else the CPUs."""
    client = active_client()
    if client is None:  # a local scheduler: its pool size
        import dask

        return max(1, int(dask.config.get("num_workers", None) or os.cpu_count() or 1)), []
    nthreads = client.nthreads()
    slots = [addr for t in range(max(nthreads.values(), default=1)) for addr, n in sorted(nthreads.items()) if t < n]
    return max(1, len(slots)), slots


# ----------------------------------------------------------------------------------------------
# the driver (client)
# ----------------------------------------------------------------------------------------------
def check_dask_options(ddf: Any, unit_col: str, worker_col: str, label_col: str, duplicates: str,
                       keep_history: bool) -> None:
    """Raise before any computation for options the Dask path does not support.

    Raises:
        ValueError: ``duplicates="last"``, ``keep_history=True``, missing columns.
        TypeError: ``ddf`` not a Dask DataFrame.
    """
    import dask.dataframe as dd

    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"df must be a pandas or Dask DataFrame, got {type(ddf).__name__}")
    if duplicates not in DUPLICATE_POLICIES:
        raise ValueError(f"duplicates={duplicates!r} is not a policy; expected one of {DUPLICATE_POLICIES}")
    if duplicates == "last":
        raise ValueError("duplicates='last' is not supported on Dask (partitioning by unit does not keep the row "
                         "order); use duplicates='error' or 'union', or compute on pandas")
    if keep_history:
        raise ValueError("keep_history=True is not supported on Dask (every iteration's per-unit values would "
                         "come to the client); use keep_history=False")
    check_table_columns(ddf, {"unit_col": unit_col, "worker_col": worker_col, "label_col": label_col})


def crowdtruth_scores(
    df: Any,
    *,
    unit_col: str,
    worker_col: str,
    label_col: str,
    labels: Sequence[Any] | None,
    open_ended: bool,
    max_delta: float,
    max_iter: int,
    duplicates: str,
    progress: bool,
    keep_history: bool,
) -> CrowdTruthResult:
    """:func:`aif360_subjective.quality.crowdtruth_scores` on a Dask DataFrame.

    Called by the face with every argument explicit; ``open_ended``, ``max_delta`` and ``max_iter`` arrive
    validated, the rest is checked here (:func:`check_dask_options`) before any computation.

    Returns:
        CrowdTruthResult: ``units`` as a Dask DataFrame (per unit, distributed), the rest pandas.

    Raises:
        ValueError, TypeError: as the in-memory function, and for the options not supported on Dask.
        RuntimeError: a distributed cluster with a worker that cannot import this package or runs another
            version (:func:`~aif360_subjective._dask.check_workers`).
    """
    require_dask()
    import dask

    check_dask_options(df, unit_col, worker_col, label_col, duplicates, keep_history)
    check_workers()
    if labels is not None and (isinstance(labels, str) or not isinstance(labels, Sequence | np.ndarray | pd.Index)):
        raise TypeError(f"labels must be a list of labels, got {labels!r}")
    frame = df[[unit_col, worker_col, label_col]]

    def scan(fr: Any) -> dict[str, list[Any]]:
        parts = [dask.delayed(_scan)(d, unit_col, worker_col, label_col) for d in fr.to_delayed()]
        merged: dict[str, list[Any]] = dask.compute(tree_reduce(parts, _merge_scans))[0]
        return merged

    info = scan(frame)
    if not items_are_local(info["ranges"], info["lengths"]):
        (frame,) = dask.persist(by_item(frame, unit_col, info["kinds"]))  # shuffled once, kept on the workers
    if sum(info["lengths"]) == 0:
        raise ValueError("the annotation table is empty; CrowdTruth needs at least one judgment")
    workers = factorize_ids(pd.Series(info["workers"][0]), worker_col)[1]
    if labels is None:
        label_index = factorize_ids(pd.Series(info["labels"][0]), label_col)[1]
    else:  # checked in every partition by build_tensor (empty, duplicated, unknown labels)
        label_index = pd.Index(list(labels), name=label_col)
    n_w, n_l = len(workers), len(label_index)

    dense = not open_ended and n_w * n_w * n_l <= DENSE_PAIR_KEYS
    n_threads, slots = _n_threads()
    if dense and not slots:  # one process holds every block's dense pair sums: at most LOCAL_PAIR_BYTES of them
        n_threads = min(n_threads, max(1, LOCAL_PAIR_BYTES // (16 * n_w * n_w * n_l)))
    pieces = [list(c) for c in np.array_split(np.arange(frame.npartitions), max(1, min(frame.npartitions, n_threads)))]
    delayed_parts = frame.to_delayed()
    blocks = []
    for b, idx in enumerate(pieces):
        # each block on its own thread slot (a hint: the scheduler may move it when a worker is gone)
        where = {"workers": [slots[b % len(slots)]], "allow_other_workers": True} if slots else {}
        with dask.annotate(**where):
            blocks.append(dask.delayed(_build_block)([delayed_parts[i] for i in idx], unit_col, worker_col,
                                                     label_col, label_index, workers, duplicates, dense))
    blocks = list(dask.persist(*blocks, optimize_graph=False))
    del frame, delayed_parts
    sizes = dask.compute([dask.delayed(_block_sizes)(b) for b in blocks])[0]
    blocks, sizes = [b for b, s in zip(blocks, sizes, strict=True) if s], [s for s in sizes if s]
    flat = [s for block_sizes in sizes for s in block_sizes]
    n_rows, n_dup, n_units = (sum(s[k] for s in flat) for k in range(3))
    dense = dense and all(s[3] for s in flat)
    runner: _Blocks | _Buckets
    if open_ended or dense:
        runner = _Blocks(blocks, n_l)
    else:  # multiple choice or too many keys: the per-partition pair structure, completed per bucket of keys
        parts = [dask.delayed(operator.getitem)(dask.delayed(operator.getitem)(b, "parts"), i)
                 for b, s in zip(blocks, sizes, strict=True) for i in range(len(s))]
        runner = _Buckets(parts, n_w, n_l)

    w, g = np.ones(n_w), np.ones(n_l)
    first_workers: tuple[np.ndarray, np.ndarray, np.ndarray] = (w, w, w)
    first_g = g
    wwa = wua = np.ones(n_w)
    loop = Convergence(max_iter=max_iter, max_delta=max_delta, open_ended=open_ended, progress=progress,
                       desc="CrowdTruth (Dask)")
    try:
        for it in range(1, max_iter + 1):
            worker_sums, (d_u_max, d_u_sum), label_sum = runner.step(w, g, open_ended)
            wwa, wua = worker_scores(worker_sums)
            new_w = wwa * wua
            new_g = g if open_ended else aqs_from_sums(label_sum[0], label_sum[1])
            done = loop.record(it, np.abs(new_w - w), d_u_max, d_u_sum / max(n_units, 1), np.abs(new_g - g))
            if it == 1:  # the first iteration's values (max_iter >= 1: always reached)
                runner.keep_first()
                first_workers, first_g = (new_w, wwa, wua), new_g
            w, g = new_w, new_g
            if done:
                break
    finally:
        loop.close()
    loop.warn_if_not_converged()

    import dask.dataframe as dd

    label_names = [str(lab) for lab in label_index]
    units = dd.from_delayed(dask.persist(*runner.units(w, label_names)), verify_meta=False)
    n_units_of_worker = runner.n_units_of_worker(n_w)
    workers_df = pd.DataFrame({"n_units": n_units_of_worker, "wqs": w, "wwa": wwa, "wua": wua,
                               "wqs_initial": first_workers[0], "wwa_initial": first_workers[1],
                               "wua_initial": first_workers[2]}, index=workers)
    annotations = pd.DataFrame({"aqs": g, "aqs_initial": first_g}, index=label_index)
    return CrowdTruthResult(
        units=units, workers=workers_df, annotations=annotations, n_iterations=len(loop.log_rows),
        converged=loop.converged,
        log=pd.DataFrame(loop.log_rows).set_index("iteration"), history=None, open_ended=open_ended,
        max_delta=max_delta, n_rows=n_rows, n_duplicate_rows=n_dup,
    )


class _Runner:
    """The loop's distributed state, per part (a block, or a partition), with the last and the first iteration's
    state of each part. The two engines differ in their step and in the task functions reading a part's state; what
    is built from that state (the units' scores, the units per worker) is asked here, the same for both."""

    #: the task giving a part's units frame: ``(part, last, first, w, label_names)``
    part_units: Any
    #: the task giving a part's units per worker: ``(part, n_workers)``
    part_worker_units: Any

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts
        self.last: list[Any] = [None] * len(parts)
        self.first: list[Any] = []

    def keep_first(self) -> None:
        self.first = list(self.last)

    def units(self, w: np.ndarray, label_names: list[str]) -> list[Any]:
        import dask

        task = type(self).part_units
        return [dask.delayed(task)(p, last, first, w, label_names)
                for p, last, first in zip(self.parts, self.last, self.first, strict=True)]

    def n_units_of_worker(self, n_workers: int) -> np.ndarray:
        import dask

        task = type(self).part_worker_units
        out: np.ndarray = dask.compute(tree_reduce([dask.delayed(task)(p, n_workers) for p in self.parts], _add))[0]
        return out


class _Blocks(_Runner):
    """The block path: per block, the last and the first iteration's step."""

    part_units = _block_units
    part_worker_units = _block_worker_units

    def __init__(self, blocks: list[Any], n_labels: int) -> None:
        super().__init__(blocks)
        self.n_labels = n_labels

    def step(self, w: np.ndarray, g: np.ndarray, open_ended: bool) -> tuple[np.ndarray, tuple[float, float], Any]:
        import dask

        w_d, g_d = dask.delayed(w), dask.delayed(g)
        steps = [dask.delayed(_block_step)(b, s, w_d, g_d, open_ended) for b, s in zip(self.parts, self.last,
                                                                                        strict=True)]
        steps = list(dask.persist(*steps))
        sums, change = _worker_sums_and_change(steps)
        label_sums = (dask.delayed(None) if open_ended else dask.delayed(_dense_label_sums)(
            tree_reduce([dask.delayed(operator.getitem)(s, "pairs") for s in steps], _add), w_d, self.n_labels))
        # the pair sums meet on a worker; per block only the UQS stay (the dense pair arrays are let go)
        kept = [dask.delayed(_without_pairs)(s) for s in steps]
        *kept, out = dask.persist(*kept, dask.delayed(tuple)([sums, change, label_sums]))
        del steps
        self.last = kept
        result: tuple[np.ndarray, tuple[float, float], Any] = dask.compute(out)[0]
        return result


def _worker_sums_and_change(steps: list[Any]) -> tuple[Any, Any]:
    """The lazy sums of the workers' terms and the largest UQS change over one iteration's (persisted) steps, the
    same for both engines."""
    import dask

    return (tree_reduce([dask.delayed(operator.getitem)(s, "worker_sums") for s in steps], _add),
            tree_reduce([dask.delayed(operator.getitem)(s, "uqs_change") for s in steps], _change))


def _without_pairs(step: dict[str, Any]) -> dict[str, Any]:
    return {"uqs": step["uqs"]}


def _partition_worker_units(part: dict[str, Any], n_workers: int) -> np.ndarray:
    """A partition's units per worker (counted when the partition was read, for all ``n_workers``)."""
    out: np.ndarray = part["job"].n_units_of_worker
    return out


class _Buckets(_Runner):
    """The general path: per partition, the last and the first iteration's UQS; pair sums completed per bucket of
    keys."""

    part_units = _units_frame
    part_worker_units = _partition_worker_units

    def __init__(self, parts: list[Any], n_workers: int, n_labels: int) -> None:
        import dask

        self.n_labels = n_labels
        self.n_buckets = max(1, min(len(parts), 8))
        # the static pair structure: per partition, then per bucket of keys (built once, in one persist so that
        # every partition's pair structure is built once)
        pairs = [dask.delayed(_with_pair_layout, nout=2)(p, self.n_buckets) for p in parts]
        layouts = [dask.delayed(_bucket_layout)([dask.delayed(operator.getitem)(p[1], b) for p in pairs],
                                                n_workers, n_labels) for b in range(self.n_buckets)]
        persisted = dask.persist(*[p[0] for p in pairs], *layouts)
        super().__init__(list(persisted[:len(parts)]))
        self.layouts = list(persisted[len(parts):])

    def step(self, w: np.ndarray, g: np.ndarray, open_ended: bool) -> tuple[np.ndarray, tuple[float, float], Any]:
        import dask

        w_d, g_d = dask.delayed(w), dask.delayed(g)
        steps = [dask.delayed(_step)(p, qp, w_d, g_d, open_ended) for p, qp in zip(self.parts, self.last, strict=True)]
        steps = list(dask.persist(*steps))
        sums, change = _worker_sums_and_change(steps)
        buckets = [dask.delayed(_bucket)(self.layouts[b], [dask.delayed(_piece)(st, b) for st in steps], w_d,
                                         self.n_labels) for b in range(self.n_buckets)]
        label_sums = tree_reduce(buckets, _add)
        new_q = [dask.delayed(operator.getitem)(s, "uqs") for s in steps]
        # one pass: the steps run once; new UQS stay on the workers, the small sums come to the client
        *new_q, sums, change, label_sums = dask.persist(*new_q, sums, change, label_sums)
        del steps
        self.last = new_q
        result: tuple[np.ndarray, tuple[float, float], Any] = dask.compute(sums, change, label_sums)
        return result


__all__ = ["crowdtruth_scores", "check_dask_options"]
