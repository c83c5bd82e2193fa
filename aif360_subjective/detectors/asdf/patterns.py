"""Entropy-based patterns of clusters and the subgroups they induce.

For cluster c and raw feature f, with n_{c,f,v} rows of c taking value v:
``H(c, f) = -sum_v p_v ln p_v``, ``p_v = n_{c,f,v} / |c|``, normalised to ``NE(c, f) = H / ln(m)``.
The reference takes ``m`` = number of distinct values of f inside c (``normalization="cluster"``) and calls f
dominant when ``NE < tau``; the paper takes ``m = |dom(f)|`` over the whole dataset
(``normalization="domain"``) and ``NE <= tau`` (``inclusive=True``). ``NE = 0`` when ``m = 1``. The
pattern of c is the most frequent value of every dominant feature (ties: the smallest value); its subgroup
is every row of the WHOLE dataset matching all of them.

Everything is computed from (cluster, value) counts: one sort or ``bincount`` per feature, no pass over the
rows per cluster. Membership costs one comparison per (pattern, dominant feature) over a shrinking row set.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (Eq. 5) and
    its reference implementation jeschaef/ASDF-Dashboard (normalisation by the values present in the cluster,
    strict threshold).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..._param_tables import SUBGROUP_PARAMS
from ..encoding import RawCodes

__all__ = ["EntropyPatterns", "cluster_value_stats", "entropy_patterns", "pattern_members"]

NORMALIZATIONS: tuple[str, ...] = SUBGROUP_PARAMS.choices("normalization")


def cluster_value_stats(
    cluster_idx: np.ndarray, k: int, codes: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entropy, number of distinct values and most frequent value of one feature in every cluster.

    Args:
        cluster_idx: cluster index 0..k-1 per row.
        k: number of clusters.
        codes: value codes 0..m-1 per row (sorted values, so a smaller code is a smaller value).
        m: number of distinct values of the feature.

    Returns:
        tuple: ``(H, distinct, mode)`` arrays of length k: entropy (natural log), number of distinct values in
        the cluster, code of the most frequent value (smallest on ties).
    """
    sizes = np.bincount(cluster_idx, minlength=k).astype(np.float64)
    if k * m <= 4 * len(codes) + 1024:
        counts = np.bincount(cluster_idx * m + codes, minlength=k * m).reshape(k, m).astype(np.float64)
        p = counts / sizes[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            plogp = np.where(counts > 0, p * np.log(np.where(counts > 0, p, 1.0)), 0.0)
        H = -plogp.sum(axis=1)
        distinct = (counts > 0).sum(axis=1)
        mode = counts.argmax(axis=1)  # first maximum = smallest value
        return H, distinct, mode
    # Many distinct values (continuous features): sort the (cluster, value) keys instead of a k x m table.
    keys, cnt = np.unique(cluster_idx.astype(np.int64) * m + codes, return_counts=True)
    cl, val = keys // m, keys % m
    p = cnt / sizes[cl]
    H = -np.bincount(cl, weights=p * np.log(p), minlength=k)
    distinct = np.bincount(cl, minlength=k)
    order = np.lexsort((val, -cnt, cl))  # per cluster: highest count first, then smallest value
    first = np.ones(len(order), dtype=bool)
    first[1:] = cl[order][1:] != cl[order][:-1]
    mode = np.empty(k, dtype=np.int64)
    mode[cl[order][first]] = val[order][first]
    return H, distinct, mode


@dataclass
class EntropyPatterns:
    """Entropy patterns of a clustering.

    Attributes:
        ids: cluster ids (k,), in ascending order.
        columns: raw feature names (p,).
        entropy: normalised entropies (k, p).
        dominant: boolean (k, p), the features in each pattern.
        values: codes of the pattern values (k, p); meaningful where ``dominant``.
        is_empty: (k,) no dominant feature.
        duplicate_of: (k,) index of the first cluster with the same pattern, -1 if none.
    """

    ids: np.ndarray
    columns: list[str]
    entropy: np.ndarray
    dominant: np.ndarray
    values: np.ndarray
    is_empty: np.ndarray
    duplicate_of: np.ndarray


def entropy_patterns(
    raw: RawCodes,
    cluster_idx: np.ndarray,
    ids: np.ndarray,
    entropy_threshold: float,
    normalization: str = "cluster",
    inclusive: bool = False,
) -> EntropyPatterns:
    """Entropy patterns of every cluster.

    Args:
        raw: factorised raw features.
        cluster_idx: cluster index 0..k-1 per row (``ids[cluster_idx]`` is the cluster label).
        ids: cluster labels, one per index.
        entropy_threshold: tau in [0, 1].
        normalization: ``"cluster"`` (reference: ln of the distinct values in the cluster) or ``"domain"``
            (paper: ln of the feature's distinct values in the whole dataset).
        inclusive: ``False`` for ``NE < tau`` (reference), ``True`` for ``NE <= tau`` (paper).

    Returns:
        EntropyPatterns
    """
    k, p = len(ids), len(raw.columns)
    entropy = np.zeros((k, p))
    values = np.zeros((k, p), dtype=np.int64)
    domain = raw.n_values
    for j in range(p):
        H, distinct, mode = cluster_value_stats(cluster_idx, k, raw.codes[:, j], int(domain[j]))
        m = distinct if normalization == "cluster" else np.full(k, domain[j])
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy[:, j] = np.where(m > 1, H / np.log(np.maximum(m, 2)), 0.0)
        values[:, j] = mode
    dominant: np.ndarray = np.asarray(entropy <= entropy_threshold if inclusive else entropy < entropy_threshold)
    is_empty: np.ndarray = np.asarray(~dominant.any(axis=1))
    duplicate_of = np.full(k, -1, dtype=np.intp)
    seen: dict[tuple[Any, ...], int] = {}
    for i in range(k):  # O(k) dictionary lookups on the pattern signatures
        if is_empty[i]:
            continue
        sig = tuple(np.where(dominant[i], values[i], -1))
        if sig in seen:
            duplicate_of[i] = seen[sig]
        else:
            seen[sig] = i
    return EntropyPatterns(
        np.asarray(ids), list(raw.columns), entropy, dominant, values, is_empty, duplicate_of
    )


def pattern_members(raw: RawCodes, pats: EntropyPatterns, i: int) -> np.ndarray:
    """Row indices of the whole dataset matching pattern ``i`` (empty array for an empty pattern)."""
    feats = np.flatnonzero(pats.dominant[i])
    if len(feats) == 0:
        return np.zeros(0, dtype=np.intp)
    codes = raw.codes
    # filter the surviving rows only: later conditions cost O(matches), not O(n)
    rows = np.flatnonzero(codes[:, feats[0]] == pats.values[i, feats[0]])
    for f in feats[1:]:
        if len(rows) == 0:
            break
        rows = rows[codes[rows, f] == pats.values[i, f]]
    return rows


def pattern_frame(raw: RawCodes, pats: EntropyPatterns) -> pd.DataFrame:
    """Patterns as a table: index id, a column per feature, NaN where the feature is not in the pattern."""
    data = {}
    for j, c in enumerate(raw.columns):
        vals = raw.uniques[j].take(pats.values[:, j])
        s = pd.Series(vals, index=pd.Index(pats.ids, name="id"), name=c)
        data[c] = s.where(pats.dominant[:, j])
    return pd.DataFrame(data, index=pd.Index(pats.ids, name="id"))


def pattern_strings(raw: RawCodes, pats: EntropyPatterns) -> list[str]:
    """``"a=x AND b=y"`` per pattern, features in column order ('' for an empty pattern)."""
    out = []
    for i in range(len(pats.ids)):
        parts = [
            f"{c}={raw.uniques[j][pats.values[i, j]]}"
            for j, c in enumerate(raw.columns)
            if pats.dominant[i, j]
        ]
        out.append(" AND ".join(parts))
    return out
