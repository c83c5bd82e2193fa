"""The redundancy filter and the merging of identical row sets of the subgroup rankings and findings.

A listed subgroup is **redundant** when a nested one says the same: a sub-pattern whose rate does not differ from
the rest of the larger subgroup holding it, or an over-general pattern that is a smaller one diluted by rows
treated like everyone else (:func:`redundant`; a diluted pattern is decided after the smaller one that carries
the effect, :func:`visit_order`; of two neighbouring cuts the data cannot tell apart the looser is listed,
:func:`neighbouring_cuts`). Subgroups with **identical rows** (a cluster and its entropy
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
           "neighbouring_cuts", "cut_signatures", "give_way", "merge_rows"]

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
                                 candidates.n_rows)
    g_idx, s_idx, _ = counted
    return redundant(None, candidates.n_rows, counts, metric, total, offset, z_of, nested=counted,
                     neighbours=neighbouring_cuts(candidates, head, g_idx, s_idx))


def cut_signatures(items: Any, patterns: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pattern (a tuple of positions in ``items``, a :class:`~.mining.pattern_mining.Items`): what it is
    apart from the places of its one-sided cuts, and those places.

    A one-sided item (``age ≥ 49``, ``income < 21,400``: a numeric value ``(low, high, closed)`` with an infinite
    end) is keyed by its column and side, and placed by the rank of its cut among the cuts of the one-sided items of
    that column and side (consecutive ranks: one grid step apart); every other item (a category, a range) is kept
    as it is.

    Returns:
        (form, cuts, steps): ``form`` (patterns,) int, equal for patterns with the same other items and the same
        (column, side) keys, -1 for a pattern without a one-sided item; ``steps`` (patterns, L) the ranks of its
        cuts in key order (L the longest pattern; 0 past its cuts); ``cuts`` (patterns,) how many it has.
    """
    side = np.zeros(len(items.values), dtype=np.int8)  # 0 none, 1 "<", 2 "≥"
    at = np.zeros(len(items.values), dtype=np.float64)
    for j, v in enumerate(items.values):  # one pass over the items (a few hundred), not the rows
        if isinstance(v, tuple) and np.isinf(v[0]) != np.isinf(v[1]):
            side[j], at[j] = (1, v[1]) if np.isinf(v[0]) else (2, v[0])
    column = np.asarray(items.column, dtype=np.int64)
    rank = np.zeros(len(side), dtype=np.int64)
    one = np.flatnonzero(side > 0)
    if len(one):  # dense rank of the cut within (column, side)
        frame = pd.DataFrame({"c": column[one], "s": side[one], "at": at[one]})
        rank[one] = frame.groupby(["c", "s"])["at"].rank(method="dense").to_numpy(dtype=np.int64)
    width = max((len(p) for p in patterns), default=0)
    steps = np.zeros((len(patterns), width), dtype=np.int64)
    cuts = np.zeros(len(patterns), dtype=np.int64)
    forms: dict[tuple[Any, ...], int] = {}
    form = np.full(len(patterns), -1, dtype=np.int64)
    for i, pat in enumerate(patterns):  # <= MAX_REDUNDANCY_CHECK patterns of <= max_length items
        cut_items = sorted((int(column[j]), int(side[j]), int(j)) for j in pat if side[j])
        if not cut_items:
            continue
        key = (tuple(sorted(int(j) for j in pat if not side[j])), tuple((c, sd) for c, sd, _ in cut_items))
        form[i] = forms.setdefault(key, len(forms))
        cuts[i] = len(cut_items)
        steps[i, :len(cut_items)] = rank[[j for _, _, j in cut_items]]
    return form, cuts, steps


def neighbouring_cuts(candidates: Candidates, positions: np.ndarray, g_idx: np.ndarray,
                      s_idx: np.ndarray) -> np.ndarray:
    """Which nested pairs (``g_idx[k]``, ``s_idx[k]``: places in ``positions``) are **neighbouring cuts**: two
    mined patterns with the same conditions except one-sided cuts of the same columns and sides, each cut at most
    one grid step from the other's (:func:`cut_signatures`); False for any other pair (other kinds, ranges,
    categories, cuts farther apart)."""
    out = np.zeros(len(g_idx), dtype=bool)
    if "pattern" not in candidates.kinds or not len(g_idx):
        return out
    fam = candidates.family("pattern")
    start = int(candidates.positions("pattern")[0]) if len(fam.ids) else 0
    local = np.asarray(positions, dtype=np.int64) - start
    mined = (local >= 0) & (local < len(fam.ids))
    form = np.full(len(local), -1, dtype=np.int64)
    patterns = getattr(fam, "patterns", None)
    if patterns is None or not mined.any():
        return out
    f, _, st = cut_signatures(fam.items, [patterns[i] for i in local[mined]])
    form[mined] = f
    steps = np.zeros((len(local), st.shape[1]), dtype=np.int64)
    steps[mined] = st
    same = (form[g_idx] >= 0) & (form[g_idx] == form[s_idx])
    return same & (np.abs(steps[g_idx] - steps[s_idx]).max(axis=1, initial=0) <= 1)


