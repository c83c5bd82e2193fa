"""Clustering back-ends for subgroup discovery.

``"slink"`` is single linkage computed from the Euclidean minimum spanning tree: mlpack's dual-tree Borůvka
(``mst="mlpack"``, the ``[fast]`` extra; :mod:`.mst`) or scikit-learn's Prim (``mst="sklearn"``, O(n^2 d)
time, O(n) memory), both in scikit-learn's tree format so the cut and its cluster numbering are the same
(neither scipy's ``linkage``, which needs the n^2 distance matrix, nor pyclustering's cubic agglomerative
clustering). The full tree is built once and can be cut at any number of clusters, which the fairness-aware
choice of k uses. Automatic k is x-means (pyclustering, BIC splitting, k-means++ start with 2 centres,
``kmax = floor(sqrt(n / 2))``), as the ASDF-Dashboard does; on larger data :func:`choose_n_clusters`
first runs the vectorised copy of its rule (:mod:`.xmeans`) and keeps its answer only when it is ``kmax``.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis".
    R. Sibson, "SLINK: an optimally efficient algorithm for the single-link cluster method", The Computer
    Journal 16(1), 1973.
    D. Pelleg and A. Moore, "X-means: Extending K-means with Efficient Estimation of the Number of
    Clusters", ICML 2000 (pyclustering's implementation).
    scikit-learn ``AgglomerativeClustering`` (tree construction and the numbering of the cut's clusters).
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ..._compat import import_pyclustering
from ..._deprecation import moved_names
from ..._param_tables import SUBGROUP_PARAMS
from ..._validation import check_choice, check_random_state
from .mst import cut_tie, prim_numbered_cut, single_linkage
from .xmeans import fast_xmeans

__all__ = [
    "CLUSTERINGS",
    "HierarchicalTree",
    "ClusteringResult",
    "fit_clustering",
    "xmeans_n_clusters",
    "choose_n_clusters",
    "XMEANS_METHODS",
    "default_kmax",
    "validity_indices",
    "as_generator",
]

#: Names accepted by ``clustering=`` (besides any scikit-learn clusterer instance).
CLUSTERINGS: tuple[str, ...] = SUBGROUP_PARAMS.choices("clustering")
_HIERARCHICAL = {"slink": "single", "ward": "ward"}


def as_generator(random_state: Any) -> np.random.Generator:
    """A numpy Generator from ``None``, an int seed or a Generator (the shared check, booleans rejected)."""
    return check_random_state(random_state, "random_state")


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))


def default_kmax(n: int) -> int:
    """The reference's upper bound for automatic k: ``floor(sqrt(n / 2))`` (at least 2)."""
    return max(2, int(np.floor(np.sqrt(n / 2))))


