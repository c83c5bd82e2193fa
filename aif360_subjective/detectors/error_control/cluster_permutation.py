"""Clusters of unequal sizes as the units of the max-T: whole clusters' outcome blocks permuted among the clusters.

With ``groups=`` (a cluster id per row: a person's records) the permutations of ``design="between"`` move whole
clusters, a cluster's rows taking one for one the outcomes of another cluster with as many rows. When the clusters
have unequal sizes (persons holding 1 to 40 records) few or none can swap, nothing moves, and no subgroup can be
found however large its effect. This module gives the ``between`` design a null for clusters of any sizes.

**What moves.** A permutation ``pi`` of the ``G`` clusters gives cluster ``c``'s place (its cluster-level features)
the whole outcome block of cluster ``pi(c)``, with its number of rows. A subgroup that holds every row of each
cluster it touches (a subgroup of cluster-level features: persons of a region and an education) is then the set
of clusters it names, and its statistic under ``pi`` reads the blocks that landed there. Under the null hypothesis
that a cluster's outcomes (and its size) do not depend on its cluster-level features, every arrangement is equally
likely: the permutation test is exact, for any statistic, whatever the sizes. A subgroup that splits a cluster's
rows (a record-level condition: the phone records of a region) has no place for a block of another size; it is not
tested here (``design="within"`` tests those, with each person's outcomes held).

**The statistic.** For a per-row value ``v`` on the rows of a stratum (all rows, or the truth-positive rows of
the conditional tests), centred on its mean and put on a unit scale, each cluster contributes its stratum rows
``n_c`` and its residual sum ``s_c``. Under the null a cluster's residual sum has the variance of a one-way
random-effects model, ``v_c = sigma^2 n_c + tau^2 n_c^2`` (its rows' own noise, and an effect its rows share),
fitted once by least squares of ``s_c^2`` on ``(n_c, n_c^2)`` with both components non-negative. A subgroup S of
whole clusters then has ``T = (m_S - m_R) / sqrt(sum_S v_c / n_S^2 + sum_R v_c / n_R^2)``, ``m`` each side's mean
residual. The fit reads the clusters as a set, the same under every permutation, so ``T`` is about standard normal
for every candidate whatever the sizes of its clusters; a statistic studentized by each side's own clusters was
not (a subgroup of a few heavy clusters got a noisy variance, and its tail set the max-T's threshold: a doubled
error of 8 % of 500 persons was found on 2 of 20 tables). Four sums per cluster (``n_c``, ``s_c``, 1, ``v_c``) give
every statistic, so a batch of permutations is one sparse product of the candidates x clusters membership with
the permuted sums, and the step-down max-T of :mod:`.maxt` takes the draws.

**The size penalty counts clusters.** Whatever is subtracted from a candidate's statistic before the maximum must
be the same under every arrangement. A candidate's rows are not: the blocks carry their sizes, so the rows of
the persons of a region change from one arrangement to the next. ``penalty=True`` (``max_t_penalty="size"``) is
therefore ``sqrt(2 ln(G / g_S))`` with ``g_S`` the clusters the candidate holds (:attr:`ClusterPermutation.clusters`),
which equals the rows' ``sqrt(2 ln(N / n_S))`` when every cluster has as many rows. Read from the observed rows, it
rejected more than alpha: on every arrangement of five blocks of 1 to 40 rows, each tested against all 120, the
smallest adjusted p-value was below 0.5 on 80 of 120 (67 %; ``tests/detectors/test_cluster_permutation.py``).
The description-class offsets (the reports' default) depend on the features only and were never affected.

**What it cannot decide.** ``G`` clusters have ``G!`` arrangements: no adjusted p-value falls below ``1 / G!``. With
3 clusters or fewer that is above 0.05, and the analysis says it cannot decide
(:meth:`~.resampling.Sampling.undecidable`).

References:
    S. R. Searle, G. Casella and C. E. McCulloch, "Variance Components", Wiley, 1992 (the one-way random-effects
    model of the clusters' sums).
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993 (max-T).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..mining.cell_counts import CellCounter
from .counters import Counter, MemberCounter, StackedCounter, as_counter

__all__ = ["BinaryZ", "ClusterColumn", "ClusterPermutation", "binary_columns", "cluster_sums"]

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


def _count_model(n_c: np.ndarray, s_c: np.ndarray) -> np.ndarray:
    """Each cluster's variance of its residual sum under the null, ``v_c = sigma^2 n_c + tau^2 n_c^2`` (rows' own
    noise plus a cluster effect shared by its rows), fitted once by least squares of ``s_c^2`` on ``(n_c, n_c^2)``
    with both components non-negative (the method of moments of a one-way random-effects model). The fit reads the
    clusters as a set, so every permutation standardises with the same variances: a subgroup's statistic is then
    about normal whatever the sizes, and no subgroup of a few heavy clusters gets a noisy variance estimate that
    blows up its tail (which a studentized statistic of each side's own clusters did, drowning planted effects)."""
    keep = n_c > 0
    n, y = n_c[keep], s_c[keep] ** 2
    if not keep.any():
        return np.zeros_like(n_c)
    A = np.column_stack([n, n * n])
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    if coef[0] < 0 or coef[1] < 0:  # one component only: the better of the two non-negative fits
        n2 = n * n
        fits = [np.array([max(y @ n / (n @ n), 0.0), 0.0]), np.array([0.0, max(y @ n2 / (n2 @ n2), 0.0)])]
        coef = min(fits, key=lambda c: float(((A @ c - y) ** 2).sum()))
    out: np.ndarray = coef[0] * n_c + coef[1] * n_c * n_c
    return out


@dataclass(frozen=True)
class ClusterColumn:
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


class ClusterPermutation:
    """Every candidate's studentized difference of means under permutations of whole clusters of any sizes.

    Only candidates holding every row of each cluster they touch (subgroups of cluster-level features) are tested:
    a cluster's outcome block, with its number of rows, moves to another cluster's place, which a subgroup that splits
    a cluster's rows cannot follow (their statistics are NaN: untested; ``design="within"`` tests them).

    Args:
        counter: the candidates (a :class:`~.maxt.Counter` or (rows, m) membership).
        groups: (rows,) dense cluster codes.
        columns: the values compared, each a :class:`ClusterColumn`.

    Attributes:
        n_clusters: G.
        sizes: (m,) rows of each candidate.
        whole: (m,) whether each candidate holds whole clusters (the tested ones).
        clusters: (m,) the clusters each candidate holds whole: its size in the units the permutations move (the
            size penalty's count; its rows change with the arrangement, since the blocks carry their sizes).
    """

    def __init__(self, counter: Counter, groups: np.ndarray, columns: Sequence[ClusterColumn]):
        counter = as_counter(counter)
        n, m = counter.shape
        self.groups = np.asarray(groups, dtype=np.int64)
        if len(self.groups) != n:
            raise ValueError(f"groups must have one cluster code per row ({n}), got {len(self.groups)}")
        G = int(self.groups.max()) + 1 if n else 0
        self.n_clusters = G
        self.sizes = counter.count(np.ones((n, 1)))[:, 0]
        rows_c = np.bincount(self.groups, minlength=G).astype(np.float64)
        Nm = cluster_sums(counter, np.ones(n), self.groups, G)
        full = Nm.data >= rows_c[Nm.indices] - 0.5  # the candidate holds every row of the cluster
        K = sp.csr_matrix((full.astype(np.float64), Nm.indices, Nm.indptr), shape=Nm.shape)
        K.eliminate_zeros()
        self.K = K
        self.whole = np.abs(np.asarray(K @ rows_c).ravel() - self.sizes) < 0.5
        self.clusters = np.asarray(K.sum(axis=1), dtype=np.float64).ravel()
        self.sign = np.array([c.sign for c in columns], dtype=np.float64)
        F = []
        for c in columns:
            r = np.ones(n, dtype=bool) if c.stratum is None else np.asarray(c.stratum, dtype=bool)
            v = np.asarray(c.values, dtype=np.float64)
            u = np.zeros(n)
            if r.any():  # centred and on a unit scale: the statistic is scale-free, the squares stay in range
                peak = float(np.max(np.abs(v[r]))) or 1.0
                w = np.where(r, v / peak, 0.0)
                dev = np.where(r, w - w.sum() / r.sum(), 0.0)
                sd = float(np.sqrt((dev * dev).sum() / r.sum()))
                u = dev / sd if sd > 0 else dev
            n_c = np.bincount(self.groups, weights=r.astype(np.float64), minlength=G)
            s_c = np.bincount(self.groups, weights=u, minlength=G)
            F.append(np.column_stack([n_c, s_c, (n_c > 0).astype(np.float64), _count_model(n_c, s_c)]))
        self.F = np.stack(F) if F else np.zeros((0, G, 4))  # (J, G, 4) per cluster: the sums a statistic reads
        self.total = self.F.sum(axis=1)  # (J, 4)
        self._observed = [self._z(j, np.asarray(K @ self.F[j])[:, :, None]) for j in range(len(columns))]

    def _z(self, j: int, S: np.ndarray) -> np.ndarray:
        """(m, b) statistic of column ``j`` from the candidates' (m, 4, b) cluster sums (rows, residual sums,
        clusters, modelled variances)."""
        n_S, s_S, g_S, v_S = (S[:, i, :] for i in range(4))
        tot = self.total[j]
        n_R, s_R, g_R, v_R = (tot[i] - S[:, i, :] for i in range(4))
        with np.errstate(divide="ignore", invalid="ignore"):
            V = v_S / (n_S * n_S) + v_R / (n_R * n_R)
            good = self.whole[:, None] & (g_S >= 2) & (g_R >= 2) & (V > 0)
            t = np.where(good, (s_S / n_S - s_R / n_R) / np.sqrt(np.where(good, V, 1.0)), np.nan)
        out: np.ndarray = self.sign[j] * t
        return out

    def observed(self) -> np.ndarray:
        """(m, J) every candidate's statistic on the data, on the normal scale (NaN where untested: a subgroup
        splitting a cluster, fewer than two clusters on a side, no spread)."""
        return np.column_stack([z[:, 0] for z in self._observed]) if self._observed else np.zeros((len(self.sizes), 0))

    def draw(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """(b, G) permutations of the clusters (in sorted id order: independent of the row order)."""
        return rng.permuted(np.tile(np.arange(self.n_clusters), (b, 1)), axis=1)

    def statistics(self, perms: np.ndarray) -> list[np.ndarray]:
        """Per column the (m, b) statistics (normal scale) with cluster ``c`` taking the outcome block of cluster
        ``perms[b, c]``."""
        b = perms.shape[0]
        out = []
        for j in range(len(self.F)):
            moved = self.F[j][perms]  # (b, G, 4)
            S = np.asarray(self.K @ moved.transpose(1, 2, 0).reshape(self.n_clusters, 4 * b)).reshape(-1, 4, b)
            out.append(self._z(j, S))
        return out


class BinaryZ:
    """The five binary tests' z from the four columns' flipped statistics (:data:`~.maxt.COUNTS` order)."""

    def z(self, counts: list[np.ndarray | None], n1: np.ndarray | None = None) -> list[np.ndarray | None]:
        fav, tp, fp, correct = counts[:4]
        eodds = None if tp is None or fp is None else (tp + fp) / np.sqrt(2.0)
        return [fav, tp, eodds, correct, fp]


def binary_columns(t: np.ndarray, p: np.ndarray,
                   need: tuple[bool, bool, bool, bool]) -> tuple[list[ClusterColumn], list[int]]:
    """The values of the binary tests (:data:`~.maxt.COUNTS`): favourable predictions on every row, on the
    truth-positive rows (true positives) and the truth-negative rows (false positives), correct predictions; each
    with sign -1 (fewer than the rest: disadvantaged, the z of :func:`~.maxt.max_t`). Returns the needed columns and
    their positions among the four."""
    t = np.asarray(t, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    all_cols = [ClusterColumn(p, None, -1.0), ClusterColumn(p, t == 1, -1.0), ClusterColumn(p, t != 1, -1.0),
                ClusterColumn((t == p).astype(np.float64), None, -1.0)]
    at = [i for i in range(4) if need[i]]
    return [all_cols[i] for i in at], at
