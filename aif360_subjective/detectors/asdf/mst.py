"""Exact single linkage from a Euclidean minimum spanning tree (MST), in scikit-learn's ``children_`` format.

Single linkage is the MST with its edges merged by increasing weight. scikit-learn builds it with Prim's
O(n^2 d) loop; mlpack's dual-tree Borůvka ``emst`` finds the same exact tree far faster on low-to-medium
dimensional data. This module turns an MST into *exactly* the merges scikit-learn would produce, so that
:meth:`~aif360_subjective.detectors.asdf.clustering.HierarchicalTree.cut` numbers the clusters as before:

* scikit-learn's Prim (``mst_linkage_core``) starts at row 0 and emits, per visited row, the pair
  (previously visited row, newly visited row) with the new row's distance to the tree; the pairs are sorted
  stably by distance and merged by union-find (``_single_linkage_label``). The cluster holding the *earlier*
  row is the left child. Prim completes a single-linkage cluster before it leaves it, so with the MST rooted
  at row 0 the left child of every merge is the side holding the edge's parent end, and the new row is the
  edge's child end. Ties are broken as Prim's visiting order does (the leaf order of that dendrogram).
* Duplicate rows are collapsed before the MST (fewer points, no zero-length edges inside the tree search);
  Prim visits a set of duplicates at once, lowest row first, so each set becomes a chain of zero-length
  merges (lowest row first) placed before every positive merge, in Prim's order of the sets.
* Edge weights are recomputed as scikit-learn computes them (``sqrt`` of the squared differences summed left
  to right) so that the order of near-equal weights follows the same rounding.

When two MST weights are equal the tree (and a k-cut falling between them) is not unique; see
:func:`cut_tie`, which the report uses to say so.

References:
    W. B. March, P. Ram and A. G. Gray, "Fast Euclidean Minimum Spanning Tree: Algorithm, Analysis, and
    Applications", KDD 2010 (dual-tree Borůvka, mlpack's ``emst``).
    R. R. Curtin et al., "mlpack 4: a fast, header-only C++ machine learning library", JOSS 8(82), 2023.
    D. Müllner, "Modern hierarchical, agglomerative clustering algorithms", arXiv:1109.2378, 2011
    (MST-LINKAGE-CORE, scikit-learn's Prim).
    J. C. Gower and G. J. S. Ross, "Minimum spanning trees and single linkage cluster analysis",
    Applied Statistics 18(1), 1969.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from typing import Any

import numpy as np
from scipy.cluster.hierarchy import leaves_list
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order

from ..._param_tables import SUBGROUP_PARAMS
from ..._validation import check_choice

__all__ = [
    "MST_METHODS",
    "TIE_RTOL",
    "TIE_ATOL",
    "SLOW_NOTICE_ROWS",
    "AUTO_PRIM_WORK",
    "AUTO_PRIM_ROWS",
    "TIE_BREAK_BUDGET",
    "prim_numbered_cut",
    "mlpack_available",
    "resolve_mst",
    "euclidean_mst",
    "single_linkage_from_mst",
    "single_linkage",
    "cut_tie",
]

log = logging.getLogger(__name__)

#: Values accepted by ``mst=``: ``"auto"`` (mlpack on large data when installed, else scikit-learn),
#: ``"mlpack"``, ``"sklearn"``.
MST_METHODS: tuple[str, ...] = SUBGROUP_PARAMS.choices("mst")
#: Two merge distances closer than ``TIE_ATOL + TIE_RTOL * larger`` count as tied (the two MST algorithms
#: compute the same distance with different rounding, ~1e-16 relative; 1e-9 leaves a wide margin).
TIE_RTOL = 1e-9
TIE_ATOL = 1e-12
#: scikit-learn's Prim above this many rows logs a notice naming the ``[fast]`` extra.
SLOW_NOTICE_ROWS = 10_000
#: kd-tree leaf size of mlpack's emst (speed only; the tree is exact whatever the leaf size).
EMST_LEAF_SIZE = 5
#: Distinct rows from which mlpack's ``emst`` runs in a child process. It holds the GIL for its whole run, so
#: in this process it stalls the x-means and the pattern mining that run beside it in threads; the child imports
#: numpy and mlpack only (about 0.5 s). ``benchmarks/mst_child.py`` on Adult: x-means and the MST at once 9.1 s
#: with the MST in process, 7.7 s in the child (4.1 s and 5.0 s alone).
EMST_CHILD_ROWS = 10_000
# The child's start: on Linux it asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG), and exits if
# the parent is already gone, so that a SIGTERM or SIGKILL of the parent never leaves it running alone; elsewhere
# this is skipped. The points come on stdin and the edges go to stdout (no temporary folder to orphan).
_EMST_PROLOGUE = (
    "import io, os, signal, sys\n"
    "try:\n"
    "    import ctypes\n"
    "    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)\n"
    "except (OSError, AttributeError):\n"
    "    pass\n"
    "if os.getppid() != int(sys.argv[2]):\n"
    "    sys.exit(1)\n"
)
# the child's work: read the points, write mlpack's edges
_EMST_BODY = (
    "import numpy as np\n"
    "from mlpack import emst\n"
    "U = np.load(io.BytesIO(sys.stdin.buffer.read()))\n"
    "out = io.BytesIO()\n"
    "np.save(out, emst(input_=U, leaf_size=int(sys.argv[1]))['output'])\n"
    "sys.stdout.buffer.write(out.getvalue())\n"
)
#: Work allowed per cut (row pairs x columns) to find Prim's choice among clusters at equal distances.
TIE_BREAK_BUDGET = 2 * 10**9
#: ``mst="auto"`` runs scikit-learn's Prim (the reference, no tie to resolve) while n^2 d is below this
#: (about a second): COMPAS (6,172 x 11) is there, Adult (48,842 x 100) is 240 times above.
AUTO_PRIM_WORK = 10**9
#: ``mst="auto"`` also runs Prim up to this many rows, whatever the columns: there Prim costs about 0.03 s per
#: encoded column, while mlpack's kd-trees lose their pruning as the columns grow (``benchmarks/wide_tables.py``:
#: 20,000 rows x 78 encoded columns, mlpack 293 s, Prim 7 s). It equals the default ``cluster_sample``, so the
#: default analysis of any table runs Prim on at most this many rows.
AUTO_PRIM_ROWS = 10_000
#: Progress bars (stderr, TTY only) above this many rows.
PROGRESS_ROWS = 20_000


def mlpack_available() -> bool:
    """True when mlpack's Python bindings (the ``[fast]`` extra) can be imported."""
    try:
        import mlpack  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_mst(mst: str, n_rows: int, n_cols: int = 1) -> str:
    """The MST back-end to run: ``"auto"`` picks scikit-learn's Prim on small data (n^2 d below
    :data:`AUTO_PRIM_WORK`, about a second, or at most :data:`AUTO_PRIM_ROWS` rows), else mlpack when installed.

    Raises:
        ValueError: unknown name.
        ImportError: ``"mlpack"`` asked for but not installed.
    """
    check_choice(mst, "mst", MST_METHODS)
    if mst == "mlpack" and not mlpack_available():
        raise ImportError("mst='mlpack' needs mlpack: pip install 'aif360-subjective[fast]'")
    if mst == "auto":
        small = n_rows <= AUTO_PRIM_ROWS or n_rows * n_rows * max(n_cols, 1) <= AUTO_PRIM_WORK
        available = mlpack_available()
        mst = "mlpack" if not small and available else "sklearn"
        # the install advice only where mlpack is missing: with it installed, Prim was chosen as the faster
        if mst == "sklearn" and n_rows > SLOW_NOTICE_ROWS and not available:
            log.warning(
                "single linkage on %d rows with scikit-learn's O(n^2) Prim; "
                "pip install 'aif360-subjective[fast]' (mlpack) for the fast exact MST",
                n_rows,
            )
    return mst


