"""How the max-T permutes outcomes and how intervals resample: rows, or whole clusters; in an order of its own.

Two things decide which permutations are valid and reproducible:

* **The unit of inference.** When several rows belong to one person (item, household, hospital), their
  outcomes are not independent: permuting single rows treats a person's five records as five independent
  pieces of evidence and makes the null distribution too narrow (an outside audit found a "significant"
  subgroup on 23 % of tables with a per-person error propensity and no subgroup effect). With ``groups``
  (a cluster id per row) the permutations move **whole clusters**: a cluster's rows take, position by position,
  the outcomes of another cluster of the same size (clusters of one size are exchangeable under the null
  hypothesis that the subgroups do not matter). Clusters of different sizes cannot swap rows one for one: then
  whole outcome blocks, with their sizes, are permuted among all clusters (:mod:`.cluster_permutation`; the
  subgroups of whole clusters are tested). ``design="within"`` permutes rows **within** each cluster instead: the valid
  design when every cluster is its own stratum (a cluster effect that is a nuisance, subgroups that vary inside
  clusters, e.g. annotators' traits within an item's ratings). Intervals resample clusters with replacement
  (the cluster bootstrap, :func:`cluster_bootstrap_weights`).
* **Row order.** A permutation is drawn over positions ``0..n-1``; if those are the rows in the order the user
  happened to pass them, the same table shuffled gets other permutations and other p-values (COMPAS: 6,238
  vs 5,933 findings). Every draw here is made over a **canonical order** (rows sorted by a key of their
  content, :func:`row_keys`, or a given index) and mapped back: identical rows are interchangeable, so the
  result no longer depends on the order of the rows.

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", Wiley, 1993 (permutation within
    strata).
    A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", Cambridge, 1997, 3.8
    (resampling clusters).
    C. A. Field and A. H. Welsh, "Bootstrapping clustered data", JRSS B 69, 2007.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..._param_tables import SUBGROUP_PARAMS
from ..._validation import check_choice, plain

__all__ = [
    "ClusteredRowsWarning",
    "DESIGNS",
    "Permuter",
    "Sampling",
    "block_choices",
    "sampling_of",
    "canonical_order",
    "check_groups",
    "cluster_bootstrap_weights",
    "id_like_columns",
    "row_keys",
    "warn_id_like_columns",
]

#: The values of ``design``: move whole clusters between clusters of equal size, or permute rows within clusters.
DESIGNS: tuple[str, ...] = SUBGROUP_PARAMS.choices("design")


def row_keys(*parts: Any) -> np.ndarray:
    """A 64-bit key of each row's content: equal keys = equal rows (up to hash collisions, ~n^2 / 2^64).

    Args:
        parts: per-row data, each a DataFrame, Series or 1-d/2-d array of the same number of rows (features,
            truths, predictions, losses): the key combines them all.

    Returns:
        numpy.ndarray: (rows,) uint64.
    """
    keys: np.ndarray | None = None
    for part in parts:
        if part is None:
            continue
        frame = part if isinstance(part, pd.DataFrame) else pd.DataFrame(np.asarray(part).reshape(len(part), -1))
        frame = frame.reset_index(drop=True)
        # hash each column on its own, then combine them in the order of their names (a row's position never
        # enters, nor the order of the columns: the same table with its columns reordered gets the same keys)
        for col in sorted(range(frame.shape[1]), key=lambda j: str(frame.columns[j])):
            values = frame.iloc[:, col]
            if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
                # one key for 69, 69.0 and True/1: a decoded AIF360 table and the raw CSV are the same rows
                values = values.astype(np.float64)
            else:  # text as text, whether object, string or categorical
                values = values.astype(str)
            h = pd.util.hash_pandas_object(values, index=False).to_numpy(dtype=np.uint64)
            keys = h if keys is None else _mix(keys, h)
    if keys is None:
        raise ValueError("row_keys needs at least one part")
    return keys


def _mix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Order-dependent combination of two uint64 hashes (boost's hash_combine on 64 bits)."""
    with np.errstate(over="ignore"):
        out: np.ndarray = a ^ (b + np.uint64(0x9E3779B97F4A7C15) + (a << np.uint64(6)) + (a >> np.uint64(2)))
    return out