def redundant(bits: np.ndarray | None, n: int, counts: np.ndarray, metric: str, total: np.ndarray,
              offset: np.ndarray, z_of: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None, *,
              nested: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              neighbours: np.ndarray | None = None) -> np.ndarray:
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
    redundant given is listed; this follows a chain of such subgroups down to the one that carries the effect
    (issue 38: ``score < -0.8347``, 1,000 rows, was listed first above ``income < 25,700 AND score < -0.8347``,
    400 rows, both at the p-value floor, by its smaller penalty; its other 600 rows do not differ from the rows
    outside it, |z| 1.97, while the 400 differ from those 600; the 400 were not kept before the visit, being
    redundant given ``income < 29,900 AND score < -0.8347``, which was visited after G). A visit order cannot
    leave every subgroup out (the first one visited is listed), so whether a ranking lists anything does not
    depend on it.

    **Neighbouring cuts** (``neighbours``, :func:`neighbouring_cuts`: G and S the same conditions but for
    one-sided cuts one grid step apart, G the looser) that are redundant given each other (S's rate does not
    differ from that of the rows between the two cuts, nor do those rows from the rows outside G) are decided for
    G: a listed S gives way to G (:func:`give_way`). Neither test separates the rows between the cuts from the
    slice or from everyone else, so no reading of the data says they are spared; the tighter cut would claim
    they are (it draws its line inside rows that look like the slice as much as like the rest), and an audit
    that leaves out people it cannot show are treated better misreports whom the effect reaches. The larger
    statistic is no evidence either way here: two cuts one step apart share most rows, and their statistics
    differ by little more than the noise of the rows between them (``python benchmarks/natural_conditions.py
    --diagnose`` prints the neighbouring cuts of each slice missed). The step compares a listed cut with its own
    neighbours only, once: applied along a chain of cuts, each a step looser than the last, it would drift away
    from where the evidence peaks. Pairs the tests separate keep the rules above. The step only trades one
    significant subgroup for another one that holds it: which subgroups are significant, and whether a ranking
    lists anything, do not change.

    Checked on the first :data:`MAX_REDUNDANCY_CHECK` (an O(k^2) overlap). ``z_of(a, b)``: the
    z of the metric of rows counted ``a`` against rows counted ``b`` (default: :func:`~.inference.rate_z` of
    the confusion counts). ``nested``: the :func:`containment` of the first h subgroups when it is known
    without their bitsets (``bits`` is then not read). ``neighbours``: per pair of the containment, whether the
    two are neighbouring cuts (default: none is)."""
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
        sub_same = ~(np.abs(z_of(inner, ring)) >= REDUNDANCY_Z)
        ring_same = ~(np.abs(z_of(ring, outside)) >= REDUNDANCY_Z)
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
    # G is S diluted and S differs from G's other rows: the effect lives in S, so G waits until S is decided
    diluted = ring_same & ~sub_same
    order = visit_order(np.nan_to_num(strength, nan=-np.inf), g_idx[diluted], s_idx[diluted])
    for i in order:  # <= h listed subgroups
        if kept[i]:
            continue
        if kept[dst[start[i]:start[i + 1]]].any():
            out[i] = True
        else:
            kept[i] = True
    if neighbours is not None:
        give_way(out, strength, g_idx, s_idx, sub_same & ring_same & neighbours)
    return out


def give_way(out: np.ndarray, strength: np.ndarray, g_idx: np.ndarray, s_idx: np.ndarray,
             looser: np.ndarray) -> None:
    """The neighbouring-cuts step of :func:`redundant`, in place on its ``out``: every listed subgroup
    ``s_idx[k]`` with a pair ``looser[k]`` (its looser neighbouring cut ``g_idx[k]``, the two redundant given each
    other) is left out, and the strongest of its such looser cuts is listed instead. Decided once, from the
    subgroups listed before this step: a cut listed in another's place does not give way in turn."""
    pairs = np.flatnonzero(looser & ~out[s_idx])
    if not len(pairs):
        return
    # per listed tighter cut, its strongest looser neighbour (ties: the first in listing order)
    pairs = pairs[np.lexsort((g_idx[pairs], -np.nan_to_num(strength[g_idx[pairs]], nan=-np.inf), s_idx[pairs]))]
    first = np.r_[True, s_idx[pairs][1:] != s_idx[pairs][:-1]]
    tight, loose = s_idx[pairs][first], g_idx[pairs][first]
    out[tight] = True
    out[loose] = False


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
                   block_bytes: int = 2**25) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (g, s) of h row sets where g holds every row of s and more, exactly; and the sets' sizes.
    ``form(w)``: the (h, len(w)) words ``w`` (a slice) of the sets' bitsets over ``n`` rows (``words`` in all),
    asked for a block of words of at most ``block_bytes`` at a time, twice: nothing of size h x rows is held
    (3,000 listed patterns at a million rows: 375 MB).

    A pair can only nest if it nests on any subset of the rows: the overlaps on a seeded sample of ``sample``
    rows (a dense symmetric product, ``sample h^2 / 2`` instead of ``n h^2``) leave the candidate pairs, and each
    candidate is then checked on every row by ``s AND NOT g`` on the 64-bit words; the same pairs as the
    overlaps of all rows, faster on large tables (``benchmarks/maxt_speed.py``). A sample of 1,024 rows holds
    about 10 rows of a subgroup of 1% of the rows, so a pair not nested survives it only rarely, and the exact
    check of the survivors costs less than a larger sample. With ``n <= sample`` the overlaps of all rows decide.
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
    for w in blocks:  # every candidate pair checked on every word, a block of words at a time
        chunk = form(w)
        pairs = max(1, 2**22 // max(1, chunk.shape[1]))
        for start in range(0, len(g_idx), pairs):  # candidate pairs in blocks, not one by one
            g, s_ = g_idx[start:start + pairs], s_idx[start:start + pairs]
            inside[start:start + pairs] &= ~np.any(chunk[s_] & ~chunk[g], axis=1)
    return g_idx[inside], s_idx[inside], size


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