class HierarchicalTree:
    """A full agglomerative tree (scikit-learn's ``children_`` format) that can be cut at any k.

    Args:
        children: int array (n - 1, 2); row i merges the two nodes into node ``n + i``.
        n_leaves: number of rows.
        distances: the n - 1 merge distances (increasing for single linkage), if known.
        mst_edges: for single linkage from an MST other than scikit-learn's Prim, the (n - 1, 3) MST edges
            in merge order; cuts then number their clusters as scikit-learn's Prim tree would
            (:func:`.mst.prim_numbered_cut`).
        data: the encoded matrix, kept with ``mst_edges`` to break ties of distance as Prim does.
    """

    def __init__(
        self,
        children: np.ndarray,
        n_leaves: int,
        distances: np.ndarray | None = None,
        mst_edges: np.ndarray | None = None,
        data: np.ndarray | None = None,
    ):
        self.children = np.asarray(children, dtype=np.intp)
        self.n_leaves = int(n_leaves)
        self.distances = None if distances is None else np.asarray(distances, dtype=np.float64)
        self.mst_edges = mst_edges
        self.data = data

    @classmethod
    def fit(cls, Z: np.ndarray, linkage: str = "single", mst: str = "auto") -> HierarchicalTree:
        """Build the full tree of ``Z``.

        Args:
            Z: encoded matrix.
            linkage: ``"single"`` (from the Euclidean MST, see :mod:`.mst`) or ``"ward"`` (scikit-learn).
            mst: single linkage's MST back-end, one of :data:`MST_METHODS`.
        """
        if linkage == "single":
            children, distances, edges = single_linkage(Z, mst)
            return cls(children, Z.shape[0], distances, edges, Z if edges is not None else None)
        from sklearn.cluster import AgglomerativeClustering

        model = AgglomerativeClustering(n_clusters=2, linkage=linkage, compute_full_tree=True, compute_distances=True)
        model.fit(Z)
        return cls(model.children_, Z.shape[0], model.distances_)

    def cut_is_unique(self, n_clusters: int) -> tuple[bool | None, float]:
        """Whether the cut into ``n_clusters`` clusters is unique (no tie of merge distances across it) and
        the distance of the first undone merge; ``(None, nan)`` when the distances are unknown. See
        :func:`.mst.cut_tie`."""
        if self.distances is None:
            return None, float("nan")
        return cut_tie(self.distances, n_clusters)

    def cut(self, n_clusters: int) -> np.ndarray:
        """Labels of the ``n_clusters`` clusters left after undoing the last ``n_clusters - 1`` merges.

        The clusters are numbered as scikit-learn numbers them (position of each top node in the heap that
        undoes the merges), so the labels equal ``AgglomerativeClustering(n_clusters).labels_`` (for a tree
        from another MST algorithm: whenever the cut and the undone merge distances are free of ties).
        """
        n = self.n_leaves
        if not 1 <= n_clusters <= n:
            raise ValueError(f"n_clusters must be between 1 and {n}, got {n_clusters}")
        children = self.children
        # Max-heap of node ids (negated): repeatedly replace the most recent merge by its two children.
        heap = [-(2 * n - 2)] if n > 1 else [0]
        for _ in range(n_clusters - 1):
            left, right = children[-heap[0] - n]
            heapq.heappush(heap, -int(left))
            heapq.heappushpop(heap, -int(right))
        # Leaves reach their top node through the merges that are kept (the first n - n_clusters):
        # connected components of the graph node -> child over those merges.
        kept = n - n_clusters
        parents = np.repeat(np.arange(n, n + kept), 2)
        kids = children[:kept].ravel()
        graph = coo_matrix((np.ones(len(kids), dtype=np.int8), (parents, kids)), shape=(2 * n - 1, 2 * n - 1))
        _, comp = connected_components(graph, directed=False)
        label_of_comp = np.empty(comp.max() + 1, dtype=np.intp)
        tops = -np.asarray(heap)
        label_of_comp[comp[tops]] = np.arange(len(tops))
        labels = label_of_comp[comp[:n]]
        if self.mst_edges is not None and n_clusters > 1:
            labels = prim_numbered_cut(self.mst_edges, labels, n_clusters, self.data)
        return np.asarray(labels)


@dataclass
class ClusteringResult:
    """Outcome of :func:`fit_clustering`.

    Attributes:
        labels: cluster label per row (DBSCAN/OPTICS noise keeps the label -1).
        n_clusters: number of distinct labels.
        method: the clustering name (or the estimator's class name).
        requested_k: the k asked for or found by x-means (None for density-based methods).
        tree: the hierarchical tree for "slink"/"ward" (cut it at another k for free).
        estimator: the fitted estimator, when there is one.
    """

    labels: np.ndarray
    n_clusters: int
    method: str
    requested_k: int | None
    tree: HierarchicalTree | None = None
    estimator: object = None


