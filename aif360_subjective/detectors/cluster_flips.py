"""Clusters of unequal sizes as the units of the max-T: whole clusters' residuals sign-flipped (wild cluster bootstrap).

With ``groups=`` (a cluster id per row: a person's records) the permutations of ``design="between"`` move whole
clusters, a cluster's rows taking one for one the outcomes of another cluster with as many rows. When the clusters
have unequal sizes (persons holding 1 to 40 records) few or none can swap, nothing moves, and no subgroup can be
found however large its effect. This module gives the ``between`` design a null valid for clusters of any sizes.

**The statistic.** For a per-row value ``v`` (a prediction, whether it is correct, an error) on the rows of a
stratum (all rows, or the truth-positive rows of the conditional tests) and a candidate subgroup S, let
``u_i = v_i - mean(v)`` be the residuals under the null hypothesis that S does not matter, ``U_cS`` their sum over
the rows of S in cluster ``c`` and ``U_c`` over all of cluster ``c``'s rows. The difference of means is
``d_S = mean_S - mean_R = k U_S - U_T / n_R`` with ``k = 1 / n_S + 1 / n_R`` (``U_T = 0`` on the data), a sum of
cluster contributions ``d_S = sum_c a_cS`` with ``a_cS = k U_cS - U_c / n_R``. Its cluster-robust (sandwich)
variance under the null is ``se_S^2 = sum_c a_cS^2`` (Liang and Zeger 1986; the score form, from the null's
residuals), and the statistic is ``T_S = d_S / se_S``, a studentized difference of means of every candidate,
whatever the number of rows of each cluster it holds (record-level subgroups included).

**The null distribution.** Each draw gives every cluster a random sign ``w_c = +-1`` (Rademacher) and every row of
it the residual ``w_c u_i``: ``d*_S = sum_c w_c a_cS``. Clusters are independent and, under the null, their
residual vectors are symmetric in distribution (or nearly: ``mean(v)`` is estimated), so the observed signs (all
``+1``) are one draw among equally likely ones. ``se_S`` does not change under a flip (``w_c^2 = 1``), so every
draw is studentized exactly as the data, which is the wild cluster bootstrap with restricted residuals of Cameron,
Gelbach and Miller (2008) and the score bootstrap of Kline and Santos (2012); without the estimated mean it is the
exact sign-flip randomization test. Every candidate's ``d*_S`` is one sparse product of the memberships with the
flipped residuals, as the permutations' counts are, and the step-down max-T of :mod:`.maxt` takes the draws.

**What it cannot decide.** ``G`` clusters have ``2^G`` sign patterns, and a pattern and its negation give the
largest statistic of a family holding both directions: no adjusted p-value falls below about ``2^(1 - G)``. With 5
clusters or fewer that is above 0.05, and the analysis says it cannot decide
(:meth:`~.resampling.Sampling.undecidable`).

References:
    K.-Y. Liang and S. L. Zeger, "Longitudinal data analysis using generalized linear models", Biometrika 73, 1986
    (the cluster-robust variance).
    C. F. J. Wu, "Jackknife, bootstrap and other resampling methods in regression analysis", Annals of Statistics
    14(4), 1986 (the wild bootstrap).
    A. C. Cameron, J. B. Gelbach and D. L. Miller, "Bootstrap-based improvements for inference with clustered
    errors", Review of Economics and Statistics 90(3), 2008 (the wild cluster bootstrap, Rademacher signs,
    restricted residuals).
    P. Kline and A. Santos, "A score based approach to wild bootstrap inference", Journal of Econometric Methods
    1(1), 2012.
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993 (max-T).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy import special

from .cell_counts import CellCounter
from .maxt import (
    _BATCH,
    _WORKERS,
    Counter,
    MaxTResult,
    MemberCounter,
    StackedCounter,
    _adjust,
    _offsets,
    as_counter,
    counts_needed,
)

__all__ = ["ClusterFlips", "FlipColumn", "binary_columns", "cluster_sums", "flip_max_t", "signed_normal"]

#: A variance below this share of its terms' size is cancellation noise: the statistic is undefined.
_REL_FLOOR = 1e-10
#: Degrees of freedom above this are the normal (scipy's Student t takes any positive df).
_DF_CAP = 1e12
#: Tails below this are taken as this (the normal-equivalent of a t stays finite).
_TAIL_FLOOR = 1e-300


def cluster_sums(counter: Counter, values: np.ndarray, groups: np.ndarray, n_clusters: int) -> sp.csr_matrix:
    """(candidates, clusters) sparse sums of ``values`` over each candidate's rows in each cluster.

    One sparse product of the memberships (or cells) with a rows x clusters matrix holding each row's value in its
    cluster's column: about one pass over the memberships, however many clusters there are.

    Args:
        counter: the candidates.
        values: (rows,) float values.
        groups: (rows,) dense cluster codes.
        n_clusters: the number of clusters (codes ``0..n_clusters-1``).

    Returns:
        scipy.sparse.csr_matrix: (candidates, clusters) float64.
    """
    counter = as_counter(counter)
    n, m = counter.shape
    D = sp.csr_matrix((np.asarray(values, dtype=np.float64), (np.arange(n), np.asarray(groups, dtype=np.int64))),
                      shape=(n, n_clusters))
    if isinstance(counter, StackedCounter):
        return sp.csr_matrix(sp.vstack([cluster_sums(c, values, groups, n_clusters) for c in counter.parts]))
    if isinstance(counter, MemberCounter | CellCounter):
        return counter.sparse_count(D)
    return sp.csr_matrix(counter.count(D.toarray()))  # any other counter: dense (it has no sparse product)


def _rows_dot(A: sp.csr_matrix, B: sp.csr_matrix) -> np.ndarray:
    """(m,) ``sum_c A_mc B_mc`` of two sparse matrices of one shape."""
    return np.asarray(A.multiply(B).sum(axis=1), dtype=np.float64).ravel()


def signed_normal(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``t`` on ``df`` degrees of freedom as the standard normal value of the same tail, with its sign:
    ``sign(t) Phi^-1(1 - P(T_df > |t|))``. Candidates whose standard errors rest on few clusters (a t with few
    degrees of freedom, heavy tails) then compete with the others on one scale in the max-T."""
    with np.errstate(invalid="ignore"):
        tail = special.stdtr(np.minimum(df, _DF_CAP), -np.abs(t))
        z = -special.ndtri(np.maximum(tail, _TAIL_FLOOR))
    out: np.ndarray = np.where(np.isfinite(t), np.sign(t) * z, np.nan)
    return out


