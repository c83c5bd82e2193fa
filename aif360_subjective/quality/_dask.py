"""CrowdTruth 2.0 on a Dask DataFrame: the in-memory iteration, split over partitions of units.

Layout. The table is partitioned by unit once: if every unit already lives in one partition (checked
from the partitions' id ranges, gathered with the worker and label sets in the first pass) it is used
as it is, otherwise it is shuffled by unit once and kept on the workers. Each partition is then
encoded by the in-memory encoder (:func:`build_tensor`: same validation, same judgment order) with the
global worker codes and label set, and kept on its worker as an in-memory ``Job`` for the whole
iteration. The worker-pair structure of AQS is the in-memory one built per partition: a self-join of
the partition's judgments on unit, which is complete because all judgments of a unit are in it.

One pass per iteration. With the previous WQS (per worker, small), AQS (per label) and the partition's
own previous UQS (per unit, never leaves its worker), every partition computes, with the in-memory
functions :func:`unit_step` and :func:`pair_sums`:

* its units' new UQS (kept on the worker);
* per worker, the numerators and denominators of WWA and WUA (sums over units: they add over
  partitions; a tree reduction brings them to the client, a few arrays of length n_workers);
* per (worker i, worker j, label) key, ``D_ij[a]`` and ``N_ij[a]`` summed over its units, split into
  buckets by key; bucket b of every partition goes to one task which adds them per key (a pair's
  sums are complete only there) and returns AQS's numerator and denominator per label.

The client then forms WQS = WWA * WUA and AQS as the in-memory code does. Floating sums are the
in-memory ones associated differently (per partition first), so scores agree to ~1e-15, not bitwise.

Results: ``units`` is a Dask DataFrame (one row per unit, partitioned as the input, computed from the
persisted per-partition state); ``workers`` and ``annotations`` are pandas DataFrames.

Not on Dask (ValueError before any computation): ``duplicates="last"`` (a shuffle does not keep the
row order), ``keep_history=True``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .._dask import require_dask
from .._dask._partitions import by_item, id_range, items_are_local, tree_reduce
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
        return {"workers": [np.asarray([], dtype=object)], "labels": [], "ranges": [None], "lengths": [0]}
    _, values = label_entries(df[label_col], label_col)
    return {"workers": [pd.unique(df[worker_col].dropna().to_numpy())], "labels": [pd.unique(values)],
            "ranges": [id_range(df[unit_col].to_numpy())], "lengths": [len(df)]}


def _merge_scans(parts: list[dict[str, list[Any]]]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {"workers": [], "labels": [], "ranges": [], "lengths": []}
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
    """
    require_dask()
    import dask

    check_dask_options(df, unit_col, worker_col, label_col, duplicates, keep_history)
    if labels is not None and (isinstance(labels, str) or not isinstance(labels, Sequence | np.ndarray | pd.Index)):
        raise TypeError(f"labels must be a list of labels, got {labels!r}")
    frame = df[[unit_col, worker_col, label_col]]

    def scan(fr: Any) -> dict[str, list[Any]]:
        parts = [dask.delayed(_scan)(d, unit_col, worker_col, label_col) for d in fr.to_delayed()]
        merged: dict[str, list[Any]] = dask.compute(tree_reduce(parts, _merge_scans))[0]
        return merged

    info = scan(frame)
    if not items_are_local(info["ranges"], info["lengths"]):
        (frame,) = dask.persist(by_item(frame, unit_col))  # shuffled once, kept on the workers
    if sum(info["lengths"]) == 0:
        raise ValueError("the annotation table is empty; CrowdTruth needs at least one judgment")
    workers = factorize_ids(pd.Series(info["workers"][0]), worker_col)[1]
    if labels is None:
        label_index = factorize_ids(pd.Series(info["labels"][0]), label_col)[1]
    else:  # checked in every partition by build_tensor (empty, duplicated, unknown labels)
        label_index = pd.Index(list(labels), name=label_col)
    n_w, n_l = len(workers), len(label_index)

    built = [dask.delayed(_build)(d, unit_col, worker_col, label_col, label_index, workers, duplicates)
             for d in frame.to_delayed()]
    built = list(dask.persist(*built))
    sizes = dask.compute([dask.delayed(lambda p: None if p is None else (p["n_rows"], p["n_duplicate_rows"],
                                                                          p["job"].n_units))(b) for b in built])[0]
    keep = [i for i, s in enumerate(sizes) if s is not None]
    parts = [built[i] for i in keep]
    n_rows = sum(sizes[i][0] for i in keep)
    n_dup = sum(sizes[i][1] for i in keep)
    n_units = sum(sizes[i][2] for i in keep)
    del frame
    n_buckets = max(1, min(len(parts), 8))
    layouts: list[Any] = []
    if not open_ended:  # the static pair structure: per partition, then per bucket of keys (built once)
        pairs = [dask.delayed(_with_pair_layout, nout=2)(p, n_buckets) for p in parts]
        layouts = [dask.delayed(_bucket_layout)([dask.delayed(operator.getitem)(p[1], b) for p in pairs], n_w, n_l)
                   for b in range(n_buckets)]
        # one persist for both, so that every partition's pair structure is built once
        persisted = dask.persist(*[p[0] for p in pairs], *layouts)
        parts, layouts = list(persisted[:len(parts)]), list(persisted[len(parts):])
        del pairs, persisted

    w, g = np.ones(n_w), np.ones(n_l)
    q: list[Any] = [None] * len(parts)
    q_first: list[Any] = []
    first_workers: tuple[np.ndarray, np.ndarray, np.ndarray] = (w, w, w)
    first_g = g
    wwa = wua = np.ones(n_w)
    loop = Convergence(max_iter=max_iter, max_delta=max_delta, open_ended=open_ended, progress=progress,
                       desc="CrowdTruth (Dask)")
    try:
        for it in range(1, max_iter + 1):
            w_d, g_d = dask.delayed(w), dask.delayed(g)
            steps = [dask.delayed(_step)(p, qp, w_d, g_d, open_ended) for p, qp in zip(parts, q, strict=True)]
            steps = list(dask.persist(*steps))
            sums = tree_reduce([dask.delayed(operator.getitem)(s, "worker_sums") for s in steps], _add)
            change = tree_reduce([dask.delayed(operator.getitem)(s, "uqs_change") for s in steps], _change)
            if open_ended:
                label_sums = dask.delayed(None)
            else:
                buckets = [dask.delayed(_bucket)(layouts[b], [dask.delayed(_piece)(st, b) for st in steps], w_d, n_l)
                           for b in range(n_buckets)]
                label_sums = tree_reduce(buckets, _add)
            new_q = [dask.delayed(operator.getitem)(s, "uqs") for s in steps]
            # one pass: the steps run once; new UQS stay on the workers, the small sums come to the client
            *new_q, sums, change, label_sums = dask.persist(*new_q, sums, change, label_sums)
            del steps
            worker_sums, (d_u_max, d_u_sum), label_sum = dask.compute(sums, change, label_sums)
            wwa, wua = worker_scores(worker_sums)
            new_w = wwa * wua
            new_g = g if open_ended else aqs_from_sums(label_sum[0], label_sum[1])
            done = loop.record(it, np.abs(new_w - w), d_u_max, d_u_sum / max(n_units, 1), np.abs(new_g - g))
            if it == 1:  # the first iteration's values (max_iter >= 1: always reached)
                q_first, first_workers, first_g = new_q, (new_w, wwa, wua), new_g
            w, g, q = new_w, new_g, new_q
            if done:
                break
    finally:
        loop.close()
    loop.warn_if_not_converged()

    import dask.dataframe as dd

    label_names = [str(lab) for lab in label_index]
    unit_parts = [dask.delayed(_units_frame)(p, ql, qf, w, label_names)
                  for p, ql, qf in zip(parts, q, q_first, strict=True)]
    units = dd.from_delayed(dask.persist(*unit_parts), verify_meta=False)
    n_units_of_worker = dask.compute(tree_reduce(
        [dask.delayed(lambda p: p["job"].n_units_of_worker)(p) for p in parts], _add))[0]
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


__all__ = ["crowdtruth_scores", "check_dask_options"]