def xmeans_n_clusters(
    Z: np.ndarray, kmax: int | None = None, random_state: Any = None
) -> tuple[int, np.ndarray]:
    """Number of clusters by x-means (pyclustering, BIC, k-means++ start with 2 centres).

    Args:
        Z: the encoded matrix.
        kmax: the largest k allowed (default ``floor(sqrt(n / 2))``, the reference's bound).
        random_state: int, Generator or None; pyclustering gets an int seed derived from it.

    Returns:
        tuple: ``(k, labels)`` the number of x-means clusters and the x-means labels.
    """
    n = Z.shape[0]
    kmax = default_kmax(n) if kmax is None else int(kmax)
    return _pyclustering_xmeans(Z, kmax, _seed(as_generator(random_state)))


#: ``choose_n_clusters(method="auto")`` runs pyclustering while rows x columns x kmax is at most this
#: (about a second: COMPAS is 3.7e6), the vectorised x-means above (Adult: 7.6e8, pyclustering ~40 s).
XMEANS_FAST_WORK = 10**7
XMEANS_METHODS = ("auto", "pyclustering", "fast")


def choose_n_clusters(
    Z: np.ndarray, kmax: int | None = None, random_state: Any = None, method: str = "auto"
) -> int:
    """Automatic k by x-means: pyclustering's, or its rule vectorised when it reaches ``kmax``.

    ``method="pyclustering"`` is :func:`xmeans_n_clusters` (the reference; C++ core, ~38 s on Adult).
    ``method="fast"`` runs the vectorised x-means (:func:`.xmeans.fast_xmeans`: the same BIC splitting rule
    and stopping condition, its own random trial splits) and keeps its answer only when it is ``kmax``;
    below ``kmax`` (x-means stopped because no cluster of a round gained BIC by splitting, an outcome that
    depends on the random trial splits) pyclustering runs and its k is returned. Where the two can differ:
    when pyclustering's C++ core stops below ``kmax`` while the vectorised rule reaches it (e.g. 30 well
    separated Gaussian blobs, kmax 8, random_state 2: the C++ core stops at 2, pyclustering's own Python
    implementation and the vectorised rule reach 8). They agree on COMPAS (random_state 0-4: 55 = kmax)
    and Adult (156 = kmax; see ``benchmarks/subgroups.py``). ``method="auto"`` (default) is pyclustering
    while ``n * d * kmax`` is at most :data:`XMEANS_FAST_WORK` (about a second of pyclustering), "fast"
    above.
    ``random_state`` is consumed exactly as :func:`xmeans_n_clusters` consumes it, and pyclustering gets
    the same seed.

    Args:
        Z: the encoded matrix.
        kmax: the largest k allowed (default ``floor(sqrt(n / 2))``).
        random_state: int, Generator or None.
        method: ``"auto"``, ``"pyclustering"`` or ``"fast"``.

    Returns:
        int: the number of clusters.

    Raises:
        ValueError: unknown method.
    """
    check_choice(method, "method", XMEANS_METHODS)
    n = Z.shape[0]
    kmax = default_kmax(n) if kmax is None else int(kmax)
    seed = _seed(as_generator(random_state))
    if method == "fast" or (method == "auto" and n * max(Z.shape[1], 1) * kmax > XMEANS_FAST_WORK):
        k = fast_xmeans(Z, kmax, np.random.default_rng(seed))
        if k == kmax:
            return k
    k, _ = _pyclustering_xmeans(Z, kmax, seed)
    return k


def _pyclustering_xmeans(Z: np.ndarray, kmax: int, seed: int) -> tuple[int, np.ndarray]:
    import_pyclustering()
    from pyclustering.cluster.center_initializer import kmeans_plusplus_initializer
    from pyclustering.cluster.xmeans import xmeans

    n = Z.shape[0]
    # pyclustering reseeds Python's global `random`; give the caller their state back.
    state = random.getstate()
    try:
        centres = kmeans_plusplus_initializer(Z, 2, random_state=seed).initialize()
        model = xmeans(Z, centres, kmax=kmax, random_state=seed)
        model.process()
    finally:
        random.setstate(state)
    clusters = model.get_clusters()
    labels = np.full(n, -1, dtype=np.intp)
    for j, members in enumerate(clusters):
        labels[np.asarray(members, dtype=np.intp)] = j
    return len(clusters), labels