def canonical_order(*keys: np.ndarray) -> np.ndarray:
    """Row positions sorted by ``keys`` (the first the primary key; :func:`row_keys`), stably: rows equal on
    every key (identical rows) keep their order, which changes nothing since they are interchangeable.

    Give the features' key first and the key of the features with the outcomes second: a cluster's rows are
    then matched with another cluster's rows (``design="between"``) by their features, never by their
    outcomes, and only rows with identical features are ordered by their outcomes.
    """
    if not keys:
        raise ValueError("canonical_order needs at least one key")
    return np.lexsort(tuple(np.asarray(k) for k in reversed(keys)))


def check_groups(groups: Any, n: int, name: str = "groups") -> np.ndarray | None:
    """Validate a per-row cluster id and return it as dense codes ``0..k-1`` (numbered in sorted id order, so
    the codes do not depend on the order of the rows).

    Raises:
        ValueError: wrong length, missing ids, or every row its own cluster (then ``groups`` adds nothing).
        TypeError: not one-dimensional.
    """
    if groups is None:
        return None
    values = groups.to_numpy() if isinstance(groups, pd.Series | pd.Index) else np.asarray(groups)
    if values.ndim != 1:
        raise TypeError(f"{name} must be one-dimensional (one cluster id per row), got shape {values.shape}")
    if len(values) != n:
        raise ValueError(f"{name} must have one cluster id per row: got {len(values)} ids for {n} rows")
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(f"{name} has {int(missing.sum())} missing cluster id(s) (first at row "
                         f"{int(np.flatnonzero(missing)[0])}); give every row a cluster")
    codes, uniques = pd.factorize(values, sort=True)
    if len(uniques) == n and n > 1:
        raise ValueError(f"{name} gives every one of the {n} rows its own cluster: it adds nothing (that is the "
                         "rows-as-units default); pass groups=None, or the id shared by a person's (item's) rows")
    return codes.astype(np.int64)


def id_like_columns(X: pd.DataFrame, min_repeat: float = 1.5) -> list[str]:
    """Columns that look like a cluster id with repeated values.

    A column qualifies when its name says it is an id (``id``, ``*_id``, ``*id``, or a word such as ``person``,
    ``user``, ``item``, ``annotator``, ``patient``, ``household``) and its values are many labels that repeat:
    at least 3 distinct values and 1 % of the rows (an id, not a category), each used on average at least
    ``min_repeat`` times (several rows per id). Only the name and the counts are read: cheap and predictable.

    Returns:
        list[str]: the columns whose rows are probably not independent (pass ``groups=`` one of them).
    """
    out: list[str] = []
    n = len(X)
    if n < 4:
        return out
    words = ("id", "person", "user", "item", "annotator", "rater", "worker", "household", "patient", "hospital",
             "subject", "participant", "customer", "account", "session", "family", "school")
    for col in X.columns:
        name = str(col).lower()
        tokens = name.replace("-", "_").replace(" ", "_").split("_")
        if not (any(t in words for t in tokens) or name.endswith("id")):
            continue
        k = int(X[col].nunique(dropna=True))
        if max(3, int(0.01 * n)) <= k <= n / min_repeat:
            out.append(str(col))
    return out


