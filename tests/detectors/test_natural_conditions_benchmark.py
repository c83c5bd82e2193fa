"""The generator and the max-T baseline of ``benchmarks/natural_conditions.py``, without the peers."""

import numpy as np
import pandas as pd
import pytest
from _benchmark_module import benchmark_module
from scipy import stats

SHARE_OF_CUT = {"cat_threshold": (0.25, 0.45), "two_thresholds": (0.20, 0.45), "tail_cat": (0.15, 0.25)}


@pytest.fixture(scope="module")
def bench():
    yield from benchmark_module("natural_conditions")


def _rows(X, column, op, value):
    x = X[column].to_numpy()
    return x == value if op == "==" else x >= value if op == ">=" else x < value


def test_off_grid_hand_cases(bench):
    # 0.05 and 0.3 are on the 5 % grid; 0.059 is 0.009 from it; 0.06 and 0.325 are at least 0.01 away
    got = bench.off_grid(np.array([0.05, 0.3, 0.059, 0.06, 0.325, 0.0]))
    assert got.tolist() == [False, False, False, True, True, False]


def test_draw_cut_hand_case(bench):
    # 0..99: the share below v is v / 100; ">=" leaves 1 - v / 100, in [0.25, 0.45] for v in 55..75;
    # off the grid (at least 0.01 from a multiple of 0.05): 56-59, 61-64, 66-69, 71-74
    x = np.arange(100)
    rng = np.random.default_rng(0)
    cuts = {int(bench.draw_cut(x, rng, ">=", 0.25, 0.45)) for _ in range(300)}
    assert cuts == {56, 57, 58, 59, 61, 62, 63, 64, 66, 67, 68, 69, 71, 72, 73, 74}
    assert bench.draw_cut(x, rng, "<", 0.30, 0.30) is None  # only v = 30, on the grid


@pytest.mark.parametrize("shape", ["cat_threshold", "two_thresholds", "window_cat", "tail_cat"])
def test_planted_slices_as_described(bench, shape):
    for seed in range(4):
        t = bench.natural_table(shape, 5000, seed)
        assert t.shape == shape and len(t.X) == 5000
        # the planted rows are those of the conditions, about 9 % of the rows
        mask = np.ones(5000, dtype=bool)
        for c in t.conditions:
            mask &= _rows(t.X, *c)
        np.testing.assert_array_equal(mask, t.planted)
        assert 0.06 <= t.planted.mean() <= 0.12, (shape, seed, t.planted.mean())
        numeric = [c for c in t.conditions if c[1] != "=="]
        categorical = [c for c in t.conditions if c[1] == "=="]
        assert len(categorical) == (0 if shape == "two_thresholds" else 1)
        assert len(numeric) == 2 if shape in ("two_thresholds", "window_cat") else len(numeric) == 1
        for column, op, value in numeric:
            below = float((t.X[column].to_numpy() < value).mean())
            # no quantile grid (5 % steps: ventiles, deciles, quintiles, quartiles) lines up with a planted edge
            assert abs(below - round(below / 0.05) * 0.05) >= 0.01 - 1e-12, (shape, seed, column, below)
            if shape in SHARE_OF_CUT:
                lo, hi = SHARE_OF_CUT[shape]
                assert lo <= float(_rows(t.X, column, op, value).mean()) <= hi
        if shape == "tail_cat":
            assert numeric[0][1] == "<"
        if shape == "window_cat":
            (col, op1, lo), (_, op2, hi) = numeric
            assert (op1, op2) == (">=", "<") and lo < hi
            window = (t.X[col] >= lo) & (t.X[col] < hi)
            assert 0.15 <= window.mean() <= 0.25
            assert (t.X[col] < lo).mean() >= 0.05 and (t.X[col] >= hi).mean() >= 0.05


def test_integer_column_cuts_found(bench):
    # seed 102005 draws age as the second threshold, whose integers jump over the narrowest share range
    t = bench.natural_table("two_thresholds", 5000, 102005)
    assert [c[0] for c in t.conditions][1] == "age" and 0.06 <= t.planted.mean() <= 0.12


