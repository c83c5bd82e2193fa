"""A vectorised x-means for the automatic number of clusters (pyclustering's BIC splitting rule).

pyclustering's x-means (C++ core) alternates k-means on all rows ("improve parameters") with a trial 2-means
inside every cluster ("improve structure", k-means++ start with 5 candidates) and keeps a split when the
children's BIC is larger than the parent's, as long as fewer than ``kmax`` centres are allocated; it stops
when a round splits nothing. This module runs the same rule with every cluster's trial 2-means done at once
(one numpy pass per Lloyd iteration for all clusters), on the distinct rows weighted by their counts (the
same sums as on the repeated rows).

The rule and its stopping condition are pyclustering's; the random draws are not (pyclustering's C++
random engine cannot be replayed from numpy), so the trial splits can differ, and so can the k where either
stops below ``kmax`` (which happens only when *no* cluster of a round gains BIC by splitting, or k-means
empties a cluster). :func:`~aif360_subjective.detectors.asdf.clustering.choose_n_clusters` therefore keeps this
result only when it is ``kmax`` and asks pyclustering otherwise; it can still differ when pyclustering's C++
core stops early where this rule (and pyclustering's own Python implementation) reaches ``kmax``.

References:
    D. Pelleg and A. Moore, "X-means: Extending K-means with Efficient Estimation of the Number of
    Clusters", ICML 2000.
    A. V. Novikov, "PyClustering: Data Mining Library", JOSS 4(36), 2019 (``pyclustering.cluster.xmeans``,
    whose BIC and splitting loop are followed here).
    D. Arthur and S. Vassilvitskii, "k-means++: the advantages of careful seeding", SODA 2007.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from ..._validation import check_random_state

__all__ = ["fast_xmeans", "bic_score"]

#: pyclustering's defaults: centre-shift tolerance (squared Euclidean) and k-means iteration cap.
TOLERANCE = 0.001
ITERMAX = 200
#: pyclustering's k-means++ draws this many candidates for a trial split's second centre.
CANDIDATES = 5


def bic_score(n: np.ndarray, wce: np.ndarray, d: int) -> np.ndarray:
    """pyclustering's BIC of groups of K clusters (higher = better), one group per row.

    ``sigma^2 = wce / (N - K)``; per cluster ``L = n ln n - n ln N - n/2 ln(2 pi) - n d/2 ln sigma^2 - (n - K)/2``
    and score ``L - p/2 ln N`` with ``p = (K - 1) + d K + 1``; the group's score is the sum (``+inf`` when
    ``N <= K``; ``sigma^2 = 0`` gives ``+inf`` as in pyclustering).

    Args:
        n: (m, K) cluster sizes (weights) of m groups.
        wce: (m,) within-cluster sums of squared distances of each group.
        d: dimension.

    Returns:
        numpy.ndarray: (m,) scores.
    """
    n = np.asarray(n, dtype=np.float64)
    K = n.shape[1]
    N = n.sum(axis=1)
    out = np.full(len(N), np.inf)
    ok = N - K > 0
    if not ok.any():
        return out
    N, nn, W = N[ok], n[ok], np.asarray(wce, dtype=np.float64)[ok]
    sigma2 = W / (N - K)
    with np.errstate(divide="ignore", invalid="ignore"):
        mult = np.where(sigma2 <= 0, -np.inf, d * 0.5 * np.log(np.where(sigma2 > 0, sigma2, 1.0)))
        nlogn = np.where(nn > 0, nn * np.log(np.where(nn > 0, nn, 1.0)), 0.0)
        L = (
            nlogn
            - nn * np.log(N)[:, None]
            - nn * 0.5 * np.log(2.0 * np.pi)
            - nn * mult[:, None]
            - (nn - K) * 0.5
        )
    p = (K - 1) + d * K + 1
    out[ok] = (L - p * 0.5 * np.log(N)[:, None]).sum(axis=1)
    return out


def _nearest(X: np.ndarray, C: np.ndarray, block: int = 1 << 22) -> np.ndarray:
    """Index of the nearest centre of every row (``|c|^2 - 2 x.c``: the row's own norm does not change
    the argmin), in row blocks of at most ``block`` products (32 MB)."""
    c2 = np.einsum("ij,ij->i", C, C)[None, :]
    out = np.empty(len(X), dtype=np.intp)
    step = max(1, block // max(len(C), 1))
    for i in range(0, len(X), step):
        G = X[i : i + step] @ C.T
        G *= -2.0
        G += c2
        out[i : i + step] = np.argmin(G, axis=1)
    return out


def _weighted_means(X: np.ndarray, w: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    S = csr_matrix((w, (labels, np.arange(len(labels)))), shape=(k, len(labels)))
    size = np.asarray(S.sum(axis=1)).ravel()
    sums = S @ X
    return sums, size


def _kmeans(
    X: np.ndarray, w: np.ndarray, centers: np.ndarray, tol: float = TOLERANCE, itermax: int = ITERMAX
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted Lloyd from the given centres until the largest squared centre shift is <= tol; empty
    clusters are dropped (as pyclustering does). Returns labels, centres, within-cluster SSE per cluster."""
    for _ in range(itermax):
        labels = _nearest(X, centers)
        sums, size = _weighted_means(X, w, labels, len(centers))
        keep = size > 0
        new = sums[keep] / size[keep, None]
        if not keep.all():
            centers = centers[keep]
            remap = np.cumsum(keep) - 1
            labels = remap[labels]
        shift = np.max(np.sum((new - centers) ** 2, axis=1))
        centers = new
        if shift <= tol:
            break
    labels = _nearest(X, centers)
    sums, size = _weighted_means(X, w, labels, len(centers))
    keep = size > 0
    if not keep.all():
        labels = (np.cumsum(keep) - 1)[labels]
    centers = centers[keep]
    err = w * np.sum((X - centers[labels]) ** 2, axis=1)
    wce = np.bincount(labels, weights=err, minlength=len(centers))
    return labels, centers, wce


