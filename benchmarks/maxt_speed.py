"""The kernels of pattern discovery's error control, each beside the simpler way it replaced, in one run.

On the 20,000-row planted-slice table of ``benchmarks/slice_finders.py`` (17,725 mined candidates) and, when the
data folder holds it, on Adult (48,842 rows, 64,829 candidates):

* **counts**: the four counts of every candidate under 200 permutations (800 columns), by one float32 sparse
  product per batch against 16-bit products in blocks of 65,535 rows
  (:class:`~aif360_subjective.detectors.error_control.counters.MemberCounter`), and those against the counts
  through the patterns' cells (:class:`~aif360_subjective.detectors.mining.cell_counts.CellCounter`, what the
  analysis uses), with the cost of setting each up;
* **families**: the 13 step-down families of :func:`~aif360_subjective.detectors.error_control.maxt.max_t` fed one
  family at a
  time (each family's own pass over its hypotheses) against one pass per block of hypotheses;
* **max-T**: :func:`~aif360_subjective.detectors.error_control.maxt.max_t` of all four tests with one and with two
  batches
  counted at once (the products release the GIL), counted through the members against through the cells, and of
  one test (what a ranking asks for);
* **unpacking**: mined bitsets into the membership matrix, all at once against in blocks of 256 bitsets;
* **containment**: the nested pairs among 3,000 listed subgroups, from the overlaps of all rows against from a
  2,048-row sample checked exactly on bitsets.

Each pair is checked to give the same result before it is timed (the best of 3 runs is printed).

Usage: ``python benchmarks/maxt_speed.py [--data DIR] [--skip-adult]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import best_of  # noqa: E402
from slice_finders import _git_commit, load_adult_with_predictions  # noqa: E402

from aif360_subjective.datasets import make_planted_slice  # noqa: E402
from aif360_subjective.detectors import bitsets  # noqa: E402
from aif360_subjective.detectors.error_control import counters, maxt  # noqa: E402
from aif360_subjective.detectors.mining import pattern_mining as pm  # noqa: E402
from aif360_subjective.detectors.options import check_analysis_options  # noqa: E402
from aif360_subjective.detectors.redundancy import containment  # noqa: E402


def mined(X: pd.DataFrame) -> pm.MinedPatterns:
    """The mined patterns of the analysis' default options."""
    opts = check_analysis_options(X)
    items = pm.build_items(X, opts.categorical_features, opts.n_bins, opts.max_merge)
    return pm.mine_patterns(items, pm.check_min_support(opts.min_support, len(X)), opts.max_length)