def _row_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Euclidean distance of matching rows, summed column by column as scikit-learn's DistanceMetric does
    (d vector operations; the same left-to-right rounding as its C loop)."""
    return np.asarray(np.sqrt(_sq_sum(A, B)))


def euclidean_mst(U: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact Euclidean MST of distinct points by mlpack's dual-tree Borůvka.

    Args:
        U: (m, d) float matrix of distinct rows.

    Returns:
        tuple: ``(a, b, w)`` the m - 1 edges (row indices into ``U``) and their weights.
    """
    m = len(U)
    if m < 2:
        return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0)
    U = np.ascontiguousarray(U, dtype=np.float64)
    out = _emst_in_child(U) if m >= EMST_CHILD_ROWS else None
    if out is None:
        from mlpack import emst

        # leaf_size does not change the tree; 5 was 38% faster than mlpack's default 1 on Adult (7.9 s -> 4.9 s)
        out = emst(input_=U, leaf_size=EMST_LEAF_SIZE)["output"]
    a = out[:, 0].astype(np.intp)
    b = out[:, 1].astype(np.intp)
    return a, b, _row_distances(U[a], U[b])


def _emst_in_child(U: np.ndarray) -> np.ndarray | None:
    """mlpack's ``emst`` output for ``U`` computed in a child Python process (the same library on the same
    points: the same edges), or None when the child cannot run (the caller then computes it here)."""
    if not sys.executable:  # an embedded interpreter that cannot name itself: no child
        return None
    points = io.BytesIO()
    np.save(points, U)
    try:
        # subprocess.run kills the child on any exception here (Ctrl-C, the command line's SIGTERM)
        done = subprocess.run([sys.executable, "-c", _EMST_PROLOGUE + _EMST_BODY, str(EMST_LEAF_SIZE),
                               str(os.getpid())], input=points.getvalue(), check=True, capture_output=True)
        out: np.ndarray = np.load(io.BytesIO(done.stdout))
        return out
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        log.warning("mlpack's emst in a child process failed (%s); computing it in this process", exc)
        return None