def test_generator_is_deterministic_by_seed(bench):
    a, b = bench.natural_table("window_cat", 2000, 5), bench.natural_table("window_cat", 2000, 5)
    pd.testing.assert_frame_equal(a.X, b.X)
    np.testing.assert_array_equal(a.planted, b.planted)
    assert a.conditions == b.conditions
    c = bench.natural_table("window_cat", 2000, 6)
    assert not c.X.equals(a.X)
    y1, p1 = bench.outcomes("ordinal", a.planted, True, 5)
    y2, p2 = bench.outcomes("ordinal", a.planted, True, 5)
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(p1, p2)
    with pytest.raises(ValueError, match="shape must be one of"):
        bench.natural_table("box", 100, 0)


def test_outcomes_shift_the_planted_rows(bench):
    t = bench.natural_table("cat_threshold", 5000, 1)
    s = t.planted
    for task, inside, outside in (("binary_sp", 0.7, 0.5), ("binary_er", 0.4, 0.2), ("multiclass", 0.35, 0.15),
                                  ("ordinal", 0.5, 0.25)):
        y, yhat = bench.outcomes(task, s, True, 1)
        loss = bench.row_loss(task, y, yhat)
        # 450 planted rows: a rate's standard error is below 0.025
        assert abs(loss[s].mean() - inside) < 0.08 and abs(loss[~s].mean() - outside) < 0.03, task
        y0, yhat0 = bench.outcomes(task, s, False, 1)
        assert abs(bench.row_loss(task, y0, yhat0)[s].mean() - outside) < 0.08, task
    y, yhat = bench.outcomes("regression", s, True, 1)
    loss = bench.row_loss("regression", y, yhat)
    assert 1.7 < loss[s].mean() / loss[~s].mean() < 2.3  # absolute error doubled


def test_baseline_sums_match_direct_masks(bench):
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"colour": rng.choice(["r", "g", "b"], 300), "age": rng.integers(18, 80, 300),
                      "score": rng.normal(size=300)})
    cand = bench.threshold_candidates(X, edges=4, min_share=0.05)
    v = rng.normal(size=300)
    pa, pb = cand.pairs()
    g = (cand.S[:, pa] & cand.S[:, pb]).astype(np.float64).T @ v
    sums = cand.sums(g[:, None], np.array([v.sum()]))[:, 0]
    direct = np.array([v[cand.member(c)].sum() for c in range(len(cand.i))])
    np.testing.assert_allclose(sums, direct, atol=1e-9)
    sizes = np.array([cand.member(c).sum() for c in range(len(cand.i))])
    assert sizes.min() >= 15 and sizes.max() <= 285  # 5 % of 300 rows and leaving as many
    descs = [cand.describe(c) for c in range(len(cand.i))]
    assert "colour = g" in descs and any(" AND " in d for d in descs)
    # a window on one column: age >= q1 AND age < q3
    assert any(d.startswith("age >= ") and " AND age < " in d for d in descs)


def test_welch_t_matches_scipy(bench):
    rng = np.random.default_rng(4)
    v = rng.exponential(size=40)
    m = np.zeros(40, dtype=bool)
    m[:13] = True
    t = bench.welch_t(np.array([13.0]), np.array([v[m].sum()]), np.array([(v[m] ** 2).sum()]), 40.0, v.sum(),
                      (v ** 2).sum())
    ref = stats.ttest_ind(v[m], v[~m], equal_var=False).statistic
    assert t[0] == pytest.approx(ref, rel=1e-10)


def test_baseline_finds_a_strong_slice_and_reports_its_p(bench):
    t = bench.natural_table("cat_threshold", 2000, 2)
    loss = t.planted * 1.0 + np.random.default_rng(0).normal(0, 0.3, 2000)
    rows, p, desc = bench.threshold_max_t(t.X, loss, permutations=19, seed=0)
    assert p == pytest.approx(1 / 20)  # nothing among 19 permutations reaches the planted slice's t
    assert bench.jaccard(rows, t.planted) >= 0.7, desc
    rows0, p0, _ = bench.threshold_max_t(t.X, np.random.default_rng(1).normal(size=2000), permutations=19, seed=0)
    assert (rows0 is None) == (p0 > 0.05)


