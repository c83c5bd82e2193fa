"""CrowdTruth 2.0's fixed-point engine: the scores of units, workers and annotations, vectorised.

The face, :func:`aif360_subjective.quality.crowdtruth_scores`, validates the input, builds the judgment
tensor and runs :func:`iterate` (in memory) or the Dask loop of :mod:`aif360_subjective.quality._dask`, which
reuses this module's per-unit pieces through its public interface: :class:`Job` (the tensor with its index
arrays), :func:`unit_step`, :func:`pair_sums`, :func:`aqs_label_sums`, :func:`aqs_from_sums`,
:func:`worker_scores`, :func:`unit_annotation_scores`, :func:`decode_pair_keys`, :class:`Convergence` (the
stopping rule and log), :class:`CrowdTruthResult`, :data:`EPS` and the option checks.

The metrics and their fixed-point iteration follow the authors' package (crowdtruth 2.1, module
``crowdtruth.models.metrics``) exactly, including its edge cases; see :func:`crowdtruth_scores`.

How the sums are vectorised (``v_j`` = label counts of judgment j, ``w`` = WQS, ``g`` = AQS,
``y_j = v_j / ||v_j||`` with the AQS-weighted norm, ``p_j = w_j y_j``). A *cell* is a (unit, label)
pair; every nonzero of a judgment vector lies in one cell.

* UQS: ``sum_{i<j} w_i w_j Wcos(v_i, v_j) = sum_cells g_a sum_j p_j[a] (sum of p_k[a] of the
  judgments before j in the cell)``; the weight ``sum_{i<j} w_i w_j`` likewise per unit;
* WWA: ``sum_{k != j} w_k Wcos(v_j, v_k) = sum_a g_a y_j[a] (sum of p_k[a] over the other
  judgments k of the cell)``, and ``sum_{k != j} w_k`` over the other judgments of the unit;
* WUA: the cosine of ``w_j v_j`` and ``s(u) - w_j v_j``, where the latter is, on j's labels, the
  sum over the cell's other judgments, and elsewhere ``s(u)`` itself;
* AQS: a static sparse matrix with one row per (ordered worker pair sharing a unit, label) and one
  column per unit gives every ``D_ij[a]`` and ``N_ij[a]`` as a matrix-vector product with the UQS
  vector (only pairs that share units exist).

Sums over "the other judgments" are never computed as a total minus the judgment's own term: that
cancellation turns a tiny positive value into 0 (or 0 into 1e-17), and the reference is
discontinuous there (AQS counts a worker pair iff ``D_ij > 0``, WUA switches to eps below 1e-8).
They are exclusive prefix and suffix sums within each cell or unit, which add nonnegative terms
only (see ``_Segments``).
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._param_tables import CROWDTRUTH_PARAMS
from ._vectors import AnnotationTensor

__all__ = [
    "EPS",
    "Convergence",
    "CrowdTruthResult",
    "Job",
    "State",
    "aqs_from_sums",
    "aqs_label_sums",
    "check_max_delta",
    "check_max_iter",
    "check_open_ended",
    "decode_pair_keys",
    "iterate",
    "pair_sums",
    "unit_annotation_scores",
    "unit_step",
    "worker_scores",
]

logger = logging.getLogger(__name__)

EPS = 1e-8
"""The reference's ``SMALL_NUMBER_CONST``: floor of denominators and of AQS."""