def _pick(rng: np.random.Generator, group: np.ndarray, prob: np.ndarray, n_groups: int) -> np.ndarray:
    """One index per group drawn with probability proportional to ``prob`` inside the group (-1 when the
    group's total is 0). ``group`` must be sorted."""
    cum = np.cumsum(prob)
    total = np.bincount(group, weights=prob, minlength=n_groups)
    start = np.searchsorted(group, np.arange(n_groups))
    before = np.where(start > 0, cum[np.maximum(start - 1, 0)], 0.0)
    before[start == 0] = 0.0
    u = rng.random(n_groups) * total + before
    idx = np.minimum(np.searchsorted(cum, u, side="right"), len(cum) - 1)
    idx = np.where((total > 0) & (group[idx] == np.arange(n_groups)), idx, -1)
    return idx


def _side(Xs: np.ndarray, ls: np.ndarray, C: np.ndarray) -> np.ndarray:
    """1 where a row is nearer its cluster's second child centre: ``|x-b|^2 < |x-a|^2`` is
    ``2 x.(b-a) > |b|^2 - |a|^2``."""
    diff = C[:, 1] - C[:, 0]
    bias = np.einsum("ij,ij->i", C[:, 1], C[:, 1]) - np.einsum("ij,ij->i", C[:, 0], C[:, 0])
    proj = np.einsum("ij,ij->i", Xs, diff[ls])
    return np.asarray(2.0 * proj > bias[ls]).astype(np.intp)