@dataclass(frozen=True)
class Sampling:
    """The unit of inference of an analysis and the canonical order its permutations are drawn in.

    Attributes:
        order: the canonical row order (:func:`canonical_order`), or None (the rows' own order).
        groups: dense cluster codes per row (:func:`check_groups`), or None (rows are the units).
        design: ``"between"`` or ``"within"`` (with ``groups``).
        group_name: what the clusters are by in reports (the ``groups`` Series' name, or "id").
    """

    order: np.ndarray | None = None
    groups: np.ndarray | None = None
    design: str = "between"
    group_name: str = "id"

    @property
    def unit(self) -> str:
        """The unit of inference, in words (for the report)."""
        if self.groups is None:
            return "rows (each row an independent unit)"
        k = int(self.groups.max()) + 1
        if self.design == "between" and unequal_sizes(self.groups):
            sizes = np.bincount(self.groups)
            return (f"{_count(k, 'cluster')} of rows by {self.group_name} of {plain(sizes.min())} to "
                    f"{plain(sizes.max())} rows (whole clusters' outcome blocks permuted among clusters of any size; "
                    f"subgroups that split a cluster's rows are not tested; resampled for the intervals)")
        if self.design == "between":
            return (f"{_count(k, 'cluster')} of rows by {self.group_name} (whole clusters permuted among those with "
                    "as many rows, resampled for the intervals)")
        return f"rows within {_count(k, 'cluster')} by {self.group_name} (permuted inside each)"

    def smallest_p(self, n_permutations: int) -> float:
        """The smallest adjusted p-value the design can give with ``n_permutations`` draws (``1 / (B + 1)``), or
        that its distinct arrangements allow: ``1 / G!`` for ``G`` clusters permuted whole, ``1 / prod(n_c!)`` for
        rows permuted within clusters, and ``1 / C(G, floor(G / 2))`` for whole outcome blocks of unequal sizes
        (:func:`block_choices`)."""
        floor = 1.0 / (int(n_permutations) + 1.0)
        if self.groups is None:
            return floor
        sizes = np.bincount(self.groups)
        sizes = sizes[sizes > 0]
        if self._blocks():
            return max(floor, 1.0 / block_choices(len(sizes)))
        if self.design == "between":
            log_arr = math.lgamma(len(sizes) + 1.0)
        else:
            log_arr = float(sum(math.lgamma(s + 1.0) for s in sizes.tolist()))
        return max(floor, math.exp(-min(log_arr, 700.0)))

    def undecidable(self, alpha: float, n_permutations: int) -> str:
        """Why no adjusted p-value can reach ``alpha`` in this design (empty when one can): too few clusters to
        exchange, rows that cannot move. The reports say "cannot decide" with this reason."""
        if self.groups is None:
            return ""
        smallest = self.smallest_p(n_permutations)
        if smallest <= alpha:
            return ""
        sizes = np.bincount(self.groups)
        G = int((sizes > 0).sum())
        if self._blocks():
            how = (f"{_count(G, 'cluster')} of rows by {self.group_name} of unequal sizes are permuted as whole "
                   f"blocks, and a subgroup's statistic reads only which blocks land in it: at most "
                   f"{block_choices(G):,} choices, so no adjusted p-value can fall below {smallest:.3g}")
        elif self.design == "between":
            how = (f"{_count(G, 'cluster')} of rows by {self.group_name} permuted {'gives' if G == 1 else 'give'} "
                   f"{math.factorial(G):,} arrangement{'' if G < 2 else 's'}, so no adjusted p-value can fall below "
                   f"{smallest:.3g}")
        else:
            how = (f"rows permuted within {_count(G, 'cluster')} by {self.group_name} give too few arrangements, so "
                   f"no adjusted p-value can fall below {smallest:.3g}")
        least = _least_clusters(alpha, unequal_sizes(self.groups))
        more = f"; with whole clusters as the units a test needs at least {least} clusters" \
            if self.design == "between" else ""
        return f"cannot decide: {how}, above alpha = {plain(alpha)}{more}"

    def _blocks(self) -> bool:
        """Whether whole outcome blocks of unequal sizes, 4 or more, are permuted (:func:`block_choices` bounds the
        p-values; with 3 or fewer no subgroup can be tested at all, and ``G!`` is the looser bound said)."""
        return (self.design == "between" and unequal_sizes(self.groups)
                and int((np.bincount(np.asarray(self.groups)) > 0).sum()) >= 4)