@dataclass(frozen=True)
class FlipColumn:
    """A per-row value whose subgroup mean is compared with the rest's on the rows of a stratum.

    Attributes:
        values: (rows,) the values.
        stratum: (rows,) bool, the rows compared (None: every row).
        sign: the statistic is ``sign * (mean_S - mean_R) / se``: +1 when a larger subgroup mean is worse, -1 when
            it is better (the binary tests' z is positive when the subgroup has fewer favourable predictions).
    """

    values: np.ndarray
    stratum: np.ndarray | None = None
    sign: float = 1.0


class _Column:
    """One column's fixed sums: per candidate and cluster (sparse), per cluster, per candidate."""

    def __init__(self, counter: Counter, groups: np.ndarray, G: int, col: FlipColumn,
                 strata: dict[bytes, tuple[sp.csr_matrix, np.ndarray]]):
        n = len(groups)
        r = np.ones(n, dtype=bool) if col.stratum is None else np.asarray(col.stratum, dtype=bool)
        key = np.packbits(r).tobytes()
        if key not in strata:  # the candidates' rows per cluster in the stratum, shared by the stratum's columns
            strata[key] = (cluster_sums(counter, r.astype(np.float64), groups, G),
                           np.bincount(groups, weights=r.astype(np.float64), minlength=G))
        self.Nm, self.nc = strata[key]
        v = np.asarray(col.values, dtype=np.float64)
        N = float(r.sum())
        u = np.zeros(n)
        if N > 0:
            # residuals under the null, centred and on a unit scale: the statistic is scale-free, and the sums of
            # squares below stay well inside the float range whatever the unit of v
            peak = float(np.max(np.abs(v[r]))) or 1.0
            w = np.where(r, v / peak, 0.0)
            dev = np.where(r, w - w.sum() / N, 0.0)
            sd = float(np.sqrt((dev * dev).sum() / N))
            u = dev / sd if sd > 0 else dev
        self.sign = float(col.sign)
        self.Um = cluster_sums(counter, u, groups, G)  # U_cS
        self.Uc = np.bincount(groups, weights=u, minlength=G)  # U_c
        self.Zm = sp.csr_matrix(self.Um.multiply(self.Nm))  # U_cS n_cS
        self.n_S = np.asarray(self.Nm.sum(axis=1), dtype=np.float64).ravel()
        self.n_R = N - self.n_S
        self.QS = _rows_dot(self.Um, self.Um)  # sum_c U_cS^2
        self.XU = np.asarray(self.Um @ self.Uc, dtype=np.float64).ravel()  # sum_c U_cS U_c
        self.CU = float(self.Uc @ self.Uc)
        self.N2 = _rows_dot(self.Nm, self.Nm)  # sum_c n_cS^2
        self.SNc = np.asarray(self.Nm @ self.nc, dtype=np.float64).ravel()  # sum_c n_cS n_c
        self.Snc2 = float(self.nc @ self.nc)
        g_S = np.diff(self.Nm.indptr)  # clusters holding rows of S
        # clusters holding rows of the rest: those of the stratum, but the ones S takes whole
        whole = self.Nm.data >= self.nc[self.Nm.indices] - 0.5
        rows = np.repeat(np.arange(self.Nm.shape[0]), g_S)
        g_R = int((self.nc > 0).sum()) - np.bincount(rows, weights=whole, minlength=self.Nm.shape[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            NR2 = self.Snc2 - 2.0 * self.SNc + self.N2
            k_S = self.n_S ** 2 / self.N2  # Kish's effective number of clusters of each side
            k_R = self.n_R ** 2 / NR2
            self.ok = (g_S >= 2) & (g_R >= 2) & (self.n_S >= 1) & (self.n_R >= 1)
            self.k_S, self.k_R = np.where(self.ok, k_S, np.nan), np.where(self.ok, k_R, np.nan)
        self.df = np.full(len(self.n_S), np.nan)

    def t(self, PU: np.ndarray, PZ: np.ndarray, PNU: np.ndarray, PUn: np.ndarray, TU: np.ndarray,
          TUn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(t, V_S, V_R)``, each (m, b), from the draws' products (see :meth:`ClusterFlips.statistics`)."""
        n_S, n_R = self.n_S[:, None], self.n_R[:, None]
        QS, XU, N2, SNc = self.QS[:, None], self.XU[:, None], self.N2[:, None], self.SNc[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            a = PU / n_S  # the subgroup's mean residual, and the rest's
            b = (TU - PU) / n_R
            eS2 = QS - 2.0 * a * PZ + a * a * N2  # sum_c (S's residual sum in c, around S's mean)^2
            UR2 = self.CU - 2.0 * XU + QS
            wURnR = TUn - PNU - PUn + PZ
            NR2 = self.Snc2 - 2.0 * SNc + N2
            eR2 = UR2 - 2.0 * b * wURnR + b * b * NR2
            eSR = (XU - QS) - b * (PUn - PZ) - a * (PNU - PZ) + a * b * (SNc - N2)
            VS, VR, X = eS2 / (n_S * n_S), eR2 / (n_R * n_R), eSR / (n_S * n_R)
            V = VS + VR - 2.0 * X
            size = np.abs(VS) + np.abs(VR) + 2.0 * np.abs(X)
            good = self.ok[:, None] & (V > _REL_FLOOR * size)
            t = np.where(good, (a - b) / np.sqrt(np.where(good, V, 1.0)), np.nan)
        return self.sign * t, VS, VR


class ClusterFlips:
    """Every candidate's studentized difference of means under sign flips of whole clusters (see the module).

    Args:
        counter: the candidates (a :class:`~.maxt.Counter` or (rows, m) membership).
        groups: (rows,) dense cluster codes.
        columns: the values compared, each a :class:`FlipColumn`.

    Attributes:
        n_clusters: G.
        sizes: (m,) rows of each candidate.
    """

    def __init__(self, counter: Counter, groups: np.ndarray, columns: Sequence[FlipColumn]):
        counter = as_counter(counter)
        n, m = counter.shape
        self.groups = np.asarray(groups, dtype=np.int64)
        if len(self.groups) != n:
            raise ValueError(f"groups must have one cluster code per row ({n}), got {len(self.groups)}")
        self.n_clusters = int(self.groups.max()) + 1 if n else 0
        strata: dict[bytes, tuple[sp.csr_matrix, np.ndarray]] = {}
        self.columns = [_Column(counter, self.groups, self.n_clusters, c, strata) for c in columns]
        self.sizes = counter.count(np.ones((n, 1)))[:, 0]
        ones = np.ones((self.n_clusters, 1))
        self._observed = []
        for col in self.columns:
            t, VS, VR = col.t(*self._products(col, ones))
            # Welch and Satterthwaite's degrees of freedom on the clusters (Kish's effective numbers), from the data:
            # fixed per candidate, so every draw is put on the normal scale as the data are
            with np.errstate(divide="ignore", invalid="ignore"):
                df = (VS + VR) ** 2 / (VS * VS / (col.k_S[:, None] - 1.0) + VR * VR / (col.k_R[:, None] - 1.0))
            col.df = np.where(np.isfinite(df[:, 0]) & (df[:, 0] > 0), df[:, 0], np.nan)
            self._observed.append(signed_normal(t[:, 0], col.df))

    @staticmethod
    def _products(col: _Column, W: np.ndarray) -> tuple[np.ndarray, ...]:
        """The sums a draw needs: ``sum_c w_c U_cS``, ``sum_c w_c U_cS n_cS``, ``sum_c w_c U_c n_cS``,
        ``sum_c w_c U_cS n_c`` per candidate (m, b), and ``sum_c w_c U_c``, ``sum_c w_c U_c n_c`` (1, b)."""
        PU = np.asarray(col.Um @ W)
        PZ = np.asarray(col.Zm @ W)
        PNU = np.asarray(col.Nm @ (W * col.Uc[:, None]))
        PUn = np.asarray(col.Um @ (W * col.nc[:, None]))
        TU = (col.Uc @ W)[None, :]
        TUn = ((col.Uc * col.nc) @ W)[None, :]
        return PU, PZ, PNU, PUn, TU, TUn

    def observed(self) -> np.ndarray:
        """(m, J) every candidate's statistic on the data, on the normal scale (NaN where undefined: fewer than two
        clusters on a side, no spread)."""
        return np.column_stack(self._observed) if self._observed else np.zeros((len(self.sizes), 0))

    def draw(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """(G, b) Rademacher signs of the clusters (clusters in sorted id order: independent of the row order)."""
        return rng.integers(0, 2, size=(self.n_clusters, b)).astype(np.float64) * 2.0 - 1.0

    def statistics(self, signs: np.ndarray) -> list[np.ndarray]:
        """Per column the (m, b) statistics (normal scale) under the (G, b) cluster ``signs``: the residuals
        ``w_c u_i``, each side's mean and the cluster-robust variance around it computed again, as on the data."""
        out = []
        for col in self.columns:
            t = col.t(*self._products(col, signs))[0]
            out.append(signed_normal(t, col.df[:, None]))
        return out


class _BinaryZ:
    """The five binary tests' z from the four columns' flipped statistics (:data:`~.maxt.COUNTS` order)."""

    def z(self, counts: list[np.ndarray | None], n1: np.ndarray | None = None) -> list[np.ndarray | None]:
        fav, tp, fp, correct = counts[:4]
        eodds = None if tp is None or fp is None else (tp + fp) / np.sqrt(2.0)
        return [fav, tp, eodds, correct, fp]


def binary_columns(t: np.ndarray, p: np.ndarray,
                   need: tuple[bool, bool, bool, bool]) -> tuple[list[FlipColumn], list[int]]:
    """The values of the binary tests (:data:`~.maxt.COUNTS`): favourable predictions on every row, on the
    truth-positive rows (true positives) and the truth-negative rows (false positives), correct predictions; each
    with sign -1 (fewer than the rest: disadvantaged, the z of :func:`~.maxt.max_t`). Returns the needed columns and
    their positions among the four."""
    t = np.asarray(t, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    all_cols = [FlipColumn(p, None, -1.0), FlipColumn(p, t == 1, -1.0), FlipColumn(p, t != 1, -1.0),
                FlipColumn((t == p).astype(np.float64), None, -1.0)]
    at = [i for i in range(4) if need[i]]
    return [all_cols[i] for i in at], at


def flip_max_t(counter: Counter, t: np.ndarray, p: np.ndarray, groups: np.ndarray, n_permutations: int,
               random_state: np.random.Generator | int | None, penalty: bool | np.ndarray,
               tests: tuple[int, ...], unit: str) -> MaxTResult:
    """:func:`~.maxt.max_t` of binary decisions with whole clusters sign-flipped (clusters of unequal sizes).

    Args:
        counter, t, p: as :func:`~.maxt.max_t`.
        groups: (rows,) dense cluster codes.
        n_permutations: B, the sign draws (validated by the caller).
        random_state: the draws' generator or seed.
        penalty: as :func:`~.maxt.max_t`.
        tests: the tests adjusted (validated).
        unit: the unit of inference, in words.

    Returns:
        MaxTResult: as :func:`~.maxt.max_t`'s.
    """
    rng = np.random.default_rng(random_state)
    counter = as_counter(counter)
    n, m = counter.shape
    cols, at = binary_columns(t, p, counts_needed(tests))
    flips = ClusterFlips(counter, groups, cols)
    obs = flips.observed()
    full: list[np.ndarray | None] = [None] * 4
    for j, i in enumerate(at):
        full[i] = obs[:, [j]]
    zs = _BinaryZ().z(full)
    z_obs = np.column_stack([np.full(m, np.nan) if z is None else z[:, 0] for z in zs])
    pen = _offsets(penalty, flips.sizes, n, m)

    def batch(signs: np.ndarray) -> list[np.ndarray | None]:
        stats = flips.statistics(signs)
        out: list[np.ndarray | None] = [None] * 5
        for j, i in enumerate(at):
            out[i] = stats[j]
        return out

    def batches() -> Iterator[list[np.ndarray | None]]:
        # the signs are drawn here, in batch order, from one generator; the products run two batches at a time
        in_flight: deque[Future[list[np.ndarray | None]]] = deque()
        with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
            done = 0
            while done < n_permutations:
                b = min(_BATCH, n_permutations - done)
                in_flight.append(pool.submit(batch, flips.draw(rng, b)))
                if len(in_flight) >= _WORKERS:
                    yield in_flight.popleft().result()
                done += b
            while in_flight:
                yield in_flight.popleft().result()

    # by_clusters: an undefined statistic is never a draw's maximum (the fifth entry, the margins, is not used)
    return _adjust(_BinaryZ(), z_obs, pen, tests, n_permutations, batches(), True, unit)