def _trial_splits(
    X: np.ndarray, w: np.ndarray, labels: np.ndarray, k: int, rng: np.random.Generator, tol: float = TOLERANCE,
    itermax: int = ITERMAX,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """2-means inside every cluster at once (k-means++ start, 5 candidates for the second centre).

    Returns (child centres (k, 2, d), child sizes (k, 2), child SSE (k, 2), splittable (k,))."""
    order = np.argsort(labels, kind="stable")
    Xs, ws, ls = X[order], w[order], labels[order]
    first = _pick(rng, ls, ws, k)
    ok = first >= 0
    c0 = np.zeros((k, X.shape[1]))
    c0[ok] = Xs[first[ok]]
    d0 = np.sum((Xs - c0[ls]) ** 2, axis=1)
    # the second centre: the farthest of CANDIDATES draws proportional to weight x D^2
    best = np.full(k, -1)
    best_d = np.full(k, -1.0)
    for _ in range(CANDIDATES):
        cand = _pick(rng, ls, ws * d0, k)
        has = cand >= 0
        dc = np.where(has, d0[np.maximum(cand, 0)], -1.0)
        better = has & (dc > best_d)
        best[better], best_d[better] = cand[better], dc[better]
    splittable = best >= 0  # a cluster of one distinct row cannot be split
    C = np.stack([c0, c0], axis=1)
    C[splittable, 1] = Xs[best[splittable]]
    active = splittable.copy()
    for _ in range(itermax):
        if not active.any():
            break
        side = _side(Xs, ls, C)
        sums, size = _weighted_means(Xs, ws, ls * 2 + side, 2 * k)
        size = size.reshape(k, 2)
        sums = sums.reshape(k, 2, -1)
        with np.errstate(invalid="ignore", divide="ignore"):
            new = np.where(size[:, :, None] > 0, sums / size[:, :, None], C)
        shift = np.max(np.sum((new - C) ** 2, axis=2), axis=1)
        upd = active.copy()
        C[upd] = new[upd]
        active &= shift > tol
    side = _side(Xs, ls, C)
    cell = ls * 2 + side
    err = ws * np.sum((Xs - C[ls, side]) ** 2, axis=1)
    size = np.bincount(cell, weights=ws, minlength=2 * k).reshape(k, 2)
    sse = np.bincount(cell, weights=err, minlength=2 * k).reshape(k, 2)
    splittable &= (size > 0).all(axis=1)
    return C, size, sse, splittable


def fast_xmeans(
    Z: np.ndarray,
    kmax: int,
    random_state: Any = None,
    tolerance: float = TOLERANCE,
    progress: bool | None = None,
) -> int:
    """Number of clusters by x-means with pyclustering's BIC splitting rule (vectorised, duplicates weighted).

    Args:
        Z: (n, d) encoded matrix.
        kmax: the largest number of clusters.
        random_state: None, int or numpy Generator.
        tolerance: k-means stops when no centre moves by more than this (squared Euclidean).
        progress: show a progress bar (stderr, TTY only); ``None`` = when n > 20,000.

    Returns:
        int: the number of clusters x-means ends with.
    """
    rng = check_random_state(random_state, "random_state")
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    X, counts = np.unique(Z, axis=0, return_counts=True)
    w = counts.astype(np.float64)
    if len(X) < 2:
        return 1
    # pyclustering's start: k-means++ with 2 centres (3 candidates) on all rows
    zeros = np.zeros(len(X), dtype=np.intp)
    first = _pick(rng, zeros, w, 1)[0]
    dist = np.sum((X - X[first]) ** 2, axis=1)
    cands = [c for c in (_pick(rng, zeros, w * dist, 1)[0] for _ in range(3)) if c >= 0]
    second = max(cands, key=lambda c: dist[c]) if cands else first
    centers = X[[first, second]]
    bar = _bar(progress, n, kmax)
    try:
        while len(centers) <= kmax:
            labels, centers, wce = _kmeans(X, w, centers, tolerance)
            k = len(centers)
            size = np.bincount(labels, weights=w, minlength=k)
            C, csize, csse, splittable = _trial_splits(X, w, labels, k, rng, tolerance)
            parent = bic_score(size[:, None], wce, d)
            child = bic_score(csize, csse.sum(axis=1), d)
            split = splittable & (parent < child)
            # splits are granted in cluster order while free centres remain
            split &= np.cumsum(split) <= kmax - k
            if not split.any():
                break
            parts = [np.where(split[:, None], C[:, 0], centers)[:, None, :], C[:, 1][:, None, :]]
            stacked = np.concatenate(parts, axis=1).reshape(-1, d)
            keep = np.repeat(np.ones(k, dtype=bool), 2)
            keep[1::2] = split
            centers = stacked[keep]
            bar.update(len(centers) - bar.n)
        labels, centers, _ = _kmeans(X, w, centers, tolerance)
    finally:
        bar.close()
    return int(len(centers))


class _NoBar:
    n = 0

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(progress: bool | None, n: int, kmax: int) -> Any:
    show = n > 20_000 if progress is None else bool(progress)
    if not (show and sys.stderr.isatty()):
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=kmax, desc="x-means (clusters)", file=sys.stderr, leave=False)