def fit_clustering(
    Z: np.ndarray,
    clustering: Any = "slink",
    n_clusters: int | None = None,
    random_state: Any = None,
    tree: HierarchicalTree | None = None,
    mst: str = "auto",
    kmax: int | None = None,
) -> ClusteringResult:
    """Cluster the encoded matrix.

    Args:
        Z: encoded matrix (rows x encoded features).
        clustering: one of :data:`CLUSTERINGS` or an unfitted scikit-learn clusterer instance (cloned; it
            must provide ``fit`` and ``labels_``).
        n_clusters: number of clusters; ``None`` = x-means (for methods that need a k).
        random_state: int, Generator or None.
        tree: a tree already built for this ``Z`` (reused for "slink"/"ward").
        mst: the MST back-end of "slink" (:data:`MST_METHODS`).
        kmax: x-means' bound when it chooses k (default ``floor(sqrt(n / 2))`` of ``Z``'s rows; a clustering
            fitted on a sample of a table passes the table's).

    Returns:
        ClusteringResult

    Raises:
        ValueError: unknown clustering name, or n_clusters given to a method that takes none.
        TypeError: an object that is not a clusterer.
    """
    rng = as_generator(random_state)
    n = Z.shape[0]
    if not isinstance(clustering, str):
        return _fit_estimator(Z, clustering, n_clusters, rng)
    if clustering not in CLUSTERINGS:
        raise ValueError(
            f"clustering must be one of {list(CLUSTERINGS)} or a scikit-learn clusterer instance, "
            f"got {clustering!r}"
        )
    if clustering == "xmeans":
        _, labels = xmeans_n_clusters(Z, kmax=n_clusters, random_state=rng)
        return ClusteringResult(labels, len(np.unique(labels)), "xmeans", n_clusters)
    if clustering in ("dbscan", "optics"):
        if n_clusters is not None:
            raise ValueError(
                f"clustering={clustering!r} finds its own number of clusters; leave n_clusters=None or pass "
                "a configured sklearn instance"
            )
        from sklearn.cluster import DBSCAN, OPTICS

        est = (DBSCAN() if clustering == "dbscan" else OPTICS()).fit(Z)
        labels = np.asarray(est.labels_, dtype=np.intp)
        return ClusteringResult(labels, len(np.unique(labels)), clustering, None, estimator=est)
    k = n_clusters
    if k is None:
        k = choose_n_clusters(Z, kmax=kmax, random_state=rng)
        k = min(max(k, 2), n)
    if clustering in _HIERARCHICAL:
        if tree is None:
            tree = HierarchicalTree.fit(Z, _HIERARCHICAL[clustering], mst)
        labels = tree.cut(k)
        return ClusteringResult(labels, k, clustering, k, tree=tree)
    if clustering == "kmeans":
        from sklearn.cluster import KMeans

        est = KMeans(n_clusters=k, n_init=10, random_state=_seed(rng)).fit(Z)
    else:  # birch
        from sklearn.cluster import Birch

        est = Birch(n_clusters=k).fit(Z)
    labels = np.asarray(est.labels_, dtype=np.intp)
    return ClusteringResult(labels, len(np.unique(labels)), clustering, k, estimator=est)


def _fit_estimator(
    Z: np.ndarray, estimator: Any, n_clusters: int | None, rng: np.random.Generator
) -> ClusteringResult:
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
        raise TypeError(
            f"clustering must be a name in {list(CLUSTERINGS)} or a scikit-learn clusterer instance "
            f"(with fit/get_params), got {type(estimator).__name__}"
        )
    from sklearn.base import clone

    est = clone(estimator)
    params = est.get_params()
    if n_clusters is not None:
        if "n_clusters" not in params:
            raise ValueError(
                f"n_clusters={n_clusters} given but {type(est).__name__} has no n_clusters parameter"
            )
        est.set_params(n_clusters=n_clusters)
    if "random_state" in params and params["random_state"] is None:
        est.set_params(random_state=_seed(rng))
    est.fit(Z)
    if not hasattr(est, "labels_"):
        raise TypeError(f"{type(est).__name__} has no labels_ after fit; it is not a clusterer")
    labels = np.asarray(est.labels_, dtype=np.intp)
    return ClusteringResult(labels, len(np.unique(labels)), type(est).__name__, n_clusters, estimator=est)