def _union_find_merges(edges: np.ndarray) -> np.ndarray:
    """scikit-learn's union-find labelling of sorted (left, right, weight) rows (scipy linkage format:
    left cluster, right cluster, weight, size)."""
    edges = np.ascontiguousarray(edges, dtype=np.float64)
    try:  # scikit-learn's own (Cython) labelling, the one AgglomerativeClustering uses
        from sklearn.cluster._hierarchical_fast import single_linkage_label
    except ImportError:  # private module moved: the same union-find, in Python
        return _union_find_python(edges)
    return np.asarray(single_linkage_label(edges))


def _union_find_python(edges: np.ndarray) -> np.ndarray:
    m = len(edges)
    parent = list(range(2 * m + 1))
    size = [1] * (m + 1) + [0] * m
    out = np.empty((m, 4))

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for i, (left, right, w) in enumerate(edges.tolist()):  # one pass over the n - 1 merges
        a, b = find(int(left)), find(int(right))
        new = m + 1 + i
        parent[a] = parent[b] = new
        size[new] = size[a] + size[b]
        out[i] = (a, b, w, size[new])
    return out


def single_linkage_from_mst(
    n: int, root: int, a: np.ndarray, b: np.ndarray, w: np.ndarray, rep: np.ndarray, group: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merges of the n rows in scikit-learn's order and orientation, from the MST of the distinct rows.

    Args:
        n: number of rows.
        root: index (into the distinct rows) of the distinct row holding row 0, where Prim starts.
        a, b, w: MST edges between distinct rows and their weights.
        rep: for each distinct row, its lowest row index.
        group: for each row, the index of its distinct row.

    Returns:
        tuple: ``(children, distances, edges)``: int (n - 1, 2) and float (n - 1,), as scikit-learn's
        ``children_`` and ``distances_``, and the (n - 1, 3) MST edges between rows (parent end, child end,
        weight) in merge order.
    """
    m = len(rep)
    if m > 1:
        # Root the tree at Prim's start: each edge becomes (parent end, child end).
        graph = coo_matrix((np.ones(m - 1), (a, b)), shape=(m, m)).tocsr()
        _, pred = breadth_first_order(graph, root, directed=False, return_predecessors=True)
        a_is_parent = pred[b] == a
        parent = np.where(a_is_parent, a, b)
        child = np.where(a_is_parent, b, a)
        # Prim's visiting order = leaf order of the dendrogram whose left child holds the parent end.
        order = np.argsort(w, kind="mergesort")
        Zu = _union_find_merges(np.column_stack([parent[order], child[order], w[order]]))
        visit = np.empty(m, dtype=np.intp)
        visit[leaves_list(Zu)] = np.arange(m)
        # Equal weights in Prim's order of their new (child) end, as the stable sort of Prim's output.
        order = np.lexsort((visit[child], w))
        pos_edges = np.column_stack([rep[parent[order]], rep[child[order]], w[order]])
    else:
        visit = np.zeros(1, dtype=np.intp)
        pos_edges = np.empty((0, 3))
    # Zero-length chains of duplicates: sets in Prim's order, rows in increasing order inside a set.
    rows = np.lexsort((np.arange(n), visit[group]))
    same = group[rows[1:]] == group[rows[:-1]]
    zero_edges = np.column_stack([rows[:-1][same], rows[1:][same], np.zeros(int(same.sum()))])
    edges = np.vstack([zero_edges, pos_edges])
    merged = _union_find_merges(edges)
    return merged[:, :2].astype(np.intp), merged[:, 2].copy(), edges


def single_linkage(
    Z: np.ndarray, mst: str = "auto", progress: bool | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Single-linkage merges of ``Z`` (scikit-learn's ``children_`` and ``distances_``).

    Args:
        Z: (n, d) encoded matrix.
        mst: ``"auto"``, ``"mlpack"`` or ``"sklearn"`` (see :data:`MST_METHODS`).
        progress: show a progress bar (stderr, TTY only); ``None`` = when n > 20,000.

    Returns:
        tuple: ``(children, distances, edges)``; ``edges`` (the MST between rows in merge order, see
        :func:`single_linkage_from_mst`) is None for scikit-learn's Prim.
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n = len(Z)
    method = resolve_mst(mst, n, Z.shape[1])
    show = n > PROGRESS_ROWS if progress is None else bool(progress)
    with _steps(show, "single linkage", 3 if method == "mlpack" else 1) as bar:
        if method == "sklearn":
            from sklearn.cluster import AgglomerativeClustering

            model = AgglomerativeClustering(
                n_clusters=2, linkage="single", compute_full_tree=True, compute_distances=True
            ).fit(Z)
            bar.update()
            children = np.asarray(model.children_, dtype=np.intp)
            return children, np.asarray(model.distances_, dtype=np.float64), None
        # np.unique's first occurrence is the lowest row index of each set of duplicates.
        U, rep, group = np.unique(Z, axis=0, return_index=True, return_inverse=True)
        group = group.ravel()
        bar.update()
        a, b, w = euclidean_mst(U)
        bar.update()
        out = single_linkage_from_mst(n, int(group[0]), a, b, w, rep, group)
        bar.update()
        return out


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _steps(show: bool, desc: str, total: int) -> Any:
    """A tqdm bar over the steps on stderr when asked and stderr is a terminal."""
    import sys

    if not (show and sys.stderr.isatty()):
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False)


def cut_tie(distances: np.ndarray, n_clusters: int) -> tuple[bool, float]:
    """Whether the cut into ``n_clusters`` clusters is unique, and the merge distance where it falls.

    The k-cut keeps the n - k shortest merges. It is unique unless the last kept and the first undone merge
    have equal distances (within ``TIE_ATOL + TIE_RTOL * larger``): then another MST (or another order of
    the tied merges) gives other, equally valid clusters. Zero-length merges (duplicate rows) only matter
    when the cut falls at distance 0.

    Args:
        distances: the n - 1 merge distances in increasing order.
        n_clusters: k in [1, n].

    Returns:
        tuple: ``(cut_is_unique, cut_distance)``; ``cut_distance`` is the distance of the first undone merge
        (NaN for k = 1, where nothing is undone; the cut into n singletons is always unique).
    """
    n = len(distances) + 1
    if not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters must be between 1 and {n}, got {n_clusters}")
    if n_clusters == 1:
        return True, float("nan")
    undone = float(distances[n - n_clusters])
    if n_clusters == n:
        return True, undone
    kept = float(distances[n - n_clusters - 1])
    tied = undone - kept <= TIE_ATOL + TIE_RTOL * max(abs(undone), abs(kept))
    return not tied, undone


def prim_numbered_cut(
    edges: np.ndarray, blocks: np.ndarray, n_clusters: int, Z: np.ndarray | None = None
) -> np.ndarray:
    """Number the clusters of a cut as scikit-learn numbers the cut of *its* Prim tree.

    scikit-learn numbers the k clusters by undoing its last k - 1 merges with a heap of node ids; node ids
    follow its merge order, which breaks ties of distance by Prim's visiting order. With a unique cut,
    Prim visits every cluster of the cut in one stretch, so that order only needs the order in which Prim
    visits the clusters: Prim on the k clusters joined by the k - 1 undone MST edges, starting from the
    cluster of row 0. When several clusters are at the same smallest distance, Prim enters the one holding
    the lowest row at that distance from the visited rows; with ``Z`` that row is found (distances computed
    as scikit-learn computes them), without it the MST edge first in merge order stands in. The clusters'
    own ids are ordered by their last internal merge (then by that visiting order); the undone merges are
    the union-find of the visiting path, as scikit-learn's are. Given ``Z``, exact (up to the float rounding
    of different pairs at mathematically equal distances) while the search for Prim's choices among tied
    clusters stays within :data:`TIE_BREAK_BUDGET`; beyond it, or without ``Z``, exact when Prim never has
    to choose between clusters at equal distances. Only the numbering can differ, never the clusters.

    Args:
        edges: (n - 1, 3) MST edges between rows in merge order (see :func:`single_linkage_from_mst`).
        blocks: cluster index (0..k-1) of every row in the cut.
        n_clusters: k.
        Z: the encoded matrix (to break ties of distance as Prim does), or None.

    Returns:
        numpy.ndarray: the cluster label of every row (0..k-1).
    """
    import heapq

    n = len(blocks)
    k = int(n_clusters)
    if k == 1:
        return np.zeros(n, dtype=np.intp)
    a = edges[:, 0].astype(np.intp)
    b = edges[:, 1].astype(np.intp)
    w = edges[:, 2]
    kept, undone = slice(0, n - k), slice(n - k, n - 1)
    order, attach = _prim_over_clusters(blocks, k, a[undone], b[undone], w[undone], Z)
    visit = np.empty(k, dtype=np.intp)
    visit[order] = np.arange(k)
    # Ids of the clusters: a single row is its own id; a larger cluster is ordered by its last merge
    size = np.bincount(blocks, minlength=k)
    last = np.full(k, -np.inf)
    np.maximum.at(last, blocks[a[kept]], w[kept])
    min_row = np.full(k, n, dtype=np.intp)
    np.minimum.at(min_row, blocks, np.arange(n))
    internal = size > 1
    rank = np.empty(k, dtype=np.float64)
    rank[~internal] = min_row[~internal]
    idx = np.flatnonzero(internal)
    rank[idx[np.lexsort((visit[idx], last[idx]))]] = n + np.arange(len(idx))
    # The undone merges: union-find of Prim's path over the clusters, sorted stably by distance
    path = np.column_stack([np.arange(k - 1), np.arange(1, k), attach[1:]])
    path = path[np.argsort(path[:, 2], kind="mergesort")]
    top = _union_find_merges(path)[:, :2].astype(np.intp)
    # node ids: path leaf j = cluster order[j]; path node k + i = undone merge i (above every cluster)
    key = np.concatenate([rank[order], 2.0 * n + np.arange(k - 1)])
    heap_nodes = [(-key[2 * k - 2], 2 * k - 2)]
    for _ in range(k - 1):  # scikit-learn's _hc_cut on the k-node tree, comparing the mapped ids
        left, right = top[heap_nodes[0][1] - k]
        heapq.heappush(heap_nodes, (-key[left], int(left)))
        heapq.heappushpop(heap_nodes, (-key[right], int(right)))
    label_of_block = np.empty(k, dtype=np.intp)
    label_of_block[order[[node for _, node in heap_nodes]]] = np.arange(k)
    return np.asarray(label_of_block[blocks])


def _prim_over_clusters(
    blocks: np.ndarray, k: int, ea: np.ndarray, eb: np.ndarray, ew: np.ndarray, Z: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Prim's visiting order of the k clusters (and each one's distance when entered) along the k - 1
    undone MST edges ``(ea, eb, ew)`` between rows (``eb`` = the end away from row 0), from the cluster of
    row 0."""
    import heapq

    ba, bb = blocks[ea], blocks[eb]
    adj: list[list[int]] = [[] for _ in range(k)]
    for e, (u, v) in enumerate(zip(ba.tolist(), bb.tolist(), strict=True)):  # k - 1 edges, not rows
        adj[u].append(e)
        adj[v].append(e)
    visited = np.zeros(k, dtype=bool)
    order = np.empty(k, dtype=np.intp)
    attach = np.empty(k)
    rows_visited = np.zeros(len(blocks), dtype=bool)
    budget = [TIE_BREAK_BUDGET]
    heap: list[tuple[float, int, int]] = [(0.0, -1, int(blocks[0]))]
    pos = 0
    while heap:
        d, e0, blk = heapq.heappop(heap)
        if visited[blk]:
            continue
        if Z is not None and pos > 0:
            try:
                winner = _tie_winner(
                    blk, d, int(eb[e0]), heap, blocks, adj, ba, bb, ew, visited, rows_visited, Z, budget
                )
            except _OverBudget:
                log.info("Prim's order of tied clusters not resolved (over budget): numbering may differ")
                Z, winner = None, blk  # from here on, the MST's own order stands in

            if winner != blk:  # the popped cluster waits for its turn
                heapq.heappush(heap, (d, e0, blk))
                blk = winner
        visited[blk] = True
        rows_visited[blocks == blk] = True
        order[pos], attach[pos] = blk, d
        pos += 1
        for e in adj[blk]:
            other = int(bb[e]) if int(ba[e]) == blk else int(ba[e])
            if not visited[other]:
                heapq.heappush(heap, (float(ew[e]), e, other))
    return order, attach