@dataclass(frozen=True)
class CrowdTruthResult:
    """Scores computed by :func:`crowdtruth_scores`.

    Attributes:
        units: index = unit id; ``n_workers``, ``uqs``, ``uas_<label>`` for every label, and the
            first-iteration values ``uqs_initial``, ``uas_<label>_initial`` (UAS with all WQS = 1).
        workers: index = worker id; ``n_units``, ``wqs``, ``wwa``, ``wua`` (the reference calls
            it ``wsa``) and ``wqs_initial``, ``wwa_initial``, ``wua_initial``.
        annotations: index = label; ``aqs``, ``aqs_initial`` (all 1 for open-ended tasks).
        n_iterations: iterations run.
        converged: whether the largest change fell below ``max_delta`` before ``max_iter``.
        log: index = iteration; ``max_delta`` (largest absolute change of any WQS, UQS or AQS) and
            ``mean_delta_wqs``, ``mean_delta_uqs``, ``mean_delta_aqs`` (mean absolute changes), as
            the reference logs them.
        history: with ``keep_history=True``, every iteration's values in long form (iteration,
            kind in {aqs, uqs, wqs, wwa, wua}, id, value); else None.
        open_ended: whether AQS was held at 1.
        max_delta: the stopping threshold used.
        n_rows: input rows.
        n_duplicate_rows: rows merged into another row of the same (unit, worker) pair.
    """

    units: pd.DataFrame
    workers: pd.DataFrame
    annotations: pd.DataFrame
    n_iterations: int
    converged: bool
    log: pd.DataFrame
    history: pd.DataFrame | None = field(default=None, repr=False)
    open_ended: bool = False
    max_delta: float = 0.001
    n_rows: int = 0
    n_duplicate_rows: int = 0

    def __repr__(self) -> str:
        return (
            f"CrowdTruthResult({len(self.units)} units, {len(self.workers)} workers, "
            f"{len(self.annotations)} labels, {self.n_iterations} iterations, converged={self.converged})"
        )