def validity_indices(
    Z: np.ndarray, labels: np.ndarray, silhouette_sample_size: int | None = 1000, random_state: Any = None
) -> dict[str, float]:
    """Classical cluster validity indices: silhouette (sampled), Davies-Bouldin, Calinski-Harabasz.

    Davies-Bouldin and Calinski-Harabasz are computed from centroids in O(n d + k^2 d) (as scikit-learn
    defines them, without its per-cluster distance loops); the silhouette is O(m^2) on a random sample of
    ``m = silhouette_sample_size`` rows (``None``: all rows, O(n^2)). NaN when undefined (fewer than 2 or as
    many clusters as rows).

    References:
        D. L. Davies and D. W. Bouldin, "A Cluster Separation Measure", IEEE TPAMI 1(2), 1979.
        T. Calinski and J. Harabasz, "A dendrite method for cluster analysis", Comm. in Statistics 3(1), 1974.
        P. J. Rousseeuw, "Silhouettes", J. Comput. Appl. Math. 20, 1987.
    """
    from sklearn.metrics import silhouette_score

    n = len(labels)
    _, idx_of = np.unique(labels, return_inverse=True)
    k = int(idx_of.max()) + 1
    out = {"silhouette": np.nan, "davies_bouldin": np.nan, "calinski_harabasz": np.nan}
    if not 2 <= k <= n - 1:
        return out
    rng = as_generator(random_state)
    if silhouette_sample_size is None or silhouette_sample_size >= n:
        rows = np.arange(n)
    else:
        rows = np.sort(rng.choice(n, size=int(silhouette_sample_size), replace=False))
    sub = idx_of[rows]
    if 2 <= len(np.unique(sub)) <= len(sub) - 1:
        out["silhouette"] = float(silhouette_score(Z[rows], sub))
    sizes = np.bincount(idx_of, minlength=k).astype(np.float64)
    centroids = np.zeros((k, Z.shape[1]))
    for j in range(Z.shape[1]):  # per-column bincount: O(n) each, no per-cluster pass
        centroids[:, j] = np.bincount(idx_of, weights=Z[:, j], minlength=k)
    centroids /= sizes[:, None]
    diff = Z - centroids[idx_of]
    dist = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    scatter = np.bincount(idx_of, weights=dist, minlength=k) / sizes
    sq = np.einsum("ij,ij->i", centroids, centroids)
    cdist = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * centroids @ centroids.T, 0.0))
    np.fill_diagonal(cdist, 0.0)
    if np.allclose(scatter, 0.0):
        out["davies_bouldin"] = 0.0
    else:
        cdist[cdist <= 1e-9] = np.inf  # identical centroids (the Gram form leaves ~1e-8, not 0)
        ratio = (scatter[:, None] + scatter[None, :]) / cdist
        out["davies_bouldin"] = float(np.mean(np.max(ratio, axis=1)))
    within = float(np.einsum("ij,ij->", diff, diff))
    mean = Z.mean(axis=0)
    between = float(np.sum(sizes * np.sum((centroids - mean) ** 2, axis=1)))
    out["calinski_harabasz"] = 1.0 if within == 0 else between * (n - k) / (within * (k - 1))
    return out


# a name whose home is another module: still importable from here, with a DeprecationWarning
__getattr__ = moved_names(__name__, {"MST_METHODS": "aif360_subjective.detectors.asdf.mst"})