def overlap_of_all_rows(members: sp.spmatrix) -> np.ndarray:
    """Rows in common of every pair of columns, from every row (dense float32 blocks of rows; exact below 2^24
    rows per block): the simple way to find nested subgroups."""
    n, h = members.shape
    rows = sp.csr_matrix(members, dtype=np.float32)
    out = np.zeros((h, h), dtype=np.float64)
    step = max(1, min(2**26 // max(h, 1), 2**23))
    for start in range(0, n, step):
        block = rows[start:start + step].toarray()
        out += block.T @ block
    return out


def unpack_at_once(bits: np.ndarray, n: int) -> sp.csc_matrix:
    """Every bit of every bitset unpacked, then the set ones found (the simple way)."""
    dense = np.unpackbits(bits.view(np.uint8).reshape(len(bits), -1), axis=1, count=n)
    flat = np.flatnonzero(dense)
    counts = np.bincount(flat // n, minlength=len(bits))
    indptr = np.concatenate([[0], np.cumsum(counts)])
    return sp.csc_matrix((np.ones(len(flat), dtype=bool), flat % n, indptr), shape=(n, len(bits)))


def float32_counts(members: sp.csc_matrix, Y: np.ndarray) -> np.ndarray:
    return np.asarray(sp.csr_matrix(members.T, dtype=np.float32) @ Y.astype(np.float32), dtype=np.float64)


def table_rows(name: str, X: pd.DataFrame, t: np.ndarray, p: np.ndarray) -> list[dict]:
    rows = []
    mp = mined(X)
    members = mp.members()
    m, n = members.shape[1], members.shape[0]
    label = f"{name} ({n:,} rows, {m:,} candidates, {members.nnz:,} memberships)"

    def row(what, simple, ours, s_secs, o_secs):
        rows.append({"table": label, "kernel": what, "simpler way": simple, "s": s_secs, "this package": ours,
                     "s ": o_secs, "speed-up": s_secs / o_secs})

    # counts: 200 permutations x 4 counts = 800 columns of 0/1
    rng = np.random.default_rng(0)
    Y = (rng.random((n, 800)) < 0.5)
    a_secs, a = best_of(lambda: float32_counts(members, Y), repeat=1 if m > 30_000 else 3)
    counter = counters.MemberCounter(members)
    b_secs, b = best_of(lambda: counter.count(Y), repeat=1 if m > 30_000 else 3)
    assert np.array_equal(a, b)
    row("counts of 200 permutations", "float32 sparse product", "16-bit products in row blocks", a_secs, b_secs)
    c_secs, c = best_of(lambda: mp.counter().count(Y), repeat=1 if m > 30_000 else 3)
    assert np.array_equal(b, c)
    row("counts of 200 permutations", "16-bit products of the members", "through the cells", b_secs, c_secs)
    d_secs, _ = best_of(lambda: pm.CellCounter(mp.items.codes, mp.items.column, mp.items.lo, mp.items.hi, mp.patterns),
                     repeat=1)
    row("setting the counts up", "16-bit copy of the members", "cells of every column set",
        best_of(lambda: counters.MemberCounter(members), repeat=1)[0], d_secs)

    # families: each family on its own against one pass per block (z values of 50 permutations)
    obs = [rng.normal(size=m) for _ in range(8)]
    blocks = [rng.normal(size=(m, 50)) for _ in range(8)]
    members_of = [[k] for k in range(8)] + [[2 * f, 2 * f + 1] for f in range(4)] + [list(range(8))]

    def each_family():
        fams = [maxt._StepDown(np.concatenate([obs[k] for k in ks])) for ks in members_of]
        for ks, sd in zip(members_of, fams, strict=True):
            sd.add(np.concatenate([blocks[k] for k in ks]).T)
        return [sd.adjusted(50) for sd in fams]

    def one_pass():
        fams = maxt.Families(obs, members_of)
        fams.add([blk.copy() for blk in blocks])
        return fams.adjusted(50)

    a_secs, a = best_of(each_family)
    b_secs, b = best_of(one_pass)
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b, strict=True))
    row("13 families, 50 permutations", "one family at a time", "one pass per block", a_secs, b_secs)

    # max-T end to end
    workers = maxt.WORKERS
    try:
        maxt.WORKERS = 1
        a_secs, a = best_of(lambda: maxt.max_t(mp.counter(), t, p, 200, 0), repeat=1)
        maxt.WORKERS = max(2, workers)
        b_secs, b = best_of(lambda: maxt.max_t(mp.counter(), t, p, 200, 0), repeat=1)
    finally:
        maxt.WORKERS = workers
    assert np.array_equal(a.p_global, b.p_global, equal_nan=True)
    row("max-T, 4 tests, 200 permutations", "one batch at a time", "two batches at once", a_secs, b_secs)
    # the choice between a column set's cells and its patterns' members, end to end: with a member costing 1 cell
    # entry the rare sets go to their members; the analysis counts a member as 4 (CellCounter._MEMBER_COST)
    saved = pm.CellCounter._MEMBER_COST
    try:
        pm.CellCounter._MEMBER_COST = 1.0
        rare = pm.CellCounter(mp.items.codes, mp.items.column, mp.items.lo, mp.items.hi, mp.patterns, bits=mp.row_bits,
                              support=mp.support)
    finally:
        pm.CellCounter._MEMBER_COST = saved
    if len(rare.member_ids):
        r_secs, r_res = best_of(lambda: maxt.max_t(rare, t, p, 200, 0), repeat=1)
        assert np.array_equal(r_res.p_global, b.p_global, equal_nan=True)
        row("max-T, 4 tests, 200 permutations", f"{len(rare.member_ids):,} rare patterns by members (cost 1)",
            f"by cells (a member costs {saved:g})", r_secs, b_secs)
    m_secs, m_res = best_of(lambda: maxt.max_t(members, t, p, 200, 0), repeat=1)
    assert np.array_equal(m_res.p_global, b.p_global, equal_nan=True)
    row("max-T, 4 tests, 200 permutations", "counted through the members", "through the cells", m_secs, b_secs)
    c_secs, c = best_of(lambda: maxt.max_t(mp.counter(), t, p, 200, 0, tests=(0,)), repeat=1)
    assert np.array_equal(c.p_adjusted[:, 0], b.p_adjusted[:, 0], equal_nan=True)
    row("max-T for one ranking", "all 4 tests", "its own test", b_secs, c_secs)

    # unpacking the mined bitsets
    bits, support = mp.row_bits, mp.support
    a_secs, a = best_of(lambda: unpack_at_once(bits, n), repeat=1)
    b_secs, b = best_of(lambda: bitsets.unpack_to_csc(bits, n, support), repeat=1)
    assert (a != b).nnz == 0
    del a
    row("bitsets -> membership matrix", "all bits at once", "non-zero bytes, 256 bitsets a block", a_secs, b_secs)

    # nested pairs among 3,000 listed subgroups (the largest first, as findings list them)
    h = min(3000, m)
    order = np.argsort(-mp.support, kind="stable")[:h]
    listed = members[:, order]
    size = np.asarray(listed.sum(axis=0)).ravel()

    def from_all_rows():
        overlap = overlap_of_all_rows(listed)
        return np.nonzero((overlap >= size[None, :] - 0.5) & (size[:, None] > size[None, :]))

    a_secs, a = best_of(from_all_rows, repeat=1)
    b_secs, b = best_of(lambda: containment(mp.row_bits[order], n)[:2], repeat=1)
    assert set(zip(*a, strict=True)) == set(zip(*b, strict=True))
    row(f"nested pairs of {h:,} subgroups", "overlaps of all rows", "1,024-row sample, bitsets", a_secs, b_secs)
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve()
    default_data = Path(os.environ.get("AIF360_SUBJECTIVE_DATA", here.parents[2] / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--skip-adult", action="store_true")
    args = ap.parse_args(argv)
    print(f"# max-T kernels (commit {_git_commit()}; {os.cpu_count()} cores)")
    b = make_planted_slice(n_samples=20_000, shape="conjunction", n_conditions=2, planted_share=0.05, effect=0.2,
                           random_state=0)
    rows = table_rows("planted slice", b.X, b.y_true, b.y_pred)
    if not args.skip_adult and (args.data / "adult" / "adult.data").exists():
        X, y, p = load_adult_with_predictions(args.data)
        rows += table_rows("Adult", X, np.asarray(y), np.asarray(p))
    elif not args.skip_adult:
        print(f"Adult not found under {args.data}: skipped")
    with pd.option_context("display.width", 250, "display.max_colwidth", 80):
        print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
