"""A clusterer that hands ``detect_subgroups`` a clustering already computed: a cached hierarchical tree cut at
another k, or fixed labels (a change of the entropy threshold τ keeps the clusters).

``detect_subgroups`` accepts any scikit-learn clusterer instance; it clones it (``sklearn.base.clone`` deep-copies
the constructor's parameters) and calls ``fit`` on the encoded matrix. The cached tree is wrapped in
:class:`SharedClustering`, whose deep copy is itself: the tree is read-only, so every re-cut shares the one fit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SharedClustering", "CachedClustering"]


class SharedClustering:
    """A fitted clustering shared (never copied) between re-cuts: a hierarchical tree or fixed labels, and the
    encoded matrix it was fitted on (to check that a re-cut runs on the same rows).

    Args:
        Z: the encoded matrix the clustering was fitted on.
        tree: a :class:`~aif360_subjective.detectors.asdf.clustering.HierarchicalTree` of ``Z``, or None.
        labels: fixed cluster labels of the rows of ``Z`` (a flat clustering), or None.
    """

    def __init__(self, Z: np.ndarray, tree: Any = None, labels: np.ndarray | None = None) -> None:
        if (tree is None) == (labels is None):
            raise ValueError("give exactly one of tree and labels")
        self.Z = Z
        self.tree = tree
        self.labels = None if labels is None else np.asarray(labels)

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedClustering:
        return self  # read-only: a clone of the clusterer shares it

    def labels_for(self, Z: np.ndarray, n_clusters: int | None) -> np.ndarray:
        """The labels of the rows of ``Z`` cut into ``n_clusters`` clusters (a tree) or the fixed labels.

        Raises:
            ValueError: ``Z`` is not the matrix the clustering was fitted on.
        """
        if Z.shape != self.Z.shape or not np.array_equal(Z, self.Z):
            raise ValueError("the cached clustering was fitted on other rows or columns; recompute it")
        if self.tree is None:
            assert self.labels is not None  # one of the two is set (checked in __init__)
            return self.labels
        if n_clusters is None:
            raise ValueError("a tree needs a number of clusters to be cut")
        labels: np.ndarray = self.tree.cut(int(n_clusters))
        return labels


class CachedClustering:
    """scikit-learn clusterer protocol over a :class:`SharedClustering` (what ``detect_subgroups`` calls).

    ``detect_subgroups`` draws a seed from its random stream for a clusterer with a ``random_state`` parameter
    left at None, as it does for k-means or for x-means' choice of k. The permutation test (and the silhouette
    sample) draw from the same stream afterwards, so a re-cut gives the adjusted p-values of the equivalent
    command only if it takes the draws the command's clusterer takes: ``seeded=True`` exposes a
    ``random_state`` parameter (one draw, never used for anything else), ``seeded=False`` none.

    Args:
        shared: the cached clustering.
        n_clusters: the cut (trees only; ``detect_subgroups`` sets it from its ``n_clusters``).
        seeded: take one draw of ``detect_subgroups``' random stream, as the replaced clusterer does.
        random_state: set by ``detect_subgroups`` when ``seeded``; unused.
    """

    def __init__(self, shared: SharedClustering | None = None, n_clusters: int | None = None,
                 seeded: bool = False, random_state: Any = None) -> None:
        self.shared = shared
        self.n_clusters = n_clusters
        self.seeded = seeded
        self.random_state = random_state

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = {"shared": self.shared, "n_clusters": self.n_clusters, "seeded": self.seeded}
        if self.seeded:
            params["random_state"] = self.random_state
        return params

    def set_params(self, **params: Any) -> CachedClustering:
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def fit(self, Z: np.ndarray, y: Any = None) -> CachedClustering:
        if self.shared is None:
            raise ValueError("CachedClustering needs the shared clustering it cuts")
        self.labels_ = self.shared.labels_for(np.asarray(Z), self.n_clusters)
        return self
