"""Lopsided clusterings said plainly: one giant cluster, or mostly crumbs.

Single linkage chains on real tabular data (Adult at k=10: one cluster of 48,833 rows and nine single rows),
and such a clustering yields subgroups that are either "everyone" or a handful of rows. A clustering is
**lopsided** when its largest cluster holds at least ``LARGEST_SHARE`` (90 %) of the rows, or when more than
half of its clusters hold at most ``TINY_SHARE`` (1 %) of the rows each. The thresholds are conventions,
stated where they are used. :func:`~aif360_subjective.detectors.alternative_clusterings` (in ``detect``, as it
runs the comparison) names a clustering that is not lopsided.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis" (single
    linkage as the default clustering).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = ["LARGEST_SHARE", "TINY_SHARE", "flag_lopsided", "lopsidedness"]

#: A clustering whose largest cluster holds at least this share of the rows is lopsided.
LARGEST_SHARE = 0.90
#: A cluster holding at most this share of the rows is tiny; more than half tiny clusters is lopsided.
TINY_SHARE = 0.01


def lopsidedness(labels: npt.ArrayLike) -> dict[str, Any]:
    """How lopsided one clustering is.

    Args:
        labels: cluster label per row.

    Returns:
        dict: ``n_clusters``, ``largest_share`` (share of rows in the largest cluster), ``tiny_clusters``
        (clusters with at most 1 % of the rows), ``lopsided`` (bool) and ``reason`` (a sentence, empty when
        not lopsided).
    """
    arr = np.asarray(labels)
    if arr.size == 0:
        raise ValueError("labels is empty: no clustering to assess")
    _, sizes = np.unique(arr, return_counts=True)
    n, k = arr.size, len(sizes)
    largest = float(sizes.max() / n)
    tiny = int(np.sum(sizes <= TINY_SHARE * n))
    reasons = []
    if largest >= LARGEST_SHARE:
        reasons.append(f"its largest cluster holds {largest:.1%} of the rows (>= {LARGEST_SHARE:.0%})")
    if tiny > k / 2:
        reasons.append(f"{tiny} of its {k} cluster{'' if k == 1 else 's'} hold <= {TINY_SHARE:.0%} of the rows each "
                       "(more than half)")
    return {
        "n_clusters": k,
        "largest_share": largest,
        "tiny_clusters": tiny,
        "lopsided": bool(reasons),
        "reason": "; ".join(reasons),
    }


def flag_lopsided(table: pd.DataFrame, labels: Sequence[npt.ArrayLike]) -> pd.DataFrame:
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