def _count(n: int, noun: str) -> str:
    """``1 cluster``, ``5 clusters``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def block_choices(G: int) -> int:
    """``C(G, floor(G / 2))``: the most distinct values a subgroup's statistic takes when ``G >= 4`` whole outcome
    blocks of unequal sizes are permuted (:mod:`.cluster_permutation`).

    A subgroup of whole clusters is tested with at least two clusters on each side, and its statistic reads only
    which blocks land in it (their sums), not in which order: the ``g! (G - g)!`` arrangements that move blocks
    within each side give it the same value. The arrangements that tie with the observed maximum of the max-T
    include those of the subgroup that attains it, so no adjusted p-value falls below ``1 / C(G, g)``, at most
    ``1 / C(G, floor(G / 2))`` over ``2 <= g <= G - 2``: 1/6 with 4 clusters, 1/10 with 5, 1/20 with 6, 1/35 with 7
    (not ``1 / G!``: 1/24 with 4 clusters, which said a test could decide where none can).
    """
    return math.comb(G, G // 2)


def _least_clusters(alpha: float, blocks: bool = False) -> int:
    """The fewest clusters whose permutations (``G!``, or with ``blocks`` :func:`block_choices` from 4 clusters)
    can give an adjusted p-value at ``alpha``."""
    G = 1
    while G < 170 and 1.0 / (block_choices(G) if blocks and G >= 4 else math.factorial(G)) > alpha:
        G += 1
    return G


def unequal_sizes(groups: np.ndarray | None) -> bool:
    """Whether the dense cluster codes ``groups`` make clusters of more than one size (``design="between"`` then
    permutes whole outcome blocks among the clusters, not rows: :mod:`.cluster_permutation`)."""
    if groups is None or len(groups) == 0:
        return False
    sizes = np.bincount(np.asarray(groups, dtype=np.int64))
    sizes = sizes[sizes > 0]
    return bool(sizes.min() != sizes.max())


def sampling_of(keys: Sequence[np.ndarray], groups: Any = None, design: str = "between",
                n: int | None = None) -> Sampling:
    """A :class:`Sampling` from row keys (features' key first) and an optional ``groups`` argument.

    Raises:
        ValueError: as :func:`check_groups`; an unknown ``design``.
    """
    check_choice(design, "design", DESIGNS)
    order = canonical_order(*keys) if keys else None
    n = len(keys[0]) if keys else n
    if n is None:
        raise ValueError("sampling_of needs keys or n")
    codes = check_groups(groups, n)
    name = str(groups.name) if isinstance(groups, pd.Series) and groups.name is not None else "id"
    return Sampling(order=order, groups=codes, design=design, group_name=name)


class ClusteredRowsWarning(UserWarning):
    """A column looks like a cluster id with repeated values and no ``groups=`` was given."""


def warn_id_like_columns(X: pd.DataFrame, groups: Any, stacklevel: int = 3) -> list[str]:
    """Warn (:class:`ClusteredRowsWarning`) when ``groups`` is None and a column of ``X`` looks like an id with
    repeated values (:func:`id_like_columns`), naming the column and suggesting ``groups=``.

    Returns:
        list[str]: the columns named in the warning (empty: no warning).
    """
    if groups is not None:
        return []
    cols = id_like_columns(X)
    if cols:
        import warnings

        c = cols[0]
        k = int(X[c].nunique())
        others = f" (also {', '.join(map(repr, cols[1:]))})" if len(cols) > 1 else ""
        warnings.warn(
            f"column {c!r} looks like an id with repeated values ({k:,} ids for {len(X):,} rows){others}: rows "
            f"sharing an id are probably not independent, and permuting single rows then overstates the evidence. "
            f"Pass groups=X[{c!r}] to permute whole {c} clusters (and leave the id out of the features)",
            ClusteredRowsWarning, stacklevel=stacklevel)
    return cols


class Permuter:
    """Draws permutations of the rows (as "source row of each row" indices) in a canonical row order.

    Args:
        n: rows.
        order: the canonical order (:func:`canonical_order`), or None for the rows' own order.
        groups: dense cluster codes per row (:func:`check_groups`), or None (rows are the units).
        design: ``"between"`` (whole clusters move among clusters of the same size) or ``"within"`` (rows move
            within their cluster).
    """

    def __init__(self, n: int, order: np.ndarray | None = None, groups: np.ndarray | None = None,
                 design: str = "between"):
        self.n = n
        self.design = check_choice(design, "design", DESIGNS)
        self.order = np.arange(n) if order is None else np.asarray(order, dtype=np.intp)
        if len(self.order) != n:
            raise ValueError(f"order must list the {n} rows, got {len(self.order)}")
        self.groups = None if groups is None else np.asarray(groups, dtype=np.int64)
        self.blocks: list[np.ndarray] = []  # "between": per cluster size, a (clusters, size) matrix of rows
        self.n_fixed_rows = 0  # rows of clusters no other cluster has the size of: they never move
        # "between" with clusters of unequal sizes: no permutation of rows (the max-T permutes whole outcome blocks)
        self.blocks_of_any_size = self.design == "between" and unequal_sizes(self.groups)
        if self.groups is not None and self.design == "between" and not self.blocks_of_any_size:
            g = self.groups[self.order]  # cluster of each row, in canonical row order
            seq = self.order[np.argsort(g, kind="stable")]  # rows by cluster (sorted ids), canonical within
            sizes = np.bincount(self.groups)
            g_seq = self.groups[seq]
            starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            rank = np.arange(n) - starts[g_seq]  # position of each row within its cluster
            for size in np.unique(sizes[sizes > 0]):
                clusters = np.flatnonzero(sizes == size)
                if len(clusters) < 2:
                    self.n_fixed_rows += int(size)
                    continue
                M = np.empty((len(clusters), int(size)), dtype=np.intp)
                at = np.searchsorted(clusters, g_seq)
                here = (at < len(clusters)) & (clusters[np.minimum(at, len(clusters) - 1)] == g_seq)
                M[at[here], rank[here]] = seq[here]
                self.blocks.append(M)
        self.strata_seq: np.ndarray | None = None
        if self.groups is not None and self.design == "within":
            self.strata_seq = self.order[np.argsort(self.groups[self.order], kind="stable")]

    @property
    def unit(self) -> str:
        """The unit of inference, in words."""
        if self.groups is None:
            return "rows"
        if self.blocks_of_any_size:
            return "clusters (whole outcome blocks permuted among clusters of unequal sizes)"
        return "clusters (whole clusters permuted among clusters of equal size)" if self.design == "between" \
            else "rows within clusters (permuted inside each cluster)"

    def draw(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """(n, b) source row of each row under ``b`` permutations.

        Raises:
            ValueError: clusters of unequal sizes under ``design="between"``, which are sign-flipped, not permuted
                (:mod:`.cluster_permutation`).
        """
        if self.blocks_of_any_size:
            raise ValueError("clusters of unequal sizes are not permuted row for row under design='between': their "
                             "whole outcome blocks are (cluster_permutation)")
        n = self.n
        if self.groups is None:
            canon = rng.permuted(np.tile(np.arange(n), (b, 1)), axis=1).T  # (n, b) canonical positions
            idx = np.empty((n, b), dtype=np.intp)
            idx[self.order] = self.order[canon]
            return idx
        idx = np.repeat(np.arange(n, dtype=np.intp)[:, None], b, axis=1)  # rows that never move keep their own
        if self.design == "between":
            for M in self.blocks:  # one pass per distinct cluster size (a handful), not per cluster
                k = len(M)
                perm = rng.permuted(np.tile(np.arange(k), (b, 1)), axis=1)  # (b, k)
                idx[M.ravel()] = M[perm].reshape(b, -1).T
            return idx
        return self._within(rng, b)

    def _within(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """Rows permuted inside each cluster: the canonical sequence sorted by (cluster, uniform draw)."""
        assert self.strata_seq is not None and self.groups is not None
        seq = self.strata_seq
        g = self.groups[seq].astype(np.float64)
        # the uniform draw in [0, 1) orders rows within a cluster and never crosses into the next cluster code
        key = g[None, :] + rng.random((b, self.n))
        perm = np.argsort(key, axis=1, kind="stable")  # (b, n) positions in seq
        idx = np.empty((self.n, b), dtype=np.intp)
        idx[seq] = seq[perm].T
        return idx

    def draw_within(self, rng: np.random.Generator, strata: Sequence[np.ndarray], values: np.ndarray,
                    b: int) -> np.ndarray:
        """(n, b) ``values`` permuted within each stratum (each an array of rows; rows in no stratum keep theirs),
        every stratum's rows taken in canonical order."""
        out = np.repeat(np.asarray(values, dtype=np.float64)[:, None], b, axis=1)
        rank = np.empty(self.n, dtype=np.intp)
        rank[self.order] = np.arange(self.n)
        for rows in strata:
            rows = np.asarray(rows)[np.argsort(rank[rows], kind="stable")]
            out[rows] = values[rows][rng.permuted(np.tile(np.arange(len(rows)), (b, 1)), axis=1).T]
        return out


def cluster_bootstrap_weights(rng: np.random.Generator, groups: np.ndarray | None, n: int, b: int,
                              order: np.ndarray | None = None) -> np.ndarray:
    """(n, b) bootstrap multiplicities of each row: clusters (or rows, without ``groups``) drawn with replacement,
    every row of a drawn cluster taking the cluster's multiplicity.

    The draws are made over clusters numbered in sorted id order (or rows in the canonical ``order``): the
    weights do not depend on the order of the rows.
    """
    if groups is None:
        order = np.arange(n) if order is None else np.asarray(order)
        mult = rng.multinomial(n, np.full(n, 1.0 / n), size=b).T  # (n canonical, b)
        out = np.empty((n, b))
        out[order] = mult
        return out
    k = int(groups.max()) + 1
    mult = rng.multinomial(k, np.full(k, 1.0 / k), size=b).T  # (clusters, b)
    out_g: np.ndarray = mult[groups].astype(np.float64)
    return out_g


def describe_groups(codes: np.ndarray) -> dict[str, Any]:
    """Clusters, rows and size range of a ``groups`` code array (for reports and warnings)."""
    sizes = np.bincount(codes)
    return {"n_clusters": int(len(sizes)), "min_size": plain(sizes.min()), "max_size": plain(sizes.max())}
