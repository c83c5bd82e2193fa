"""Clustering a random sample of a large table, and the nearest-sampled-row rule for the other rows.

The seed's single linkage costs O(n^2 d) with scikit-learn's Prim, and mlpack's dual-tree Borůvka, fast on data
of low intrinsic dimension, slows down sharply as the encoded columns grow: on 20,000 rows of 24 categorical and
6 numeric columns (78 encoded columns) it took 293 s against Prim's 7 s (``benchmarks/wide_tables.py``). Above
``cluster_sample`` rows (default 10,000) the clustering is therefore fitted on a random sample of that many rows,
drawn with the analysis' ``random_state``, and every other row joins the cluster of its nearest sampled row
(Euclidean distance in the clustering's encoding; a tie, up to rounding, goes to the first sampled row in row
order). For single
linkage this is the rule the full tree would apply to a row whose nearest neighbour sits inside a cluster: the
row's first merge is with that neighbour. The entropy patterns, the sizes and every metric are then computed on
all rows, as before; only the clusters' shapes come from the sample. Tables of at most ``cluster_sample`` rows
(the seed's COMPAS table, 6,172 rows, among them) are clustered whole, exactly as before, and the random stream
is consumed as before.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (the
    clustering sampled here).
    J. C. Gower and G. J. S. Ross, "Minimum spanning trees and single linkage cluster analysis", Applied
    Statistics 18(1), 1969 (a row's first single-linkage merge is with its nearest neighbour).
"""

from __future__ import annotations

import numpy as np

__all__ = ["sample_rows", "assign_to_nearest", "sample_note"]

#: Rows x sampled rows of one block of the nearest-row search (about 64 MB of float64 distances).
_BLOCK_PAIRS = 1 << 23


def sample_rows(n_rows: int, cluster_sample: int | None, rng: np.random.Generator) -> np.ndarray | None:
    """The rows the clustering is fitted on: ``None`` (all rows, nothing drawn) when ``n_rows`` is at most
    ``cluster_sample`` or ``cluster_sample`` is None; else ``cluster_sample`` row positions drawn from ``rng``
    without replacement, in increasing order.

    Args:
        n_rows: rows of the table.
        cluster_sample: the most rows to cluster, or None for all.
        rng: the analysis' generator (only consumed when a sample is drawn).

    Returns:
        numpy.ndarray or None: sorted row positions of the sample.
    """
    if cluster_sample is None or n_rows <= cluster_sample:
        return None
    return np.sort(rng.choice(n_rows, size=int(cluster_sample), replace=False))


def assign_to_nearest(Z: np.ndarray, sample: np.ndarray, sample_labels: np.ndarray) -> np.ndarray:
    """Labels of every row: a sampled row keeps its own, any other row takes its nearest sampled row's.

    Distances are Euclidean in ``Z`` (squared, by the Gram form ``|a|^2 + |b|^2 - 2 a.b`` in blocks, so that
    memory stays bounded); among equally near sampled rows the first in row order wins (``argmin``).

    Args:
        Z: (n, d) encoded matrix of all rows.
        sample: sorted row positions of the sampled rows.
        sample_labels: the clustering's label of each sampled row.

    Returns:
        numpy.ndarray: the label of every row.

    Raises:
        ValueError: ``sample`` and ``sample_labels`` of different lengths.
    """
    sample = np.asarray(sample, dtype=np.intp)
    sample_labels = np.asarray(sample_labels)
    if len(sample) != len(sample_labels):
        raise ValueError(f"sample_labels has {len(sample_labels)} labels for {len(sample)} sampled rows")
    n = len(Z)
    labels = np.empty(n, dtype=sample_labels.dtype)
    labels[sample] = sample_labels
    rest = np.setdiff1d(np.arange(n), sample, assume_unique=True)
    S = np.asarray(Z[sample], dtype=np.float64)
    s2 = np.einsum("ij,ij->i", S, S)
    block = max(1, _BLOCK_PAIRS // max(len(S), 1))
    for start in range(0, len(rest), block):  # blocks of rows (memory), each one matrix product
        rows = rest[start : start + block]
        R = np.asarray(Z[rows], dtype=np.float64)
        # |r|^2 is the same for every sampled row, so the nearest one minimises |s|^2 - 2 r.s
        d = s2[None, :] - 2.0 * (R @ S.T)
        labels[rows] = sample_labels[np.argmin(d, axis=1)]
    return labels


def sample_note(sampled: int | None, n_rows: int) -> str:
    """The sentence saying where the clusters come from (empty when every row was clustered)."""
    if sampled is None:
        return ""
    return (f"The clusters come from a random sample of {sampled:,} of the {n_rows:,} rows "
            f"(cluster_sample={sampled:,}, drawn with random_state); every other row joined the cluster of its "
            "nearest sampled row. Pass "
            "cluster_sample=None to cluster every row (single linkage costs O(n^2 d)).")