def test_diagnose_neighbouring_cuts_by_hand(bench):
    """--diagnose's neighbours of a pattern: items colour = g; age < 30, < 40, < 50; age ≥ 30; income < 20, < 25;
    the range 25 ≤ age < 35. Ranks within (column, side): age < 30/40/50 -> 0/1/2, age ≥ 30 -> 0, income < 20/25
    -> 0/1. Around (colour = g AND age < 40): itself and the cuts one step away (age < 30, age < 50), not the other
    side, the range or the pattern of another length. Around (age < 30 AND income < 20): every combination one
    step away on each cut (age < 40 AND income < 25 too), not two steps (age < 50)."""
    from types import SimpleNamespace

    inf = float("inf")
    items = SimpleNamespace(
        values=["g", (-inf, 30.0, False), (-inf, 40.0, False), (-inf, 50.0, False), (30.0, inf, False),
                (-inf, 20.0, False), (-inf, 25.0, False), (25.0, 35.0, False)],
        column=np.array([0, 1, 1, 1, 1, 2, 2, 1]), columns=["colour", "age", "income"])
    assert bench._grid_steps(items) == {1: 0, 2: 1, 3: 2, 4: 0, 5: 0, 6: 1}
    patterns = [(0, 1), (0, 2), (0, 3), (0, 4), (0, 7), (0,), (1, 5), (2, 6), (3, 5), (1, 6), (2, 5)]
    fam = SimpleNamespace(items=items, patterns=patterns)
    assert bench.neighbouring_cuts(fam, 1).tolist() == [0, 1, 2]
    assert bench.neighbouring_cuts(fam, 6).tolist() == [6, 7, 9, 10]
    assert bench.neighbouring_cuts(fam, 4).tolist() == [4]  # a range: only itself


def test_summarise_per_shape_by_hand(bench, capsys):
    """--summarise --per-shape on hand-made records: cat_threshold binary_sp blocks 0 (seeds 0-9, one Jaccard
    0.69 under 0.7) and 100 (seeds 100-109, two under), window_cat multiclass block 0 (seeds 2200-2209, all at
    0.55 >= its 0.5). cat_threshold: 17/20, Wilson 95 % (17 + z²/2 ± z sqrt(17 x 3 / 20 + z²/4)) / (20 + z²)
    = [64.0 %, 94.8 %], under the 9/10 target; its smallest cell 8/10; one cell of three under the target."""
    rows = []
    for seed, j in [(k, 0.69 if k == 3 else 0.8) for k in range(10)] + \
            [(100 + k, 0.4 if k in (1, 7) else 0.9) for k in range(10)]:
        rows.append(("cat_threshold", "binary_sp", seed, j))
    rows += [("window_cat", "multiclass", 2200 + k, 0.55) for k in range(10)]
    df = pd.DataFrame([{"kind": "planted", "shape": s, "task": t, "seed": seed, "method": "ours patterns main",
                        "jaccard": j, "reported": True, "seconds": 1.0, "first": f"first {seed}",
                        "planted": f"planted {seed}"} for s, t, seed, j in rows])
    assert bench.block_of("cat_threshold", "binary_sp", 107) == 100
    assert bench.block_of("window_cat", "multiclass", 2205) == 0
    assert bench.block_of("tail_cat", "regression", 3000 + 400 + 209) == 200
    bench.summarise_per_shape(df)
    out = capsys.readouterr().out
    assert "| cat_threshold | 17/20 | [64.0 %, 94.8 %] | 0.80 | >= 90% | no | 8/10 |" in out
    assert "| window_cat | 10/10 | [72.2 %, 100.0 %] | 0.55 | >= 80% | yes | 10/10 |" in out
    assert "| cat_threshold | 0 | 9/10 | [59.6 %, 98.2 %] | 0.80 |" in out  # per shape x block
    assert "| cat_threshold | 100 | 8/10 | [49.0 %, 94.3 %] | 0.90 |" in out
    assert "1 of 3 cells\n- cat_threshold binary_sp block 100: 8/10" in out
    assert "misses (3 of 30)" in out
    assert "| cat_threshold | binary_sp | 0 | 3 | first 3 | 0.690 | planted 3 |" in out
    assert "| cat_threshold | binary_sp | 100 | 107 | first 107 | 0.400 | planted 107 |" in out
