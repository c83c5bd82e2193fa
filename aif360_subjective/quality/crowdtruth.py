"""CrowdTruth 2.0 quality scores for units, workers and annotations, vectorised.

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
only (see :class:`_Segments`).
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._dask import is_dask_collection
from ..datasets.multi_annotator import is_multi_annotator_dataset
from ._vectors import AnnotationTensor, build_tensor

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


class _Job:
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
class _State:
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

    def __init__(self, job: _Job):
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
        return matrix.toarray()[rows, cols]
    return np.asarray(matrix[rows, cols]).ravel()


def decode_pair_keys(keys: np.ndarray, n_workers: int, n_labels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Workers i, j and label a of pair keys ``i * n_workers * n_labels + j * n_labels + a``."""
    pair = keys // n_labels
    return pair // n_workers, pair % n_workers, keys % n_labels


def _pair_sums(job: _Job, uqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per (ordered worker pair, label) key of ``job.pairs``: ``D_ij[a]`` and ``N_ij[a]`` over the job's units.

    Sums over disjoint sets of units add up (the Dask path sums them over unit partitions).
    """
    if job.pairs is None:
        job.pairs = _PairLabels(job)
    return job.pairs.c_d @ uqs, job.pairs.c_n @ uqs


def _aqs_label_sums(i: np.ndarray, j: np.ndarray, label: np.ndarray, d: np.ndarray, n: np.ndarray,
                    wqs: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator of AQS per label from complete pair sums (each key once)."""
    ok = d > 0
    ratio = np.divide(n, d, out=np.zeros_like(d), where=ok)
    ww = wqs[i] * wqs[j] * (i != j)
    num = np.bincount(label, ww * ratio, minlength=n_labels)
    den = np.bincount(label, ww * ok, minlength=n_labels)
    return num, den


def _aqs_from_sums(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(den > EPS, np.maximum(num / np.where(den > EPS, den, 1.0), EPS), EPS)


def _annotation_quality(job: _Job, wqs: np.ndarray, uqs: np.ndarray) -> np.ndarray:
    """AQS over ordered worker pairs (i, j), i != j, with D_ij = sum_shared UQS v_j[a] > 0."""
    d, n = _pair_sums(job, uqs)
    pl = job.pairs
    return _aqs_from_sums(*_aqs_label_sums(pl.i, pl.j, pl.label, d, n, wqs, job.n_labels))


def _iterate_once(job: _Job, st: _State, open_ended: bool) -> _State:
    """One Jacobi step of the reference: every new score is computed from the previous ones."""
    aqs = st.aqs if open_ended else _annotation_quality(job, st.wqs, st.uqs)
    step = _unit_step(job, st.wqs, st.uqs, st.aqs)
    wwa, wua = _worker_scores(step["worker_sums"])
    return _State(wqs=wwa * wua, uqs=step["uqs"], aqs=aqs, wwa=wwa, wua=wua)


def _worker_scores(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """WWA and WUA from the rows (WWA numerator, WWA denominator, WUA numerator, WUA denominator)."""
    return sums[0] / np.maximum(sums[1], EPS), sums[2] / np.maximum(sums[3], EPS)


def _unit_step(job: _Job, w: np.ndarray, q: np.ndarray, g: np.ndarray) -> dict:
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


def _unit_annotation_scores(job: _Job, wqs: np.ndarray) -> np.ndarray:
    wj = wqs[job.worker]
    uas = np.zeros((job.n_units, job.n_labels))
    uas[job.cell_u, job.cell_a] = job.cell_sums(wj[job.nz_j] * job.nz_x)
    return uas / np.maximum(job.unit_sums(wj), EPS)[:, None]


def _from_dataset(dataset: Any) -> tuple[pd.DataFrame, list[Any]]:
    """The long (item, annotator, label) table of a MultiAnnotatorDataset and its two labels.

    Labels are the dataset's own values (integral floats as ints); columns keep the dataset's names.
    """
    labels = pd.Series(dataset.original_labels())
    pair = [dataset.unfavorable_label, dataset.favorable_label]
    maps = dataset.metadata.get("label_maps") or [None]
    if maps[0] is not None:
        pair = [maps[0][0.0], maps[0][1.0]]
    elif pd.api.types.is_float_dtype(labels) and np.all(np.mod(pair, 1) == 0):
        labels = labels.astype(np.int64)
        pair = [int(v) for v in pair]
    cols = {dataset.item_col: dataset.item_ids, dataset.annotator_col: dataset.annotator_ids}
    df = pd.DataFrame({**cols, dataset.label_col: labels.to_numpy()})
    with contextlib.suppress(TypeError):  # unorderable labels keep (unfavourable, favourable)
        pair = sorted(pair)
    return df, pair


def check_max_delta(max_delta: Any) -> float:
    if isinstance(max_delta, bool) or not isinstance(max_delta, int | float | np.floating | np.integer):
        raise TypeError(f"max_delta must be a number, got {type(max_delta).__name__}")
    if not np.isfinite(max_delta) or max_delta <= 0:
        raise ValueError(f"max_delta must be a finite number > 0, got {max_delta!r}")
    return float(max_delta)


def check_max_iter(max_iter: Any) -> int:
    if isinstance(max_iter, bool) or not isinstance(max_iter, int | np.integer):
        raise TypeError(f"max_iter must be an int, got {type(max_iter).__name__}")
    if max_iter < 1:
        raise ValueError(f"max_iter must be >= 1, got {max_iter}")
    return int(max_iter)


def crowdtruth_scores(
    df: pd.DataFrame | Any,
    unit_col: str = "unit",
    worker_col: str = "worker",
    label_col: str = "label",
    labels: Sequence[Any] | None = None,
    *,
    open_ended: bool = False,
    max_delta: float = 0.001,
    max_iter: int = 1000,
    duplicates: str = "error",
    progress: bool = False,
    keep_history: bool = False,
) -> CrowdTruthResult:
    """CrowdTruth 2.0 unit, worker and annotation quality scores.

    Each judgment (a worker's answer on a unit) is a vector of label counts: one-hot when a label
    cell holds one label, several ones when it holds a list (multiple choice). With ``eps = 1e-8``,
    all scores starting at 1, WQS = worker quality, UQS = unit quality, AQS = annotation quality:

    * ``Wcos(x, y) = sum_a AQS_a x_a y_a / sqrt(sum_a AQS_a x_a^2 * sum_a AQS_a y_a^2)``;
    * ``UQS(u) = sum_{i<j} Wcos(v_i, v_j) WQS_i WQS_j / max(eps, sum_{i<j} WQS_i WQS_j)``, 0 for a
      unit with fewer than two workers;
    * ``WWA(i) = sum_u sum_{j!=i} Wcos(v_i, v_j) WQS_j UQS(u) / max(eps, sum_u sum_{j!=i} WQS_j UQS(u))``;
    * ``WUA(i) = sum_u c_iu UQS(u) / max(eps, sum_u UQS(u))`` with ``c_iu = Wcos(WQS_i v_i, s(u) -
      WQS_i v_i)`` (eps when that cosine's denominator is below eps) and ``s(u) = sum_j WQS_j v_j``;
    * ``WQS(i) = WWA(i) WUA(i)``;
    * ``AQS(a)`` (closed tasks): over ordered worker pairs (i, j) with ``D_ij = sum_shared UQS v_j[a]
      > 0``, the WQS_i WQS_j-weighted mean of ``sum_shared UQS v_i[a] v_j[a] / D_ij``, at least eps;
      open-ended tasks keep AQS = 1;
    * ``UAS(u, a) = sum_i WQS_i v_i(u)[a] / sum_i WQS_i``.

    Every iteration computes AQS, UQS, WWA, WUA and WQS from the previous iteration's values; the
    iteration stops when the largest absolute change of any WQS, UQS or AQS is below ``max_delta``.
    A worker whose units all have UQS 0 gets WQS 0.

    Args:
        df: long table with one row per judgment, or a
            :class:`~aif360_subjective.datasets.MultiAnnotatorDataset` (items are the units,
            annotators the workers, labels its two label values; the column arguments are ignored).
        unit_col: column of unit (item) ids.
        worker_col: column of worker (annotator) ids.
        label_col: column of labels: a label, or a list/tuple/set of labels for multiple choice.
        labels: the annotation vector (possible labels, in output order). Default: the observed
            labels, sorted when sortable. Labels outside it are an error.
        open_ended: an open task (no fixed label set): AQS stays 1.
        max_delta: stopping threshold on the largest absolute change (the reference's 0.001).
        max_iter: cap on iterations (the reference has none); a warning is issued when reached.
        duplicates: several rows for one (unit, worker) pair: ``"error"`` (default; the reference
            would silently count them as separate workers), ``"last"`` (keep the last row), or
            ``"union"`` (merge them into one judgment with the union of the labels, i.e. the
            element-wise maximum of the counts).
        progress: show a tqdm progress bar over iterations.
        keep_history: keep every iteration's values in ``result.history``.

    Returns:
        CrowdTruthResult: ``units``, ``workers``, ``annotations`` DataFrames and the iteration log.

    Raises:
        TypeError: if ``df`` is neither a DataFrame nor a MultiAnnotatorDataset, or an option has
            the wrong type.
        ValueError: on missing columns, an empty table, missing ids or labels, labels not in
            ``labels``, duplicate pairs with ``duplicates="error"``, ``max_delta <= 0`` or
            ``max_iter < 1``.

    References:
        A. Dumitrache, O. Inel, L. Aroyo, B. Timmermans, C. Welty, "CrowdTruth 2.0: Quality Metrics
        for Crowdsourcing with Disagreement", arXiv:1808.06080, 2018; the authors' Python package
        ``crowdtruth`` 2.1 (``crowdtruth.models.metrics.Metrics``), whose computation this follows.
    """
    if is_dask_collection(df):  # Dask DataFrame: partitioned by unit, one pass per iteration
        arguments = dict(locals())
        from ._dask import crowdtruth_scores as dask_scores

        return dask_scores(**arguments)
    max_delta = check_max_delta(max_delta)
    max_iter = check_max_iter(max_iter)
    if not isinstance(open_ended, bool | np.bool_):
        raise TypeError(f"open_ended must be True or False, got {open_ended!r}")
    if is_multi_annotator_dataset(df):
        unit_col, worker_col, label_col = df.item_col, df.annotator_col, df.label_col
        df, ds_labels = _from_dataset(df)
        labels = ds_labels if labels is None else labels
    tensor = build_tensor(df, unit_col, worker_col, label_col, labels, duplicates)
    job = _Job(tensor)

    st = _State(
        wqs=np.ones(job.n_workers),
        uqs=np.ones(job.n_units),
        aqs=np.ones(job.n_labels),
        wwa=np.ones(job.n_workers),
        wua=np.ones(job.n_workers),
    )
    history: list[pd.DataFrame] = []
    first: _State | None = None
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
        """The non-convergence warning, attributed to the caller of the public function that runs the loop."""
        if not self.converged:
            warnings.warn(
                f"CrowdTruth did not converge in max_iter={self.max_iter} iterations (last max delta "
                f"{self.log_rows[-1]['max_delta']:.3g} >= max_delta={self.max_delta}); returning the last values",
                RuntimeWarning,
                stacklevel=3,
            )


def _history_frame(it: int, t: AnnotationTensor, st: _State) -> pd.DataFrame:
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


def _result(job, tensor, st, first, log_rows, history, converged, open_ended, max_delta) -> CrowdTruthResult:
    label_names = [str(lab) for lab in tensor.labels]
    uas = _unit_annotation_scores(job, st.wqs)
    uas0 = _unit_annotation_scores(job, np.ones(job.n_workers))
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