class _Segments:
    """Sums over the other members of each group, without cancellation.

    Groups of equal size class (2^(b-1) < size <= 2^b) are laid out as the rows of a padded matrix
    whose row-wise cumulative sums give exclusive prefix and suffix sums: nonnegative terms added
    in sequence, never a total minus the member's own term. Padding stays below twice the size.
    """

    def __init__(self, codes: np.ndarray):
        n = len(codes)
        self.n = n
        order = np.argsort(codes, kind="stable")
        sc = codes[order]
        starts = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]]) if n else np.zeros(0, dtype=np.int64)
        sizes = np.diff(np.r_[starts, n])
        size_class = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
        self.blocks = []  # index matrices into the members (original order); padding points at n
        for b in np.unique(size_class[sizes >= 2]):
            sel = np.flatnonzero((size_class == b) & (sizes >= 2))
            width = int(sizes[sel].max())
            col = np.arange(width)
            valid = col[None, :] < sizes[sel][:, None]
            pos = np.minimum(starts[sel][:, None] + col[None, :], n - 1)
            self.blocks.append(np.where(valid, order[pos], n))

    def prefix_and_others(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per member: the sum of the earlier members of its group, and of all other members."""
        ext = np.append(values, 0.0)
        before = np.zeros(self.n + 1)
        after = np.zeros(self.n + 1)
        for idx in self.blocks:
            mat = ext[idx]
            shifted = np.zeros_like(mat)
            shifted[:, 1:] = mat[:, :-1]
            before[idx] = np.cumsum(shifted, axis=1)
            shifted[:, :-1] = mat[:, 1:]
            shifted[:, -1] = 0.0
            after[idx] = np.cumsum(shifted[:, ::-1], axis=1)[:, ::-1]
        return before[: self.n], before[: self.n] + after[: self.n]


class Job:
    """The judgment tensor with the index arrays every iteration reuses."""

    def __init__(self, t: AnnotationTensor):
        a = t.vectors
        self.n_units = len(t.unit_ids)
        self.n_workers = len(t.worker_ids)
        self.n_labels = len(t.labels)
        self.n_judgments = t.n_judgments
        self.unit = t.unit  # judgments are sorted by unit, then worker
        self.worker = t.worker
        self.vectors = a
        self.nz_j = np.repeat(np.arange(self.n_judgments), np.diff(a.indptr))
        self.nz_a = a.indices.astype(np.int64)
        self.nz_x = a.data.astype(np.float64)
        self.nz_x2 = self.nz_x**2
        cell_key = self.unit[self.nz_j] * self.n_labels + self.nz_a
        cells, self.nz_c = np.unique(cell_key, return_inverse=True)
        self.n_cells = len(cells)
        self.cell_u = cells // self.n_labels
        self.cell_a = cells % self.n_labels
        self.k_u = np.bincount(self.unit, minlength=self.n_units)
        self.n_units_of_worker = np.bincount(self.worker, minlength=self.n_workers)
        self.cell_members = _Segments(self.nz_c)  # the nonzeros of each (unit, label) cell
        self.unit_members = _Segments(self.unit)  # the judgments of each unit
        self.single_choice = bool(np.all(np.diff(a.indptr) == 1))
        self.other_j, self.other_c = self._other_cells()
        self.pairs: _PairLabels | None = None  # built on first use (closed tasks only)

    def _other_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Every (judgment, cell of its unit whose label the judgment did not choose) pair.

        WUA needs, per judgment, the weight of s(u) on the labels the worker did not choose. Summing it over
        these pairs adds nonnegative terms only; the former "whole unit minus own labels" lost small terms to
        cancellation (and a round-off guard zeroed them), although the cosine is scale-free.
        """
        cells_per_unit = np.bincount(self.cell_u, minlength=self.n_units)
        cell_start = np.concatenate([[0], np.cumsum(cells_per_unit)[:-1]])  # cells are sorted by unit
        reps = cells_per_unit[self.unit]
        pair_start = np.concatenate([[0], np.cumsum(reps)[:-1]])
        pair_j = np.repeat(np.arange(self.n_judgments), reps)
        pair_c = np.repeat(cell_start[self.unit] - pair_start, reps) + np.arange(int(reps.sum()))
        own = np.zeros(len(pair_j), dtype=bool)
        # the judgment's own cells: its nonzero entries, placed by their cell's rank within the unit
        own[pair_start[self.nz_j] + self.nz_c - cell_start[self.unit[self.nz_j]]] = True
        return pair_j[~own], pair_c[~own]

    # -- helpers ---------------------------------------------------------------------------------
    def cell_sums(self, per_nz: np.ndarray) -> np.ndarray:
        return np.bincount(self.nz_c, per_nz, minlength=self.n_cells)

    def judgment_sums(self, per_nz: np.ndarray) -> np.ndarray:
        return np.bincount(self.nz_j, per_nz, minlength=self.n_judgments)

    def unit_sums(self, per_judgment: np.ndarray) -> np.ndarray:
        return np.bincount(self.unit, per_judgment, minlength=self.n_units)

    def worker_sums(self, per_judgment: np.ndarray) -> np.ndarray:
        return np.bincount(self.worker, per_judgment, minlength=self.n_workers)


@dataclass
class State:
    wqs: np.ndarray
    uqs: np.ndarray
    aqs: np.ndarray
    wwa: np.ndarray
    wua: np.ndarray


class _PairLabels:
    """Static structure of AQS: (ordered worker pair, label) rows x units.

    Row ``(i, j, a)`` exists when workers i and j share a unit on which j chose label a (rows with
    i == j exist too and are weighted 0, as the reference skips them). With UQS as
    a vector ``q`` over units, ``D = C_d q`` gives ``D_ij[a] = sum_shared UQS v_j[a]`` and
    ``N = C_n q`` gives ``sum_shared UQS v_i[a] v_j[a]``: two sparse matrix-vector products per
    iteration instead of worker x worker matrix products.
    """

    def __init__(self, job: Job):
        idx = np.int32 if max(job.vectors.nnz, job.n_judgments, job.n_units) < 2**31 - 1 else np.int64
        nz_unit = job.unit[job.nz_j]
        nnz_u = np.bincount(nz_unit, minlength=job.n_units)
        nz_start = np.concatenate([[0], np.cumsum(nnz_u)[:-1]])
        # Every judgment r against every nonzero e (judgment s, label a) of its unit. The pairs with
        # s == r are kept (filtering them costs more than carrying them) and get weight 0 below.
        reps = nnz_u[job.unit]
        total = int(reps.sum())
        r = np.repeat(np.arange(job.n_judgments, dtype=idx), reps)
        offset = nz_start[job.unit] - np.concatenate([[0], np.cumsum(reps)[:-1]])
        e = np.repeat(offset.astype(np.int64), reps)
        e += np.arange(total)
        e = e.astype(idx)
        label = job.nz_a[e].astype(idx)
        x_s = job.nz_x[e]
        n_w, n_l = job.n_workers, job.n_labels
        key = job.worker[r] * (n_w * n_l) + job.worker[job.nz_j[e]] * n_l + label
        del e
        # v_r[a]: with one label per judgment, nonzero k belongs to judgment k.
        x_r = np.where(job.nz_a[r] == label, job.nz_x[r], 0.0) if job.single_choice else _lookup(
            job.vectors, r, label
        )
        del label
        unit_counts = np.bincount(job.unit, weights=reps, minlength=job.n_units).astype(np.int64)
        del r
        if n_w * n_w * n_l <= 50_000_000:
            # Dense id map: linear time, cheaper than sorting the keys.
            present = np.zeros(n_w * n_w * n_l, dtype=bool)
            present[key] = True
            keys = np.flatnonzero(present)
            ids = np.cumsum(present, dtype=np.int64 if len(keys) >= 2**31 - 1 else np.int32)
            row = ids[key] - 1
            del present, ids
        else:
            keys, row = np.unique(key, return_inverse=True)
        del key
        # The triples come grouped by unit (judgments are sorted by unit): they are the CSC arrays.
        shape = (len(keys), job.n_units)
        indptr = np.concatenate([[0], np.cumsum(unit_counts)])
        self.c_d = sp.csc_matrix((x_s, row, indptr), shape=shape)
        self.c_n = sp.csc_matrix((x_s * x_r, row, indptr), shape=shape)
        del row, x_s, x_r
        self.keys = keys.astype(np.int64)  # (worker i, worker j, label) as i * n_w * n_l + j * n_l + a
        self.i, self.j, self.label = decode_pair_keys(self.keys, n_w, n_l)


def _lookup(matrix: sp.csr_matrix, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``matrix[rows, cols]`` as a flat array (vectorised element lookup)."""
    if matrix.shape[0] * matrix.shape[1] <= 50_000_000:
        return np.asarray(matrix.toarray()[rows, cols])
    return np.asarray(matrix[rows, cols]).ravel()


def decode_pair_keys(keys: np.ndarray, n_workers: int, n_labels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Workers i, j and label a of pair keys ``i * n_workers * n_labels + j * n_labels + a``."""
    pair = keys // n_labels
    return pair // n_workers, pair % n_workers, keys % n_labels


def pair_sums(job: Job, uqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per (ordered worker pair, label) key of ``job.pairs``: ``D_ij[a]`` and ``N_ij[a]`` over the job's units.

    Sums over disjoint sets of units add up (the Dask path sums them over unit partitions).
    """
    if job.pairs is None:
        job.pairs = _PairLabels(job)
    return job.pairs.c_d @ uqs, job.pairs.c_n @ uqs


def aqs_label_sums(i: np.ndarray, j: np.ndarray, label: np.ndarray, d: np.ndarray, n: np.ndarray,
                    wqs: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator of AQS per label from complete pair sums (each key once)."""
    ok = d > 0
    ratio = np.divide(n, d, out=np.zeros_like(d), where=ok)
    ww = wqs[i] * wqs[j] * (i != j)
    num = np.bincount(label, ww * ratio, minlength=n_labels)
    den = np.bincount(label, ww * ok, minlength=n_labels)
    return num, den


def aqs_from_sums(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(den > EPS, np.maximum(num / np.where(den > EPS, den, 1.0), EPS), EPS)


def _annotation_quality(job: Job, wqs: np.ndarray, uqs: np.ndarray) -> np.ndarray:
    """AQS over ordered worker pairs (i, j), i != j, with D_ij = sum_shared UQS v_j[a] > 0."""
    d, n = pair_sums(job, uqs)
    pl = job.pairs
    assert pl is not None  # built by pair_sums
    return aqs_from_sums(*aqs_label_sums(pl.i, pl.j, pl.label, d, n, wqs, job.n_labels))


def _iterate_once(job: Job, st: State, open_ended: bool) -> State:
    """One Jacobi step of the reference: every new score is computed from the previous ones."""
    aqs = st.aqs if open_ended else _annotation_quality(job, st.wqs, st.uqs)
    step = unit_step(job, st.wqs, st.uqs, st.aqs)
    wwa, wua = worker_scores(step["worker_sums"])
    return State(wqs=wwa * wua, uqs=step["uqs"], aqs=aqs, wwa=wwa, wua=wua)


def worker_scores(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """WWA and WUA from the rows (WWA numerator, WWA denominator, WUA numerator, WUA denominator)."""
    return sums[0] / np.maximum(sums[1], EPS), sums[2] / np.maximum(sums[3], EPS)


def unit_step(job: Job, w: np.ndarray, q: np.ndarray, g: np.ndarray) -> dict[str, np.ndarray]:
    """The part of an iteration computed unit by unit, from the previous WQS ``w``, UQS ``q``, AQS ``g``.

    Returns the new UQS of the job's units and ``worker_sums``: per worker, the numerators and
    denominators of WWA and WUA, sums over units that add up over disjoint sets of units.
    """
    g_nz = g[job.nz_a]
    wj = w[job.worker]  # WQS of each judgment's worker
    w_nz = wj[job.nz_j]
    norm = np.sqrt(job.judgment_sums(g_nz * job.nz_x2))
    p_nz = w_nz * job.nz_x / norm[job.nz_j]  # w_j y_j: WQS times the unit-norm judgment vector
    qj = q[job.unit]

    # --- UQS: sum over pairs i<j of w_i w_j Wcos = per cell, sum of p_i (sum of earlier p_j) -------
    p_before, p_others = job.cell_members.prefix_and_others(p_nz)
    num_u = job.unit_sums(job.judgment_sums(g_nz * p_nz * p_before))
    w_before, d_j = job.unit_members.prefix_and_others(wj)
    den_u = job.unit_sums(wj * w_before)
    uqs = np.where(job.k_u >= 2, num_u / np.maximum(den_u, EPS), 0.0)

    # --- WWA (with the previous UQS): sum over the unit's other workers j of w_j Wcos(v_i, v_j) ----
    t_j = job.judgment_sums(g_nz * (job.nz_x / norm[job.nz_j]) * p_others)

    # --- WUA (with the previous UQS): cosine of w_i v_i and s(u) - w_i v_i, s(u) = sum_j w_j v_j ---
    yw = w_nz * job.nz_x  # the worker's vector scaled by its WQS, on its own labels
    z = job.cell_members.prefix_and_others(yw)[1]  # s(u) - w_i v_i on the worker's own labels
    num_j = job.judgment_sums(g_nz * yw * z)
    dw_j = job.judgment_sums(g_nz * yw * yw)
    s_cell = job.cell_sums(yw)
    # Weight of s(u) on the labels the worker did not choose, summed term by term (no cancellation)
    gs2 = g[job.cell_a] * s_cell**2
    outside = np.bincount(job.other_j, gs2[job.other_c], minlength=job.n_judgments)
    ds_j = job.judgment_sums(g_nz * z * z) + outside
    root = np.sqrt(dw_j * ds_j)
    small = root < EPS
    c_j = np.where(small, EPS, num_j / np.where(small, 1.0, root))
    sums = np.vstack([job.worker_sums(qj * t_j), job.worker_sums(qj * d_j), job.worker_sums(qj * c_j),
                      job.worker_sums(qj)])
    return {"uqs": uqs, "worker_sums": sums}


def unit_annotation_scores(job: Job, wqs: np.ndarray) -> np.ndarray:
    wj = wqs[job.worker]
    uas = np.zeros((job.n_units, job.n_labels))
    uas[job.cell_u, job.cell_a] = job.cell_sums(wj[job.nz_j] * job.nz_x)
    out: np.ndarray = uas / np.maximum(job.unit_sums(wj), EPS)[:, None]
    return out


def check_max_delta(max_delta: Any) -> float:
    """``max_delta`` must be a finite number > 0 (TypeError for a non-number, ValueError otherwise)."""
    return float(CROWDTRUTH_PARAMS.check("max_delta", max_delta))


def check_max_iter(max_iter: Any) -> int:
    """``max_iter`` must be an int >= 1 (TypeError for a non-int, ValueError otherwise)."""
    return int(CROWDTRUTH_PARAMS.check("max_iter", max_iter))


def check_open_ended(open_ended: Any) -> bool:
    """``open_ended`` must be True or False (numpy booleans included).

    Raises:
        TypeError: any other value.
    """
    if not isinstance(open_ended, bool | np.bool_):
        raise TypeError(f"open_ended must be True or False, got {open_ended!r}")
    return bool(open_ended)


def iterate(
    tensor: AnnotationTensor,
    *,
    open_ended: bool,
    max_delta: float,
    max_iter: int,
    progress: bool = False,
    keep_history: bool = False,
) -> CrowdTruthResult:
    """The in-memory fixed-point iteration of CrowdTruth 2.0 on a judgment tensor (options validated).

    Args:
        tensor: the judgments (:func:`~aif360_subjective.quality._vectors.build_tensor`).
        open_ended: AQS stays 1.
        max_delta: stop when the largest absolute change of any WQS, UQS or AQS is below this.
        max_iter: at most this many iterations (a RuntimeWarning when reached first).
        progress: show a tqdm progress bar over iterations.
        keep_history: keep every iteration's values in ``result.history``.

    Returns:
        CrowdTruthResult: the scores, the iteration log and the first iteration's values.

    References:
        A. Dumitrache et al., "CrowdTruth 2.0: Quality Metrics for Crowdsourcing with Disagreement", 2018.
    """
    job = Job(tensor)

    st = State(
        wqs=np.ones(job.n_workers),
        uqs=np.ones(job.n_units),
        aqs=np.ones(job.n_labels),
        wwa=np.ones(job.n_workers),
        wua=np.ones(job.n_workers),
    )
    history: list[pd.DataFrame] = []
    first: State | None = None
    loop = Convergence(max_iter=max_iter, max_delta=max_delta, open_ended=open_ended, progress=progress,
                       desc="CrowdTruth")
    try:
        for it in range(1, max_iter + 1):
            new = _iterate_once(job, st, open_ended)
            d_u = np.abs(new.uqs - st.uqs)
            done = loop.record(it, np.abs(new.wqs - st.wqs), d_u.max(initial=0.0), float(d_u.mean()),
                               np.abs(new.aqs - st.aqs))
            if keep_history:
                history.append(_history_frame(it, tensor, new))
            if first is None:
                first = new
            st = new
            if done:
                break
    finally:
        loop.close()
    loop.warn_if_not_converged()
    assert first is not None
    return _result(job, tensor, st, first, loop.log_rows, history, loop.converged, open_ended, max_delta)


class Convergence:
    """The bookkeeping of the fixed-point loop, shared by the in-memory and the Dask back end: the per-iteration
    log (``iterations``), the stopping rule (largest absolute change of any WQS, UQS or AQS below ``max_delta``),
    the progress bar and the warning when ``max_iter`` is reached first.

    Args:
        max_iter, max_delta: the validated stopping options.
        open_ended: AQS stays 1 (its mean change is logged as 0).
        progress: show a tqdm bar over iterations.
        desc: the bar's and the log's name of the back end.
    """

    def __init__(self, *, max_iter: int, max_delta: float, open_ended: bool, progress: bool, desc: str) -> None:
        self.max_iter, self.max_delta, self.open_ended, self.desc = max_iter, max_delta, open_ended, desc
        self.log_rows: list[dict[str, float]] = []
        self.converged = False
        self._bar = None
        if progress:
            from tqdm.auto import tqdm

            self._bar = tqdm(desc=desc, unit="it")

    def record(self, it: int, d_wqs: np.ndarray, d_uqs_max: float, d_uqs_mean: float, d_aqs: np.ndarray) -> bool:
        """Log iteration ``it`` from the absolute changes of the scores; True when the loop has converged."""
        delta = max(d_wqs.max(initial=0.0), d_uqs_max, d_aqs.max(initial=0.0))
        self.log_rows.append(
            {
                "iteration": it,
                "max_delta": delta,
                "mean_delta_wqs": float(d_wqs.mean()),
                "mean_delta_uqs": float(d_uqs_mean),
                "mean_delta_aqs": float(d_aqs.mean()) if not self.open_ended else 0.0,
            }
        )
        logger.info("%s iteration %d: max delta %.3g", self.desc, it, delta)
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix(max_delta=f"{delta:.2e}")
        self.converged = bool(delta < self.max_delta)
        return self.converged

    def close(self) -> None:
        """Close the progress bar (call in a ``finally``)."""
        if self._bar is not None:
            self._bar.close()

    def warn_if_not_converged(self) -> None:
        """The non-convergence warning, attributed to the caller of the public function.

        Both loops run two calls below it: face -> :func:`iterate` or the Dask loop -> this method.
        """
        if not self.converged:
            warnings.warn(
                f"CrowdTruth did not converge in max_iter={self.max_iter} iterations (last max delta "
                f"{self.log_rows[-1]['max_delta']:.3g} >= max_delta={self.max_delta}); returning the last values",
                RuntimeWarning,
                stacklevel=4,
            )


def _history_frame(it: int, t: AnnotationTensor, st: State) -> pd.DataFrame:
    parts = [
        ("aqs", t.labels, st.aqs),
        ("uqs", t.unit_ids, st.uqs),
        ("wqs", t.worker_ids, st.wqs),
        ("wwa", t.worker_ids, st.wwa),
        ("wua", t.worker_ids, st.wua),
    ]
    return pd.concat(
        [
            pd.DataFrame({"iteration": it, "kind": kind, "id": np.asarray(ids, dtype=object), "value": vals})
            for kind, ids, vals in parts
        ],
        ignore_index=True,
    )


def _result(job: Job, tensor: AnnotationTensor, st: State, first: State, log_rows: list[dict[str, float]],
            history: list[pd.DataFrame], converged: bool, open_ended: bool, max_delta: float) -> CrowdTruthResult:
    label_names = [str(lab) for lab in tensor.labels]
    uas = unit_annotation_scores(job, st.wqs)
    uas0 = unit_annotation_scores(job, np.ones(job.n_workers))
    units = pd.DataFrame(
        {"n_workers": job.k_u, "uqs": st.uqs, "uqs_initial": first.uqs}, index=tensor.unit_ids
    )
    uas_cols = {f"uas_{name}": uas[:, k] for k, name in enumerate(label_names)}
    uas0_cols = {f"uas_{name}_initial": uas0[:, k] for k, name in enumerate(label_names)}
    units = pd.concat(
        [units, pd.DataFrame({**uas_cols, **uas0_cols}, index=tensor.unit_ids)], axis=1
    )
    workers = pd.DataFrame(
        {
            "n_units": job.n_units_of_worker,
            "wqs": st.wqs,
            "wwa": st.wwa,
            "wua": st.wua,
            "wqs_initial": first.wqs,
            "wwa_initial": first.wwa,
            "wua_initial": first.wua,
        },
        index=tensor.worker_ids,
    )
    annotations = pd.DataFrame({"aqs": st.aqs, "aqs_initial": first.aqs}, index=tensor.labels)
    log = pd.DataFrame(log_rows).set_index("iteration")
    return CrowdTruthResult(
        units=units,
        workers=workers,
        annotations=annotations,
        n_iterations=len(log_rows),
        converged=converged,
        log=log,
        history=pd.concat(history, ignore_index=True) if history else None,
        open_ended=open_ended,
        max_delta=max_delta,
        n_rows=tensor.n_rows,
        n_duplicate_rows=tensor.n_duplicate_rows,
    )
