"""The redundancy filter's containment with pairs known nested from their descriptions (issue 42): the same pairs
as from the rows, the row check skipped for the known ones and still weeding out the sample's false candidates."""

from __future__ import annotations

import numpy as np
import pandas as pd

from aif360_subjective.detectors.bitsets import pack
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns
from aif360_subjective.detectors.redundancy import containment, containment_of


def _by_conditions(mp):
    return {frozenset(mp.conditions(i).items()): i for i in range(len(mp.patterns))}


def test_held_by_items_knows_shared_items_not_what_only_the_rows_say():
    """Rows (c, d, e): {c=x, d=p} is rows 0-1, inside {e=u} (rows 0, 1, 4, 5, 6) though neither c=x (rows 0, 1,
    2, 5) nor d=p (rows 0, 1, 3, 6) is: only the rows say so, so it is not known. {c=x} holds {c=x, d=p} by their
    shared item: known. {c=x} does not hold {d=p}: not known."""
    X = pd.DataFrame({"c": list("xxxyyxyy"), "d": list("ppqpqqpq"), "e": list("uuwwuuuw")})
    mp = mine_patterns(build_items(X, ["c", "d", "e"]), min_support=1, max_length=2)
    at = _by_conditions(mp)
    cx, dp, eu = at[frozenset({("c", "x")})], at[frozenset({("d", "p")})], at[frozenset({("e", "u")})]
    cx_dp = at[frozenset({("c", "x"), ("d", "p")})]
    got = mp.held_by_items(np.array([cx, eu, cx, dp]), np.array([cx_dp, cx_dp, dp, cx_dp]))
    assert got.tolist() == [True, False, False, True]
    assert set(mp.rows(cx_dp)) <= set(mp.rows(eu))  # nested by the rows all the same


def test_held_by_items_knows_a_wider_range_on_the_same_column():
    """v in 8 bins of 100 rows and their runs of up to 4: a run holds every pattern on a run inside it."""
    X = pd.DataFrame({"v": np.arange(800) / 800, "c": np.tile(list("ab"), 400)})
    mp = mine_patterns(build_items(X, ["c"], n_bins=8, max_merge=4), min_support=1, max_length=2)
    k = len(mp.patterns)
    g, s = (a.ravel() for a in np.meshgrid(np.arange(k), np.arange(k), indexing="ij"))
    known = mp.held_by_items(g, s)
    rows = [set(mp.rows(i).tolist()) for i in range(k)]
    nested = np.array([rows[b] <= rows[a] for a, b in zip(g, s, strict=True)])
    assert not (known & ~nested).any()  # never claims a pair the rows deny
    lo, hi = mp.items.lo, mp.items.hi
    ranges = [i for i in range(k) if len(mp.patterns[i]) == 1 and mp.items.column[mp.patterns[i][0]] == 0]
    wide = [i for i in ranges if hi[mp.patterns[i][0]] - lo[mp.patterns[i][0]] > 1]
    assert wide  # merged runs of base bins exist
    for a in wide:  # every narrower range inside a wider one, alone or with c, is known
        ja = mp.patterns[a][0]
        for b in range(k):
            jb = [j for j in mp.patterns[b] if mp.items.column[j] == 0]
            if jb and lo[ja] <= lo[jb[0]] and hi[jb[0]] <= hi[ja]:
                assert known[a * k + b], (mp.description(a), mp.description(b))


def test_held_by_items_never_claims_what_the_rows_deny():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.integers(0, 3, 300), "b": rng.integers(0, 3, 300), "v": rng.random(300)})
    mp = mine_patterns(build_items(X, ["a", "b"], n_bins=4, max_merge=2), min_support=5, max_length=3)
    bits = mp.bits()
    k = len(bits)
    g, s = (a.ravel() for a in np.meshgrid(np.arange(k), np.arange(k), indexing="ij"))
    known = mp.held_by_items(g, s)
    nested = ~np.any(bits[s] & ~bits[g], axis=1)
    assert not (known & ~nested).any() and known.sum() > k  # some pairs beyond each pattern with itself


def test_known_pairs_skip_the_row_check_and_false_candidates_are_still_weeded_out():
    """Four sets over 200 rows: A rows 0-99, B rows 10-59 (in A), C rows 30-79 and one row r outside A that the
    50-row sample misses (so (A, C) is a false candidate of the sample), D rows 0-9 (in A and not in B). Known:
    (A, B). The pairs are those of the rows ((A, B), (A, D)); the false candidate (A, C) is checked on the rows
    and left out."""
    n, sample = 200, 50
    rows = np.sort(np.random.default_rng(0).choice(n, sample, replace=False))  # the sample containment_of draws
    r = int(np.setdiff1d(np.arange(100, n), rows)[0])
    dense = np.zeros((n, 4), dtype=bool)
    dense[0:100, 0] = True
    dense[10:60, 1] = True
    dense[30:80, 2] = True
    dense[r, 2] = True
    dense[0:10, 3] = True
    bits = pack(dense)
    seen: list[tuple[int, int]] = []

    def known(g, s):
        seen.extend(zip(g.tolist(), s.tolist(), strict=True))
        return (g == 0) & (s == 1)

    g0, s0, size0 = containment(bits, n, sample=sample)
    g1, s1, size1 = containment_of(lambda w: bits[:, w], 4, bits.shape[1], n, sample=sample, known=known)
    assert (0, 2) in seen  # the false candidate reached the row check
    assert sorted(zip(g1.tolist(), s1.tolist(), strict=True)) == [(0, 1), (0, 3)]
    np.testing.assert_array_equal(g1, g0)
    np.testing.assert_array_equal(s1, s0)
    np.testing.assert_array_equal(size1, size0)
    np.testing.assert_array_equal(size1, dense.sum(axis=0))
    # the row check reading only the sets of the open pairs: the same pairs, and B (known) never formed there
    some: list[list[int]] = []

    def form_some(sets, w):
        some.append(sets.tolist())
        return bits[sets, w]

    g2, s2, size2 = containment_of(lambda w: bits[:, w], 4, bits.shape[1], n, sample=sample, known=known,
                                   form_some=form_some)
    np.testing.assert_array_equal(g2, g0)
    np.testing.assert_array_equal(s2, s0)
    np.testing.assert_array_equal(size2, size0)
    assert some and all(1 not in sets and 0 in sets for sets in some)


def test_when_every_candidate_is_known_the_bitsets_are_formed_once():
    """Nested sets only (each the one before it less some rows), every candidate known: the second pass over the
    words never starts; a pair the caller claims is taken as it says (its rows are not read)."""
    n = 1000
    dense = np.zeros((n, 3), dtype=bool)
    dense[:600, 0], dense[:400, 1], dense[:100, 2] = True, True, True
    bits = pack(dense)
    asked: list[tuple[int, int]] = []

    def form(w):
        asked.append((w.start, w.stop))
        return bits[:, w]

    g, s, _ = containment_of(form, 3, bits.shape[1], n, sample=64, block_bytes=8 * 3 * 4,
                             known=lambda g, s: np.ones(len(g), dtype=bool))
    assert sorted(zip(g.tolist(), s.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 2)]
    assert len(asked) == -(-bits.shape[1] // 4)  # one pass of 4-word blocks
    asked.clear()
    g, s, _ = containment_of(form, 3, bits.shape[1], n, sample=64, block_bytes=8 * 3 * 4)
    assert sorted(zip(g.tolist(), s.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 2)]
    assert len(asked) == 2 * -(-bits.shape[1] // 4)  # and the row check's pass
