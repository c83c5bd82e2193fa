"""Candidate clustering models of the validated clusterings: algorithms, feature views and numbers of clusters.

A **model** is one algorithm fitted on one **view** (a set of feature columns) at one k. The validated clusterings
(:mod:`.validated`) fit every model, test every cluster of every model in one max-T family and select the model
with the largest fairness validation index.

Algorithms (:data:`ALGORITHMS`):

* ``"slink"``: the seed's single linkage with x-means' k (:func:`~.clustering.fit_clustering`, reused as is);
* ``"kmeans"``: scikit-learn's ``KMeans`` (k-means++, ``n_init=3``);
* ``"ward"``: scikit-learn's ``AgglomerativeClustering(linkage="ward")``;
* ``"gmm"``: scikit-learn's ``GaussianMixture`` (full covariances on views of at most 10 encoded columns,
  diagonal above), each row in the component of its largest posterior;
* ``"gmm_core"``: the same mixture fitted on the view's standardized columns, each component's **dense core**:
  the rows whose posterior of it is at least 0.5 (a row has at most one such component); the rows of no core form
  one cell, id -1;
* ``"hdbscan"``: scikit-learn's ``HDBSCAN`` on the view's standardized columns (``min_cluster_size``
  :data:`HDBSCAN_MIN_SHARE` of the fitted rows, at least 10; ``min_samples`` :data:`HDBSCAN_MIN_SAMPLES`); it
  finds its own k, and its noise rows form one cell of the partition, id -1. Its clusters are regions denser than
  their surroundings, whatever their shape, where a k-means cell of a dense region's size cuts across it;
* ``"scan"``: circular scan windows (Kulldorff's spatial scan): on the view's standardized columns (each less
  its mean, over its standard deviation, so that a window is a ball in the columns' own units), k-means places
  ``2k`` centres, and each window holds the rows within the distance of the ``ceil(n / k)``-th nearest row of
  its centre (ties included). The windows overlap (each row lies in about two), so they are not a partition:
  they have the shape of a region that is a ball in a few columns, which the cells of a partition cut across (a
  k-means cell of a region's size shares about half of its rows with it; a window centred near it shares more).

Views (:data:`VIEWS`): ``"encoded"`` (every column, one-hot and min-max scaled as the seed encodes them),
``"numeric"`` (every numeric column), ``"pairs"`` (each pair of numeric columns, one model each), ``"triples"``
(each three numeric columns) or a list of column names (a view the user names). Each view is encoded by
:func:`~..encoding.encode_for_clustering`. An algorithm named alone is fitted on its default views
(:func:`default_views`): ``"numeric"`` and ``"pairs"``; for ``"scan"`` ``"pairs"`` and, when the table has at most
:data:`MAX_TRIPLE_COLUMNS` numeric columns (120 triples), ``"triples"``.

**Bounded time.** k-means is fitted on at most ``cluster_sample`` rows (10,000 by default), the Gaussian mixtures
on at most :data:`MIXTURE_FIT_ROWS` (5,000) of them, and they label every row by their own ``predict``; ward,
HDBSCAN and single linkage, whose cost grows as the square of the rows, are fitted on at most
:data:`QUADRATIC_FIT_ROWS` rows, and every other row joins the
cluster of its nearest fitted row (:func:`~.cluster_sample.assign_to_nearest`); the scan's centres are placed on
at most :data:`SCAN_CENTRE_ROWS` rows (``50 k`` when larger), and its windows hold rows of the whole table. The
samples are drawn with the analysis' ``random_state``; every model gets its own seed from it, so the models are
reproducible.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis", CIKM
    workshops 2022 (future work: "testing more clustering algorithms").
    F. Pedregosa et al., "Scikit-learn: Machine Learning in Python", JMLR 12, 2011 (KMeans,
    AgglomerativeClustering, GaussianMixture, HDBSCAN).
    R. J. G. B. Campello, D. Moulavi and J. Sander, "Density-based clustering based on hierarchical density
    estimates", PAKDD 2013 (HDBSCAN).
    M. Kulldorff, "A spatial scan statistic", Communications in Statistics - Theory and Methods 26(6), 1997
    (circular windows of varying size, their maximum tested by permutation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..encoding import encode_for_clustering
from .cluster_sample import assign_to_nearest, sample_rows
from .clustering import default_kmax, fit_clustering

__all__ = ["ALGORITHMS", "CORE_POSTERIOR", "DEFAULT_KS", "DEFAULT_MODELS", "HDBSCAN_MIN_SAMPLES", "HDBSCAN_MIN_SHARE",
           "MAX_TRIPLE_COLUMNS", "MIXTURE_FIT_ROWS", "QUADRATIC_FIT_ROWS", "SCAN_CENTRE_ROWS", "VIEWS",
           "ClusteringModel", "core_labels", "default_ks", "default_views", "fit_model", "expand_models",
           "scan_windows", "standardize", "view_matrix"]

#: The algorithms a model may use.
ALGORITHMS: tuple[str, ...] = ("slink", "kmeans", "ward", "gmm", "gmm_core", "hdbscan", "scan")
#: The views named by a word (any other view is a list of column names).
VIEWS: tuple[str, ...] = ("encoded", "numeric", "pairs", "triples")
#: Most numeric columns whose triples are a default view of ``"scan"`` (10 columns: 120 triples).
MAX_TRIPLE_COLUMNS = 10
#: The numbers of clusters tried by default (those the rows allow, :func:`default_ks`).
DEFAULT_KS: tuple[int, ...] = (5, 10, 20, 40)
#: The default models: the Gaussian mixture's dense cores on every numeric column and on each pair of them, at
#: each default k (``benchmarks/validated_clusterings.py --levers gmm_core --explain``: on regions the features
#: make dense they were first under ``kind="all"`` in 15 of 20 tables, 15 of the 16 whose region some region of
#: the features can describe, where k-means was first in 3 of the first 10; the guide gives the null tables and
#: Adult's time. k-means was the default before; the scan windows found fewer, their larger family costing more
#: power than their shape gains).
DEFAULT_MODELS: tuple[str, ...] = ("gmm_core",)
#: The least posterior of a row of a ``"gmm_core"`` core (:func:`core_labels`).
CORE_POSTERIOR = 0.5
#: HDBSCAN's ``min_cluster_size`` as a share of the rows it is fitted on (at least 10 rows): 1 %, so that a dense
#: region of 3 % of the rows can be a cluster of its own.
HDBSCAN_MIN_SHARE = 0.01
#: HDBSCAN's ``min_samples``: the neighbours of a row's core distance. Few, so that the density is local and a
#: tight region on top of a broad one stands out (with ``min_samples = min_cluster_size``, scikit-learn's default,
#: the region's rows had the core distances of the broad mode around it and were merged into it or left noise).
HDBSCAN_MIN_SAMPLES = 5
#: Most rows ward, HDBSCAN and single linkage are fitted on (their cost grows as the square of the rows).
QUADRATIC_FIT_ROWS = 3000
#: Most rows the Gaussian mixtures (``"gmm"``, ``"gmm_core"``) are fitted on: a full-covariance EM on 10,000 rows
#: made the default models 2.45 times today's ASDF time on Adult; a component of 1 % of 5,000 rows still has 50.
MIXTURE_FIT_ROWS = 5000
#: Most rows the scan's k-means places its centres on (more when 2k centres need 25 rows each).
SCAN_CENTRE_ROWS = 2000
#: The views of a model named by its algorithm alone (``"scan"``: :func:`default_views`).
_DEFAULT_VIEWS = ("numeric", "pairs")
#: Fewest rows per cluster, on average, of a default k.
_ROWS_PER_CLUSTER = 25


@dataclass(frozen=True)
class ClusteringModel:
    """One candidate clustering model.

    Attributes:
        algorithm: one of :data:`ALGORITHMS`.
        view: ``"encoded"``, ``"numeric"``, ``"pairs"`` or ``"named"`` (how the columns were chosen).
        features: the view's columns.
        k: the number of clusters asked for (None: chosen by the algorithm, x-means for ``"slink"``).
    """

    algorithm: str
    view: str
    features: tuple[str, ...]
    k: int | None

    @property
    def label(self) -> str:
        """``"kmeans k=10 on (age, hours)"``."""
        k = "auto" if self.k is None else str(self.k)
        cols = "all encoded features" if self.view == "encoded" else f"({', '.join(self.features)})"
        return f"{self.algorithm} k={k} on {cols}"


def default_ks(n_rows: int) -> list[int]:
    """The default ks the rows allow: those of :data:`DEFAULT_KS` leaving at least 25 rows per cluster on average
    (``[2]`` when none does)."""
    ks = [k for k in DEFAULT_KS if k * _ROWS_PER_CLUSTER <= n_rows]
    return ks or [2]


def default_views(algorithm: str, n_numeric: int) -> list[str]:
    """The views of a model named by its algorithm alone: ``["numeric", "pairs"]``; for ``"scan"`` ``["pairs"]``
    and ``"triples"`` too when ``n_numeric <= MAX_TRIPLE_COLUMNS`` (a window is a ball in few columns, and every
    triple of many columns would outnumber the other candidates)."""
    if algorithm != "scan":
        return list(_DEFAULT_VIEWS)
    return ["pairs", "triples"] if n_numeric <= MAX_TRIPLE_COLUMNS else ["pairs"]


def _check_k(k: Any, n_rows: int, algorithm: str) -> list[int | None]:
    if k is None:
        return [None] if algorithm in ("slink", "hdbscan") else list(default_ks(n_rows))
    ks = list(k) if isinstance(k, Sequence) and not isinstance(k, str) else [k]
    if not ks:
        raise ValueError(f"clustering_models: an empty list of k for {algorithm!r}; give ints >= 2 or None")
    fit_rows = n_rows if algorithm in ("kmeans", "gmm", "gmm_core") else min(n_rows, QUADRATIC_FIT_ROWS)
    if algorithm == "scan":  # 2k centres
        fit_rows = n_rows // 2
    for kk in ks:
        if isinstance(kk, bool) or not isinstance(kk, int | np.integer):
            raise TypeError(f"clustering_models: k must be an int >= 2 or None, got {kk!r}")
        if kk < 2 or kk > fit_rows:
            raise ValueError(f"clustering_models: k={kk} for {algorithm!r} is larger than the {fit_rows} rows allow "
                             f"(or below 2); give 2 <= k <= {fit_rows}")
    return [int(kk) for kk in ks]


def _views(view: Any, X: pd.DataFrame, numeric: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    if isinstance(view, str):
        if view == "encoded":
            return [("encoded", tuple(map(str, X.columns)))]
        if view not in VIEWS:
            if view in X.columns:  # one column named by itself
                return [("named", (view,))]
            raise ValueError(f"clustering_models: unknown view {view!r}; expected one of {list(VIEWS)} or a list "
                             f"of columns of X {list(map(str, X.columns))}")
        if view == "numeric":
            return [("numeric", tuple(numeric))] if numeric else []
        return [(view, cols) for cols in combinations(numeric, 2 if view == "pairs" else 3)]
    if not isinstance(view, Sequence) or len(view) == 0:
        raise ValueError(f"clustering_models: a view must be {list(VIEWS)} or a non-empty list of columns, "
                         f"got {view!r}")
    missing = [c for c in view if c not in X.columns]
    if missing:
        raise ValueError(f"clustering_models: the view {list(view)!r} names missing column(s) {missing}; the "
                         f"columns of X are {list(map(str, X.columns))}")
    return [("named", tuple(map(str, view)))]


def expand_models(spec: Any, X: pd.DataFrame, categorical: Sequence[str]) -> list[ClusteringModel]:
    """The models of a ``clustering_models`` specification, checked against ``X``.

    Args:
        spec: None (:data:`DEFAULT_MODELS`) or a non-empty list whose entries are an algorithm's name (fitted on
            its :func:`default_views` at :func:`default_ks`) or a tuple ``(algorithm, view, k)``:
            ``view`` one of :data:`VIEWS` or a list of columns, ``k`` an int, a list of ints or None (the default
            ks; chosen by the algorithm for ``"slink"`` and ``"hdbscan"``).
        X: the feature table.
        categorical: its categorical columns (the others are numeric).

    Returns:
        list of ClusteringModel: in the order given, each model once.

    Raises:
        ValueError: an empty list, an unknown algorithm, a view naming a missing column, k larger than the rows
            allow (or below 2), no model at all (no numeric column for the default views).
        TypeError: a spec that is not a list, an entry that is neither a name nor a 3-tuple, a k that is no int.
    """
    spec = DEFAULT_MODELS if spec is None else spec
    if isinstance(spec, str) or not isinstance(spec, Sequence):
        raise TypeError(f"clustering_models must be a list of algorithm names or (algorithm, view, k) tuples, "
                        f"got {spec!r}")
    if len(spec) == 0:
        raise ValueError("clustering_models is an empty list of models; give at least one, e.g. ['kmeans']")
    cat = set(categorical)
    numeric = [str(c) for c in X.columns if c not in cat]
    n = len(X)
    models: list[ClusteringModel] = []
    for entry in spec:
        if isinstance(entry, str):
            algorithm, views, k = entry, default_views(entry, len(numeric)), None
        elif isinstance(entry, tuple | list) and len(entry) == 3:
            algorithm, views, k = entry[0], [entry[1]], entry[2]
        else:
            raise TypeError(f"clustering_models: an entry must be an algorithm name or an (algorithm, view, k) "
                            f"tuple, got {entry!r}")
        if algorithm not in ALGORITHMS:
            raise ValueError(f"clustering_models: unknown algorithm {algorithm!r}; expected one of {list(ALGORITHMS)}")
        ks = [None] if algorithm == "hdbscan" else _check_k(k, n, algorithm)
        for view in views:
            for name, cols in _views(view, X, numeric):
                models.extend(ClusteringModel(algorithm, name, cols, kk) for kk in ks)
    models = list(dict.fromkeys(models))
    if not models:
        raise ValueError(f"clustering_models {list(spec)!r} give no model: X has no numeric column for the "
                         "'numeric' and 'pairs' views; name a view, e.g. ('kmeans', 'encoded', 10)")
    return models


def view_matrix(X: pd.DataFrame, features: tuple[str, ...], categorical: Sequence[str]) -> np.ndarray:
    """The encoded matrix of a view (one-hot and min-max scaling, as the seed encodes every column)."""
    cols = list(features)
    Z, _ = encode_for_clustering(X[cols], [c for c in cols if c in set(categorical)])
    return Z


def standardize(Z: np.ndarray) -> np.ndarray:
    """Each column less its mean, over its standard deviation (a constant column: 0)."""
    sd = Z.std(axis=0)
    out: np.ndarray = (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return out


def core_labels(posterior: np.ndarray, level: float | None = None) -> np.ndarray:
    """Each row's dense core: its most probable component when that posterior is at least ``level``
    (:data:`CORE_POSTERIOR`, 0.5, by default: then at most one component is, unless two tie at exactly 0.5: the
    first), -1 when it is not.

    Args:
        posterior: (rows, components) posterior probabilities, each row summing to 1.
        level: the least posterior of a core's row, in (0, 1]; None: :data:`CORE_POSTERIOR`.

    Returns:
        numpy.ndarray: (rows,) int labels.

    Raises:
        ValueError: a level outside (0, 1].
    """
    level = CORE_POSTERIOR if level is None else level
    if not 0.0 < level <= 1.0:
        raise ValueError(f"level must be a posterior in (0, 1], got {level!r}")
    best = np.argmax(posterior, axis=1)
    inside = posterior[np.arange(len(posterior)), best] >= level
    return np.where(inside, best, -1).astype(np.intp)


def scan_windows(Z: np.ndarray, centres: np.ndarray, size: int) -> sp.csc_matrix:
    """The scan windows: around each centre, the rows within the distance of its ``size``-th nearest row.

    Args:
        Z: (rows, d) encoded view.
        centres: (c, d) window centres.
        size: rows per window before ties (1 <= size <= rows); a row as far as the ``size``-th is included too.

    Returns:
        scipy.sparse.csc_matrix: (rows, c) boolean membership, one column per window.
    """
    n = len(Z)
    if not 1 <= size <= n:
        raise ValueError(f"size must be between 1 and the {n} rows, got {size}")
    # squared Euclidean distances (c, rows) without the (c, rows, d) difference array
    d2 = (centres ** 2).sum(axis=1)[:, None] - 2.0 * centres @ Z.T + (Z ** 2).sum(axis=1)[None, :]
    radius = np.partition(d2, size - 1, axis=1)[:, size - 1]
    inside = d2 <= radius[:, None] + 1e-12 * np.maximum(1.0, np.abs(radius[:, None]))  # rounding of the sums
    return sp.csc_matrix(inside.T)


def fit_model(model: ClusteringModel, Z: np.ndarray, rng: np.random.Generator,
              cluster_sample: int | None) -> np.ndarray | sp.csc_matrix:
    """The label of every row under ``model`` fitted on the view's matrix ``Z`` (see the module's docstring for
    the rows each algorithm is fitted on); for ``"scan"`` the windows' membership.

    Args:
        model: the model.
        Z: (rows, d) encoded view.
        rng: the generator its sample and its seed are drawn from.
        cluster_sample: most rows k-means, the scan's centres and the Gaussian mixture are fitted on (None: all;
            the mixture at most :data:`MIXTURE_FIT_ROWS`).

    Returns:
        numpy.ndarray or scipy.sparse.csc_matrix: (rows,) int labels (HDBSCAN's noise and the rows of no
        mixture core: -1); for ``"scan"`` the
        (rows, 2k) boolean membership of its windows (:func:`scan_windows`).
    """
    n = len(Z)
    cap = cluster_sample
    if model.algorithm in ("slink", "ward", "hdbscan"):  # quadratic in the rows
        cap = QUADRATIC_FIT_ROWS if cap is None else min(cap, QUADRATIC_FIT_ROWS)
    elif model.algorithm in ("gmm", "gmm_core"):  # EM's iterations: its sample bounds them
        cap = MIXTURE_FIT_ROWS if cap is None else min(cap, MIXTURE_FIT_ROWS)
    elif model.algorithm == "scan":  # centres only: a small sample places them (at least 25 rows per centre)
        fit_cap = max(SCAN_CENTRE_ROWS, 50 * int(model.k or 2))
        cap = fit_cap if cap is None else min(cap, fit_cap)
    sample = sample_rows(n, cap, rng)
    seed = int(rng.integers(0, 2**31 - 1))
    fit_Z = Z if sample is None else Z[sample]
    if model.algorithm in ("kmeans", "scan"):
        from sklearn.cluster import KMeans

        if model.algorithm == "scan":  # expand_models gives the scan its ks
            k = int(model.k or 2)
            S = standardize(Z)  # a ball in the columns' own units, whatever their ranges
            fit_S = S if sample is None else S[sample]
            centres = KMeans(n_clusters=2 * k, n_init=1, random_state=seed).fit(fit_S).cluster_centers_
            return scan_windows(S, centres, -(-n // k))
        return np.asarray(KMeans(n_clusters=model.k, n_init=3, random_state=seed).fit(fit_Z).predict(Z))
    if model.algorithm in ("hdbscan", "gmm_core"):  # density: in the columns' own units, whatever their ranges
        Z = standardize(Z)
        fit_Z = Z if sample is None else Z[sample]
    if model.algorithm in ("gmm", "gmm_core"):
        from sklearn.mixture import GaussianMixture

        cov = "full" if Z.shape[1] <= 10 else "diag"
        gm = GaussianMixture(n_components=model.k, covariance_type=cov, reg_covar=1e-4, random_state=seed).fit(fit_Z)
        if model.algorithm == "gmm":
            return np.asarray(gm.predict(Z))
        return core_labels(gm.predict_proba(Z))
    if model.algorithm == "ward":
        from sklearn.cluster import AgglomerativeClustering

        labels = AgglomerativeClustering(n_clusters=model.k, linkage="ward").fit(fit_Z).labels_
    elif model.algorithm == "hdbscan":
        from sklearn.cluster import HDBSCAN

        size = max(10, int(np.ceil(HDBSCAN_MIN_SHARE * len(fit_Z))))
        labels = HDBSCAN(min_cluster_size=size, min_samples=HDBSCAN_MIN_SAMPLES, copy=True).fit(fit_Z).labels_
    else:  # the seed's single linkage, k by x-means (bound by the table's rows) when None
        labels = fit_clustering(fit_Z, "slink", model.k, random_state=np.random.default_rng(seed),
                                kmax=default_kmax(n)).labels
    labels = np.asarray(labels, dtype=np.intp)
    return labels if sample is None else assign_to_nearest(Z, sample, labels)
