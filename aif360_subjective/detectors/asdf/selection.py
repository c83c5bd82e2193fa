"""Fairness-aware choice of the clustering (the "cluster validation index based on a subgroup fairness
criterion" that seed 002 leaves as future work).

A clustering separates subgroups by a fairness metric when cluster membership explains the variation of the
rate behind the metric: the favourable-prediction rate (statistical parity), the TPR (equal opportunity),
TPR and FPR (equalized odds) or the accuracy. For a binary outcome o over clusters g the explained share is
the correlation ratio ``eta^2 = sum_g W_g (m_g - m)^2 / (W m (1 - m))`` (= Cramér's phi^2 of the k x 2 table).
It grows with k by chance alone, so it is bias-corrected as Bergsma (2013) corrects phi^2:
``max(0, eta^2 - (k - 1) / (N - 1))``. Equalized odds averages the TPR and FPR indices. Higher is better.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis"
    (future work).
    W. Bergsma, "A bias-correction for Cramér's V and Tschuprow's T", Journal of the Korean Statistical
    Society 42(3), 2013.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from ..._param_tables import SUBGROUP_PARAMS
from ..._validation import check_choice
from .clustering import CLUSTERINGS, ClusteringResult, HierarchicalTree, as_generator, fit_clustering, validity_indices

__all__ = ["SELECTION_METRICS", "fairness_separation", "compare_clusterings_encoded"]

SELECTION_METRICS: tuple[str, ...] = SUBGROUP_PARAMS.choices("selection_metric")


def _eta2_corrected(groups: np.ndarray, outcome: np.ndarray, weights: np.ndarray | None) -> float:
    n = len(groups)
    if n < 2:
        return np.nan
    _, g = np.unique(groups, return_inverse=True)
    w = np.ones(n) if weights is None else weights
    W_g = np.bincount(g, weights=w)
    S_g = np.bincount(g, weights=w * outcome)
    W, S = W_g.sum(), S_g.sum()
    if W <= 0:
        return np.nan
    m = S / W
    total = W * m * (1.0 - m)
    if total <= 0:
        return 0.0  # no variation of the rate at all: nothing to separate
    keep = W_g > 0
    between = float(np.sum(W_g[keep] * (S_g[keep] / W_g[keep] - m) ** 2))
    k = int(keep.sum())
    return float(max(0.0, between / total - (k - 1) / (n - 1)))


def fairness_separation(
    labels: np.ndarray,
    t: np.ndarray,
    p: np.ndarray,
    metric: str = "statistical_parity",
    weights: np.ndarray | None = None,
) -> float:
    """Bias-corrected share of the metric's underlying rate explained by the clustering (higher = better).

    Args:
        labels: cluster label per row.
        t: boolean truth ("is favourable").
        p: boolean prediction ("is favourable").
        metric: one of :data:`SELECTION_METRICS`.
        weights: optional row weights.

    Returns:
        float in [0, 1] (NaN if undefined, e.g. no favourable truths for equal opportunity).
    """
    check_choice(metric, "metric", SELECTION_METRICS)
    labels = np.asarray(labels)

    def sub(mask: np.ndarray, outcome: np.ndarray) -> float:
        w = None if weights is None else weights[mask]
        return _eta2_corrected(labels[mask], outcome[mask].astype(np.float64), w)

    everyone = np.ones(len(labels), dtype=bool)
    if metric == "statistical_parity":
        return sub(everyone, p)
    if metric in ("accuracy", "accuracy_error"):
        return sub(everyone, p == t)
    tpr = sub(t, p)
    if metric == "equal_opportunity":
        return tpr
    defined = [v for v in (tpr, sub(~t, p)) if not np.isnan(v)]
    return float(np.mean(defined)) if defined else np.nan


def _normalise_candidates(candidates: Any, default_method: Any) -> list[tuple[Any, int | None]]:
    if isinstance(candidates, dict):
        pairs = [
            (m, k) for m, ks in candidates.items() for k in (ks if isinstance(ks, list | tuple) else [ks])
        ]
    else:
        pairs = []
        for c in candidates:
            if isinstance(c, tuple):
                pairs.append(c)
            else:
                pairs.append((default_method, c))
    for m, _ in pairs:
        if isinstance(m, str) and m not in CLUSTERINGS:
            raise ValueError(
                f"unknown clustering {m!r} among the candidates; expected one of {list(CLUSTERINGS)}"
            )
    return pairs


def compare_clusterings_encoded(
    Z: np.ndarray,
    t: np.ndarray,
    p: np.ndarray,
    candidates: Any,
    metric: str,
    weights: np.ndarray | None = None,
    default_method: Any = "slink",
    random_state: Any = None,
    silhouette_sample_size: int | None = 1000,
    trees: dict[str, HierarchicalTree] | None = None,
    mst: str = "auto",
) -> tuple[pd.DataFrame, list[ClusteringResult]]:
    """Evaluate candidate clusterings of an encoded matrix; see :func:`compare_clusterings`.

    Returns:
        tuple: ``(table, results)``: the comparison DataFrame indexed by (clustering, n_clusters) and the
        list of :class:`ClusteringResult` in the same order. Hierarchical candidates also get
        ``cut_is_unique`` (False when the cut falls inside a tie of merge distances, so that another
        equally valid tree gives other clusters) and ``cut_distance`` (the first undone merge); other
        methods get <NA> and NaN.
    """
    check_choice(metric, "selection_metric", SELECTION_METRICS)
    rng = as_generator(random_state)
    trees = {} if trees is None else trees
    rows, results = [], []
    for method, k in _normalise_candidates(candidates, default_method):
        start = time.perf_counter()
        name = method if isinstance(method, str) else type(method).__name__
        tree = None
        if name in ("slink", "ward"):
            tree = trees.get(name) or HierarchicalTree.fit(Z, "single" if name == "slink" else "ward", mst)
            trees[name] = tree
        res = fit_clustering(Z, method, k, random_state=rng, tree=tree, mst=mst)
        unique_cut, cut_distance = (None, np.nan) if res.tree is None else res.tree.cut_is_unique(res.n_clusters)
        score = fairness_separation(res.labels, t, p, metric, weights)
        cvi = validity_indices(Z, res.labels, silhouette_sample_size, rng)
        rows.append(
            {
                "clustering": name,
                "n_clusters": res.requested_k if k is not None else res.n_clusters,
                "n_found": res.n_clusters,
                "fairness_separation": score,
                **cvi,
                "cut_is_unique": unique_cut,
                "cut_distance": cut_distance,
                "seconds": time.perf_counter() - start,
            }
        )
        results.append(res)
    table = pd.DataFrame(rows).set_index(["clustering", "n_clusters"])
    table["cut_is_unique"] = table["cut_is_unique"].astype("boolean")
    scores = table["fairness_separation"].to_numpy(dtype=float)
    best = np.zeros(len(table), dtype=bool)
    if np.isfinite(scores).any():
        best[int(np.nanargmax(scores))] = True
    table["best"] = best
    table.attrs["selection_metric"] = metric
    return table, results
