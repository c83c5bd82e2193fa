"""The redundancy filter and the merging of identical row sets of the subgroup rankings and findings.

A listed subgroup is **redundant** when a nested one says the same: a sub-pattern whose rate does not differ from
the rest of the larger subgroup holding it, or an over-general pattern that is a smaller one diluted by rows
treated like everyone else (:func:`redundant`; a diluted pattern is decided after the smaller one that carries
the effect, :func:`visit_order`). Subgroups with **identical rows** (a cluster and its entropy
pattern, say) are listed once with every description (:func:`merge_rows`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy.linalg.blas import ssyrk

from .bitsets import bits_at, n_words
from .candidates import CandidateMetrics, Candidates
from .error_control.inference import rate_z
from .error_control.maxt import MaxTResult

__all__ = ["REDUNDANCY_Z", "MAX_REDUNDANCY_CHECK", "redundant", "redundant_among", "visit_order", "containment",
           "merge_rows"]

#: |z| below which a sub-pattern's rate does not differ from the rest of a larger listed subgroup holding it:
#: about the Bonferroni bound of the ~70 one-condition specialisations of a pattern on 8 columns (0.05 / 70).
REDUNDANCY_Z = 3.2
#: Ranked subgroups checked against each other for redundancy (an O(k^2) overlap): the first 3,000 of each
#: (metric, direction) list; past them a finding is listed as it is. On Adult (14,653 rows) this costs 2.3 s per
#: list, 23 s of the whole command; 1,000 would take 2.5 s in all but list 60,556 findings instead of 44,306.
MAX_REDUNDANCY_CHECK = 3000


def redundant_among(candidates: Candidates, metrics: CandidateMetrics | Any, positions: np.ndarray, metric: str,
                    mt: MaxTResult) -> np.ndarray:
    """:func:`redundant` of the listed candidates at ``positions``, in listing order (the bitsets of the first
    :data:`MAX_REDUNDANCY_CHECK` only: the others are not checked). ``metrics`` says what is compared
    (``redundancy_counts``: confusion counts and the rate's z for a binary decision, sums and Welch's t for a
    mean)."""
    offset = np.zeros(len(positions)) if mt.offset is None else mt.offset[positions]
    counts, total, z_of = metrics.redundancy_counts(positions, metric)
    head = positions[:MAX_REDUNDANCY_CHECK]
    counted = candidates.counted_containment(head)  # a family without row bitsets (Dask) counts the nesting
    if counted is None:  # the heads' bitsets formed a block of rows at a time, never all of them at once
        counted = containment_of(lambda words: candidates.bits(head, words), len(head), n_words(candidates.n_rows),
                                 candidates.n_rows, known=candidates.known_containment(head),
                                 form_some=lambda sets, words: candidates.bits(head[sets], words))
    return redundant(None, candidates.n_rows, counts, metric, total, offset, z_of, nested=counted)


def redundant(bits: np.ndarray | None, n: int, counts: np.ndarray, metric: str, total: np.ndarray,
              offset: np.ndarray, z_of: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None, *,
              nested: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Which of k listed subgroups (``bits``: the (h, words) bitsets of the first h over ``n`` rows, h at least
    :data:`MAX_REDUNDANCY_CHECK` or k) are redundant. For every
    pair where a larger one G holds all rows of a smaller one S (two-proportion z tests of the metric's rate on
    the unweighted counts, ``|z| <`` :data:`REDUNDANCY_Z` = no difference):

    * S is redundant given G when its rate does not differ from that of G's other rows: S's extra conditions add
      nothing the data can tell apart from chance (a noisy sub-pattern);
    * G is redundant given S when the rate of its rows outside S does not differ from that of the rows outside
      G: G is S diluted by rows treated like everyone else (an over-general pattern).

    A subgroup redundant given none is listed. The others are visited by decreasing strength (``|z|`` against
    the rest minus the subgroup's max-T ``offset``, the statistic the best-aligned subgroup maximises); one is
    left out when it is redundant given one already kept, so every subgroup left out is represented by a listed
    one. The subgroups redundant given none are kept before the visit, whatever their strength: a noisy
    sub-pattern of such a G is left out even when its luckier rate makes it the stronger (issue 38: ``age ≥ 54
    AND income < 21,600`` listed first instead of ``age ≥ 50 AND income < 21,600``, which describes the planted
    ``age ≥ 51 AND income < 22,500`` and which it does not differ from). A G that is S diluted while S's rate
    differs from G's other rows (the effect lives in S, and G's other rows show none) is visited after S
    (:func:`visit_order`), whatever their strengths, so it is left out when S or another subgroup it is
    redundant given is listed. So is a G when S and G are each redundant given the other (neither difference
    reaches :data:`REDUNDANCY_Z`) and S's rate is further from G's other rows than those are from the rows outside
    G (larger ``|z|``): of the two descriptions of the three parts (S, G's other rows, the rest), S puts G's other
    rows with the rest and G puts them with S, and the one that merges the more alike parts is decided first, as a
    merging of categories joins the least different pair (issue 40: a 1,137-row cell of a k = 5 model, stronger by
    its smaller penalty, listed instead of the 363-row core of the planted region nested in it: the core against
    the cell's other rows |z| 2.40, those rows against the rest 2.36). When G's other rows are the nearer to S,
    the order is by strength as before. This follows a chain of such subgroups down to the one that carries the effect
    (issue 38: ``score < -0.8347``, 1,000 rows, was listed first above ``income < 25,700 AND score < -0.8347``,
    400 rows, both at the p-value floor, by its smaller penalty; its other 600 rows do not differ from the rows
    outside it, |z| 1.97, while the 400 differ from those 600; the 400 were not kept before the visit, being
    redundant given ``income < 29,900 AND score < -0.8347``, which was visited after G). A visit order cannot
    leave every subgroup out (the first one visited is listed), so whether a ranking lists anything does not
    depend on it. Checked on the first :data:`MAX_REDUNDANCY_CHECK` (an O(k^2) overlap). ``z_of(a, b)``: the
    z of the metric of rows counted ``a`` against rows counted ``b`` (default: :func:`~.inference.rate_z` of
    the confusion counts). ``nested``: the :func:`containment` of the first h subgroups when it is known
    without their bitsets (``bits`` is then not read).

    References:
        G. V. Kass, "An exploratory technique for investigating large quantities of categorical data", Applied
        Statistics 29(2), 1980 (CHAID: the pair of categories that differ least is merged first).
    """
    if z_of is None:
        def z_of(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return rate_z(a, b, metric)

    k = len(counts)
    out = np.zeros(k, dtype=bool)
    h = min(k, MAX_REDUNDANCY_CHECK)
    if nested is None:
        if bits is None or len(bits) < h:
            raise ValueError(f"redundant needs the bitsets of the first {h} subgroups, got "
                             f"{0 if bits is None else len(bits)}")
        nested = containment(bits[:h], n)
    g_idx, s_idx, _ = nested
    if len(g_idx) == 0:
        return out
    counts = counts[:h]
    total = np.asarray(total, dtype=np.float64)
    inner, ring = counts[s_idx], counts[g_idx] - counts[s_idx]
    outside = total[None, :] - counts[g_idx]
    with np.errstate(invalid="ignore"):
        # NaN (no rows to compare) counts as "no difference"
        z_sub, z_ring = np.abs(z_of(inner, ring)), np.abs(z_of(ring, outside))
        sub_same, ring_same = ~(z_sub >= REDUNDANCY_Z), ~(z_ring >= REDUNDANCY_Z)
        strength = np.abs(z_of(counts, total[None, :] - counts)) - offset[:h]
    # edges "source is redundant when target is kept", grouped by source
    src = np.concatenate([s_idx[sub_same], g_idx[ring_same]])
    dst = np.concatenate([g_idx[sub_same], s_idx[ring_same]])
    by_src = np.argsort(src, kind="stable")
    src, dst = src[by_src], dst[by_src]
    start = np.searchsorted(src, np.arange(h + 1))
    # redundant given none: listed whatever the order, so a subgroup redundant given one of them is left out
    # even when it is the stronger (a sub-pattern's luckier rate must not hide the larger finding it specialises)
    kept = start[1:] == start[:-1]
    # G is S diluted and S differs from G's other rows: the effect lives in S, so G waits until S is decided;
    # so it does when neither differs (each redundant given the other) but G's other rows are nearer the rows
    # outside G than S's rate is to them: S's description merges the more alike rows (issue 40)
    with np.errstate(invalid="ignore"):
        diluted = ring_same & (~sub_same | (z_sub > z_ring))
    order = visit_order(np.nan_to_num(strength, nan=-np.inf), g_idx[diluted], s_idx[diluted])
    for i in order:  # <= h listed subgroups
        if kept[i]:
            continue
        if kept[dst[start[i]:start[i + 1]]].any():
            out[i] = True
        else:
            kept[i] = True
    return out


def visit_order(strength: np.ndarray, later: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The order in which :func:`redundant` visits h subgroups: by decreasing ``strength`` (ties in index order),
    except that subgroup ``later[j]`` is visited only after subgroup ``first[j]`` (every pair j). The pairs go
    from a larger subgroup to a smaller one it holds, so they have no cycle and every subgroup is visited once:
    among the subgroups whose ``first`` are all visited, the strongest comes next (Kahn's topological sort with
    the strength as priority).

    References:
        A. B. Kahn, "Topological sorting of large networks", Communications of the ACM 5(11), 1962.
    """
    h = len(strength)
    rank = np.empty(h, dtype=np.int64)
    rank[np.argsort(-strength, kind="stable")] = np.arange(h)
    if len(later) == 0:
        return np.argsort(rank)
    pending = np.bincount(later, minlength=h)
    by_first = np.argsort(first, kind="stable")
    waiting, start = later[by_first], np.searchsorted(first[by_first], np.arange(h + 1))
    ready = [(int(rank[i]), int(i)) for i in np.flatnonzero(pending == 0)]
    heapq.heapify(ready)
    order = np.empty(h, dtype=np.intp)
    for step in range(h):  # one subgroup a step; those waiting on it become ready when it was their last
        _, i = heapq.heappop(ready)
        order[step] = i
        after = waiting[start[i]:start[i + 1]]
        pending[after] -= 1  # a pair is listed once, so ``after`` holds no subgroup twice
        for g in after[pending[after] == 0]:
            heapq.heappush(ready, (int(rank[g]), int(g)))
    return order


def containment(bits: np.ndarray, n: int, sample: int = 1024) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (g, s) of h row sets (``bits``: (h, words) bitsets over ``n`` rows) where g holds every row of
    s and more, exactly; and the sets' sizes (:func:`containment_of` of the held bitsets)."""
    return containment_of(lambda words: bits[:, words], len(bits), bits.shape[1], n, sample)


def containment_of(form: Callable[[slice], np.ndarray], h: int, words: int, n: int, sample: int = 1024,
                   block_bytes: int = 2**25,
                   known: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                   form_some: Callable[[np.ndarray, slice], np.ndarray] | None = None,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (g, s) of h row sets where g holds every row of s and more, exactly; and the sets' sizes.
    ``form(w)``: the (h, len(w)) words ``w`` (a slice) of the sets' bitsets over ``n`` rows (``words`` in all),
    asked for a block of words of at most ``block_bytes`` at a time, at most twice: nothing of size h x rows is
    held (3,000 listed patterns at a million rows: 375 MB).

    A pair can only nest if it nests on any subset of the rows: the overlaps on a seeded sample of ``sample``
    rows (a dense symmetric product, ``sample h^2 / 2`` instead of ``n h^2``) leave the candidate pairs, and each
    candidate is then checked on every row by ``s AND NOT g`` on the 64-bit words (a pair found not nested in a
    block of words is not checked in the next ones); the same pairs as the overlaps of all rows, faster on large
    tables (``benchmarks/maxt_speed.py``). A sample of 1,024 rows holds about 10 rows of a subgroup of 1% of the
    rows, so a pair not nested survives it only rarely, and the exact check of the survivors costs less than a
    larger sample. With ``n <= sample`` the overlaps of all rows decide.

    ``known(g, s)``: of candidate pairs (index arrays), those whose nesting the caller knows without the rows
    (True only where every row of ``s`` is in ``g``: a pattern whose items imply the other's,
    :meth:`~.candidates.Candidates.known_containment`); they skip the row check, which then only weeds out the
    sample's false candidates (at 200,000 rows, every one of the 35,845 nested pairs of a ranking's 1,980 heads
    was known from the items, and the row check was 1.65 of its 2.2 CPU s). Whether a known pair is strictly
    nested is still decided by the sizes, so the pairs are the same with or without it. ``form_some(sets, w)``:
    the words ``w`` of the sets ``sets`` (sorted indices) only, for the row check of the pairs still open (a few
    hundred of the sets, not all h); without it ``form(w)`` is read.
    """
    step = max(1, block_bytes // (8 * max(1, h)))
    blocks = [slice(w0, min(words, w0 + step)) for w0 in range(0, words, step)]
    rows = np.arange(n) if n <= sample else np.sort(np.random.default_rng(0).choice(n, sample, replace=False))
    size_int = np.zeros(h, dtype=np.int64)
    at_rows = np.zeros((h, len(rows)), dtype=bool)
    for w in blocks:  # sizes and the sample rows' membership, a block of words at a time
        chunk = np.ascontiguousarray(form(w))
        size_int += np.bitwise_count(chunk).sum(axis=1, dtype=np.int64)
        lo, hi = np.searchsorted(rows, [64 * w.start, 64 * w.stop])
        at_rows[:, lo:hi] = bits_at(chunk, rows[lo:hi] - 64 * w.start)
    size = size_int.astype(np.float64)
    part = np.asfortranarray(at_rows, dtype=np.float32)  # exact counts: at most ``sample`` rows
    on_rows = ssyrk(1.0, part) if h else np.zeros((0, 0), dtype=np.float32)  # upper triangle of part @ part.T
    on_rows = np.triu(on_rows) + np.triu(on_rows, 1).T
    size_rows = np.diag(on_rows)
    g_idx, s_idx = np.nonzero((on_rows >= size_rows[None, :] - 0.5) & (size[:, None] > size[None, :]))
    if n <= sample or len(g_idx) == 0:
        return g_idx, s_idx, size
    inside = np.ones(len(g_idx), dtype=bool)
    open_ = np.arange(len(g_idx)) if known is None else np.flatnonzero(~np.asarray(known(g_idx, s_idx), dtype=bool))
    for w in blocks:  # the pairs still open checked on every word, a block of words at a time
        if len(open_) == 0:
            break
        g, s = g_idx[open_], s_idx[open_]
        if form_some is None:
            held = held_on(form(w), g, s)
        else:  # only the sets of the open pairs
            sets = np.union1d(g, s)
            held = held_on(form_some(sets, w), np.searchsorted(sets, g), np.searchsorted(sets, s))
        inside[open_[~held]] = False
        open_ = open_[held]
    return g_idx[inside], s_idx[inside], size


def held_on(chunk: np.ndarray, g: np.ndarray, s: np.ndarray, block_words: int = 2**22) -> np.ndarray:
    """Whether every bit of row ``s[j]`` of ``chunk`` (bitsets' words) is also set in row ``g[j]``, per pair j:
    ``s AND NOT g`` is zero, the pairs taken ``block_words`` words at a time (not one by one)."""
    out = np.empty(len(g), dtype=bool)
    pairs = max(1, block_words // max(1, chunk.shape[1]))
    for start in range(0, len(g), pairs):
        gb, sb = g[start:start + pairs], s[start:start + pairs]
        out[start:start + pairs] = ~np.any(chunk[sb] & ~chunk[gb], axis=1)
    return out


def merge_rows(keys: np.ndarray, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First of each set of identical row sets (in the given order; ``keys`` from
    :meth:`~.candidates.Candidates.row_keys`) and every description of the set (distinct texts, in the given
    order, joined at the first)."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.intp), texts
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    texts = texts.copy()
    if len(first) < len(texts):
        groups = pd.Series(texts).groupby(inverse).agg(lambda t: " | ".join(dict.fromkeys(t)))  # distinct texts
        texts[first] = groups.to_numpy()  # groups 0 .. len(first) - 1, in order
    return np.sort(first), texts