def _tie_winner(
    blk: int,
    d: float,
    entry: int,
    heap: list[tuple[float, int, int]],
    blocks: np.ndarray,
    adj: list[list[int]],
    ba: np.ndarray,
    bb: np.ndarray,
    ew: np.ndarray,
    visited: np.ndarray,
    rows_visited: np.ndarray,
    Z: np.ndarray,
    budget: list[int],
    chunk: int = 512,
) -> int:
    """The cluster scikit-learn's Prim enters next: the one holding the lowest row at distance exactly
    ``d`` (the smallest distance to the visited rows) from a visited row.

    Only clusters reachable from the visited ones through edges of weight <= d can hold such a row (any
    path of the tree between them has its largest edge <= the distance), and only rows below ``entry`` (a
    row of ``blk`` at distance d) can beat ``blk``."""
    cand = {blk}
    frontier = [blk] + [b for w_, _, b in heap if w_ == d and not visited[b]]
    cand.update(frontier)
    while frontier:
        u = frontier.pop()
        for e in adj[u]:
            if ew[e] > d:
                continue
            other = int(bb[e]) if int(ba[e]) == u else int(ba[e])
            if not visited[other] and other not in cand:
                cand.add(other)
                frontier.append(other)
    if len(cand) == 1:
        return blk
    others = list(cand - {blk})
    hit = _first_row_at(np.flatnonzero(np.isin(blocks[:entry], others)), d, rows_visited, Z, budget, chunk)
    if hit is None:
        return blk
    # blk still wins if it holds a row at distance d below the other cluster's
    own = _first_row_at(np.flatnonzero(blocks[:hit] == blk), d, rows_visited, Z, budget, chunk)
    return blk if own is not None else int(blocks[hit])


