"""``max_patterns`` decided while a level is counted: the miner counts a level's extensions a block of patterns at a
time and stops once they pass the bound. The length left out, and every kept pattern (order, rows, supports), must
be those of the miner that counted the whole level first (:func:`_whole_level_miner`, its loop as it was)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_planted_slice
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.bitsets import bit_keys, pack, popcount_and
from aif360_subjective.detectors.mining import pattern_mining as pm
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns
from aif360_subjective.report.answer import subgroup_answer

DEFAULT_BLOCK_BYTES = pm.COUNT_BLOCK_BYTES


def _whole_level_miner(items, min_support, max_length, max_patterns):
    """The loop of ``mine_patterns`` before the blocked count: every extension of a level counted at once, then the
    bound checked. Returns (patterns, supports, bitsets, n_identical, skipped_length, skipped_count, patterns per
    length mined before identical row sets are merged)."""
    sup1 = np.asarray(items.matrix.sum(axis=0)).ravel()
    keep = np.flatnonzero(sup1 >= min_support)
    item_bits = pack(items.matrix[:, keep].toarray())
    level = np.arange(len(keep))[:, None]
    bits = item_bits
    all_pats, all_bits, all_support = [level], [bits], [sup1[keep]]
    col = items.column[keep]
    n_items = len(item_bits)
    total, skipped = len(level), (None, 0)
    for _ in range(1, max_length):
        if len(level) == 0:
            break
        counts = popcount_and(bits, item_bits)
        later = np.arange(n_items)[None, :] > level[:, -1][:, None]
        other_col = np.ones_like(later)
        for j in range(level.shape[1]):
            other_col &= col[None, :] != col[level[:, j]][:, None]
        pi, ii = np.nonzero(later & other_col & (counts >= min_support))
        if len(pi) == 0:
            break
        if max_patterns is not None and total + len(pi) > max_patterns:
            skipped = (level.shape[1] + 1, len(pi))
            break
        total += len(pi)
        level = np.column_stack([level[pi], ii])
        bits = bits[pi] & item_bits[ii]
        all_pats.append(level)
        all_bits.append(bits)
        all_support.append(counts[pi, ii])
    B = np.vstack(all_bits)
    support = np.concatenate(all_support).astype(np.int64)
    pats = [tuple(row) for lv in all_pats for row in keep[lv].tolist()]
    _, first = np.unique(bit_keys(B, support), axis=0, return_index=True)
    first = np.sort(first)
    return ([pats[i] for i in first], support[first], B[first], len(pats) - len(first), skipped[0], skipped[1],
            [len(lv) for lv in all_pats])


def _tables():
    # 4 columns of 2 levels, every combination 4 times (8 items, 24 pairs, 32 triples)
    grid = np.array(np.meshgrid(*[[0, 1]] * 4, indexing="ij")).reshape(4, -1).T
    yield "grid", pd.DataFrame(np.repeat(grid, 4, axis=0), columns=list("abcd")).astype(str), list("abcd"), 1
    # categorical and numeric columns (range items of merged bins), a planted slice
    b = make_planted_slice(700, n_categorical=5, n_numeric=2, planted_share=0.1, random_state=1)
    cats = [c for c in b.X.columns if c.startswith("cat")]
    yield "mixed", b.X, cats, 20
    # 10 columns of 3 unevenly drawn levels: many identical row sets among rare combinations
    rng = np.random.default_rng(2)
    X = pd.DataFrame({f"c{j}": rng.choice(["x", "y", "z"], 300, p=[0.6, 0.3, 0.1]) for j in range(10)})
    yield "uneven", X, list(X.columns), 4


def _cases():
    for name, X, cats, min_support in _tables():
        items = build_items(X, cats, 4, 2)
        n1, n2, n3 = _whole_level_miner(items, min_support, 3, None)[6]  # the bound counts identical row sets too
        # no bound; bounds that keep all; that cut length 3 (by 1 pattern, with no room, with room for 5); that cut
        # length 2; below the single items
        bounds = [None, 10**9, n1 + n2 + n3, n1 + n2 + n3 - 1, n1 + n2, n1 + n2 + 5, n1 + 3, max(1, n1 - 2)]
        for max_patterns in bounds:
            yield name, items, min_support, max_patterns


@pytest.mark.parametrize("block_bytes", [1, 5_000, DEFAULT_BLOCK_BYTES])
def test_the_blocked_count_keeps_and_leaves_out_what_the_whole_count_did(monkeypatch, block_bytes):
    # block_bytes=1: one pattern per block; 5,000: a few; the default: every level of these tables in one block
    monkeypatch.setattr(pm, "COUNT_BLOCK_BYTES", block_bytes)
    early = 0
    for name, items, min_support, max_patterns in _cases():
        pats, support, bits, n_identical, skipped_length, skipped_count, _ = _whole_level_miner(
            items, min_support, 3, max_patterns)
        got = mine_patterns(items, min_support, 3, max_patterns)
        where = f"{name}, max_patterns={max_patterns}"
        assert got.patterns == pats, where
        np.testing.assert_array_equal(got.support, support, err_msg=where)
        np.testing.assert_array_equal(got.row_bits, bits, err_msg=where)
        assert (got.n_identical, got.skipped_length) == (n_identical, skipped_length), where
        if got.skipped_count_is_lower_bound:
            # stopped before the level's end: more than the room left were found, no more than the level holds
            # (all of them when the patterns not counted had no extension)
            room = max(max_patterns - len(pats) - n_identical, 0)  # every kept pattern is shorter
            assert room < got.skipped_count <= skipped_count, where
            early += got.skipped_count < skipped_count
        else:
            assert got.skipped_count == skipped_count, where
    if block_bytes < DEFAULT_BLOCK_BYTES:
        assert early >= 4  # the early stop was exercised
    else:
        assert early == 0  # one block per level: the count is whole, hence exact


def test_the_left_out_level_is_counted_only_until_it_passes_the_bound(monkeypatch):
    # 10 columns of 3 levels: the pairs' level holds 45 x 9 = 405 patterns; with room for 4 triples and one pattern
    # per block, counting stops at the pair whose extensions pass 4, long before the 405th
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"c{j}": rng.choice(["x", "y", "z"], 400) for j in range(10)})
    items = build_items(X, list(X.columns), 4, 1)
    counted: list[int] = []

    def counting(a, b, block=64):
        counted.append(len(a))
        return popcount_and(a, b, block)

    monkeypatch.setattr(pm, "popcount_and", counting)
    monkeypatch.setattr(pm, "COUNT_BLOCK_BYTES", 1)
    got = mine_patterns(items, 1, 3, max_patterns=30 + 405 + 4)
    assert (got.skipped_length, got.mined_length, len(got.patterns) + got.n_identical) == (3, 2, 435)
    # the first pair (c0=x, c1=x) has 8 x 3 = 24 triples, more than the room for 4: the count stops there
    assert (got.skipped_count, got.skipped_count_is_lower_bound) == (24, True)
    assert _whole_level_miner(items, 1, 3, 30 + 405 + 4)[5] == 120 * 27  # what the whole count would have said
    # the singles' level was counted whole (30 blocks of one pattern), the pairs' one block only (of 405)
    assert counted == [1] * 31


def test_the_note_says_at_least_when_the_count_stopped_early(monkeypatch):
    grid = np.array(np.meshgrid(*[[0, 1]] * 4, indexing="ij")).reshape(4, -1).T
    X = pd.DataFrame(np.repeat(grid, 4, axis=0), columns=list("abcd")).astype(str)
    items = build_items(X, list("abcd"), 2, 1)
    exact = mine_patterns(items, 1, 3, max_patterns=40)  # room for 8 of the 32 triples; one block: counted whole
    assert (exact.skipped_count, exact.skipped_count_is_lower_bound) == (32, False)
    assert "stop at 2 conditions: the 32 patterns of 3 conditions would have brought the 32 shorter" in (
        exact.truncation_note())
    # one pair per block, in level order: (a=0, b=0) and (a=0, b=1) have 4 triples each (c and d), 8 fit the room;
    # (a=0, c=0) adds 2 (d): 10 > 8, the count stops there
    monkeypatch.setattr(pm, "COUNT_BLOCK_BYTES", 1)
    early = mine_patterns(items, 1, 3, max_patterns=40)
    assert (early.skipped_length, early.skipped_count, early.skipped_count_is_lower_bound) == (3, 10, True)
    assert early.patterns == exact.patterns
    note = early.truncation_note()
    assert note.startswith("Mined patterns stop at 2 conditions: at least 10 patterns of 3 conditions (counting "
                           "stopped once they passed the bound) would have brought the 32 shorter ones above "
                           "max_patterns=40")
    rng = np.random.default_rng(0)
    rep = detect_subgroups(X, rng.integers(0, 2, len(X)), rng.integers(0, 2, len(X)), discovery="patterns",
                           min_support=1, max_patterns=40, random_state=0)
    assert rep.mining_note() == note and note in subgroup_answer(rep).lines


def test_single_items_above_the_bound_still_leave_out_pairs_only_if_some_are_frequent(monkeypatch):
    # a=p (2 rows), a=q (8), b=u (5), b=v (5); min_support 2: a=p's pairs hold 1 row each (infrequent), a=q's 4 each
    X = pd.DataFrame({"a": ["p"] * 2 + ["q"] * 8, "b": ["u", "v"] + ["u"] * 4 + ["v"] * 4})
    items = build_items(X, ["a", "b"], 2, 1)
    monkeypatch.setattr(pm, "COUNT_BLOCK_BYTES", 1)  # one single item per block: a=p's block finds none
    got = mine_patterns(items, 2, 2, max_patterns=2)  # the 4 items are kept whatever the bound
    assert (len(got.patterns), got.skipped_length, got.skipped_count, got.skipped_count_is_lower_bound) == (
        4, 2, 2, False)
    assert _whole_level_miner(items, 2, 2, 2)[4:6] == (2, 2)
    # with no frequent pair at all, nothing is left out
    none = mine_patterns(items, 5, 2, max_patterns=2)
    assert (len(none.patterns), none.skipped_length, none.skipped_count) == (3, None, 0)
