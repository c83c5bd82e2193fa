"""Lopsided clusterings said plainly: one giant cluster, or mostly crumbs.

Single linkage chains on real tabular data (Adult at k=10: one cluster of 48,833 rows and nine single rows),
and such a clustering yields subgroups that are either "everyone" or a handful of rows. A clustering is
**lopsided** when its largest cluster holds at least ``LARGEST_SHARE`` (90 %) of the rows, or when more than
half of its clusters hold at most ``TINY_SHARE`` (1 %) of the rows each. The thresholds are conventions,
stated where they are used.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (single
    linkage as the default clustering).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["LARGEST_SHARE", "TINY_SHARE", "alternative_clusterings", "flag_lopsided", "lopsidedness"]

#: A clustering whose largest cluster holds at least this share of the rows is lopsided.
LARGEST_SHARE = 0.90
#: A cluster holding at most this share of the rows is tiny; more than half tiny clusters is lopsided.
TINY_SHARE = 0.01


def lopsidedness(labels) -> dict:
    """How lopsided one clustering is.

    Args:
        labels: cluster label per row.

    Returns:
        dict: ``n_clusters``, ``largest_share`` (share of rows in the largest cluster), ``tiny_clusters``
        (clusters with at most 1 % of the rows), ``lopsided`` (bool) and ``reason`` (a sentence, empty when
        not lopsided).
    """
    labels = np.asarray(labels)
    if labels.size == 0:
        raise ValueError("labels is empty: no clustering to assess")
    _, sizes = np.unique(labels, return_counts=True)
    n, k = labels.size, len(sizes)
    largest = float(sizes.max() / n)
    tiny = int(np.sum(sizes <= TINY_SHARE * n))
    reasons = []
    if largest >= LARGEST_SHARE:
        reasons.append(f"its largest cluster holds {largest:.1%} of the rows (>= {LARGEST_SHARE:.0%})")
    if tiny > k / 2:
        reasons.append(f"{tiny} of its {k} clusters hold <= {TINY_SHARE:.0%} of the rows each (more than half)")
    return {
        "n_clusters": k,
        "largest_share": largest,
        "tiny_clusters": tiny,
        "lopsided": bool(reasons),
        "reason": "; ".join(reasons),
    }


def flag_lopsided(table: pd.DataFrame, labels: Sequence) -> pd.DataFrame:
    """Add ``largest_share``, ``tiny_clusters`` and ``lopsided`` columns to a clustering comparison (in place).

    Args:
        table: one row per candidate clustering (as from :func:`compare_clusterings`).
        labels: the candidates' label arrays, in the table's row order.

    Returns:
        pandas.DataFrame: ``table`` itself.
    """
    if len(labels) != len(table):
        raise ValueError(f"labels holds {len(labels)} clusterings but the table has {len(table)} rows")
    info = [lopsidedness(lab) for lab in labels]
    table["largest_share"] = [i["largest_share"] for i in info]
    table["tiny_clusters"] = [i["tiny_clusters"] for i in info]
    table["lopsided"] = [i["lopsided"] for i in info]
    return table


def alternative_clusterings(
    X,
    y_true,
    y_pred,
    n_clusters: int,
    pos_label=1,
    *,
    current: str = "slink",
    candidates=None,
    selection_metric: str = "statistical_parity",
    categorical_features=None,
    labels=None,
    sample_weight=None,
    random_state=None,
    silhouette_sample_size: int | None = 1000,
    ward_max_rows: int = 10_000,
) -> pd.DataFrame:
    """Compare the other clusterers at the same number of clusters and name one that is not lopsided.

    Runs :func:`~aif360_subjective.detectors.compare_clusterings` (the fairness-aware comparison) over
    ``candidates``, by default ``kmeans``, ``birch``, ``ward`` (only up to ``ward_max_rows`` rows: it needs
    O(n^2) memory) and ``slink``, each at ``n_clusters`` clusters, leaving out ``current``.

    Args:
        X: feature table, as in :func:`~aif360_subjective.detectors.detect_subgroups` (so are ``y_true``,
            ``y_pred``, ``pos_label``, ``categorical_features``, ``labels``, ``sample_weight``,
            ``random_state`` and ``silhouette_sample_size``).
        y_true: ground-truth labels.
        y_pred: predicted labels.
        n_clusters: the number of clusters to compare at (e.g. ``report.n_clusters``).
        current: the clustering already used (left out of the default candidates).
        candidates: explicit candidates as :func:`compare_clusterings` takes them (overrides the default).
        selection_metric: the fairness metric whose rate the clusters should separate.
        ward_max_rows: largest table on which ward is tried by default.

    Returns:
        pandas.DataFrame: the comparison with ``largest_share``, ``tiny_clusters`` and ``lopsided`` columns;
        ``attrs["suggestion"]`` is the ``(clustering, n_clusters)`` row with the highest fairness separation
        among those not lopsided, or ``None`` when every candidate is lopsided.
    """
    from .detect import compare_clusterings  # detect imports this module

    if candidates is None:
        n = len(X)
        names = ["kmeans", "birch", *(["ward"] if n <= ward_max_rows else []), "slink"]
        candidates = [(m, n_clusters) for m in names if m != current]
    table = compare_clusterings(
        X, y_true, y_pred, candidates, pos_label, selection_metric=selection_metric,
        categorical_features=categorical_features, labels=labels, sample_weight=sample_weight,
        random_state=random_state, silhouette_sample_size=silhouette_sample_size,
    )
    ok = table[~table["lopsided"].to_numpy(dtype=bool)]
    scores = ok["fairness_separation"].to_numpy(dtype=float)
    suggestion = None
    if len(ok):
        best = int(np.nanargmax(scores)) if np.isfinite(scores).any() else 0
        name, k = ok.index[best]
        suggestion = (str(name), None if k is None else int(k))  # plain values, not numpy scalars
    table.attrs["suggestion"] = suggestion
    return table