def _first_row_at(
    rows: np.ndarray, d: float, rows_visited: np.ndarray, Z: np.ndarray, budget: list[int], chunk: int
) -> int | None:
    """The first of ``rows`` (increasing) whose smallest distance to the visited rows is exactly ``d``,
    computed as scikit-learn's DistanceMetric computes it; None if there is none. No row is closer than d,
    so a row qualifies when some visited row is within d: the Gram form finds the pairs within d (with a
    margin), the exact column-by-column sum confirms them. ``budget`` (a one-item list) counts down the
    pair x column operations allowed; :class:`_OverBudget` when they run out."""
    if len(rows) == 0:
        return None
    V = Z[rows_visited]
    v_rows = np.flatnonzero(rows_visited)
    v2 = np.einsum("ij,ij->i", V, V)
    margin = (d * (1.0 + 1e-6)) ** 2 + 1e-9
    chunk = max(1, min(chunk, (1 << 22) // max(len(V), 1)))  # at most 4M pairs (32 MB) at a time
    for i in range(0, len(rows), chunk):
        idx = rows[i : i + chunk]
        budget[0] -= len(idx) * len(V) * Z.shape[1]
        if budget[0] < 0:
            raise _OverBudget
        R = Z[idx]
        sq = R @ V.T
        sq *= -2.0
        sq += v2[None, :]
        sq += np.einsum("ij,ij->i", R, R)[:, None]
        near_r, near_v = np.nonzero(sq <= margin)
        if len(near_r) == 0:
            continue
        exact = np.sqrt(_sq_sum(R[near_r], Z[v_rows[near_v]]))
        ok = near_r[exact == d]
        if len(ok):
            return int(idx[ok.min()])
    return None


class _OverBudget(Exception):
    """The exact tie-break would cost more than :data:`TIE_BREAK_BUDGET`."""


def _sq_sum(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    acc = np.zeros(len(A))
    for j in range(A.shape[1]):  # left to right, as scikit-learn's DistanceMetric
        diff = A[:, j] - B[:, j]
        acc += diff * diff
    return acc
