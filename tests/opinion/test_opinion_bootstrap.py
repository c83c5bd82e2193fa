"""The two-level bootstrap of the opinion-exclusion figures against its closed-form moments."""

from __future__ import annotations

import numpy as np
import pytest

from aif360_subjective.opinion import bootstrap as ob


def _accuracy(c: np.ndarray) -> np.ndarray:
    # cells: (correct, wrong)
    n = c[..., 0] + c[..., 1]
    out = np.full(n.shape, np.nan)
    np.divide(c[..., 0], n, out=out, where=n > 0)
    return out


def test_one_annotator_level_two_has_the_binomial_variance():
    counts = np.array([[30, 70]])
    v = ob.bootstrap_group_values(np.array([0]), counts, 1, _accuracy, n_boot=20000, rng=np.random.default_rng(0))
    assert v.shape == (20000, 1)
    assert v.mean() == pytest.approx(0.3, abs=0.002)
    assert v.var() == pytest.approx(0.3 * 0.7 / 100, rel=0.05)


def test_one_annotator_without_level_two_has_no_spread():
    v = ob.bootstrap_group_values(
        np.array([0]), np.array([[30, 70]]), 1, _accuracy, n_boot=50, rng=np.random.default_rng(0), levels="annotators"
    )
    assert np.all(v == 0.3)


def test_level_one_variance_is_population_variance_over_group_size():
    acc = np.array([0.2, 0.5, 0.9, 0.6])
    counts = np.column_stack([acc * 10, (1 - acc) * 10]).round().astype(int)
    v = ob.bootstrap_group_values(
        np.zeros(4, int), counts, 1, _accuracy, n_boot=40000, rng=np.random.default_rng(1), levels="annotators"
    )
    assert v.mean() == pytest.approx(acc.mean(), abs=0.003)
    assert v.var() == pytest.approx(acc.var() / 4, rel=0.05)


def test_both_levels_add_the_mean_within_variance():
    n = np.array([10, 40, 20])
    acc = np.array([0.2, 0.5, 0.9])
    counts = np.column_stack([acc * n, (1 - acc) * n]).round().astype(int)
    v = ob.bootstrap_group_values(np.zeros(3, int), counts, 1, _accuracy, n_boot=40000, rng=np.random.default_rng(2))
    expected = (acc.var() + np.mean(acc * (1 - acc) / n)) / 3
    assert v.var() == pytest.approx(expected, rel=0.05)


def test_groups_are_resampled_separately_and_empty_groups_stay_undefined():
    # group 0: two identical annotators; group 2: one annotator; group 1: no units at all
    counts = np.array([[5, 5], [5, 5], [9, 1]])
    v = ob.bootstrap_group_values(
        np.array([0, 0, 2]), counts, 3, _accuracy, n_boot=200, rng=np.random.default_rng(3), levels="annotators"
    )
    assert np.all(v[:, 0] == 0.5) and np.all(np.isnan(v[:, 1])) and np.all(v[:, 2] == 0.9)


def test_pooled_aggregate_sums_counts_before_scoring():
    # annotators (1/1) and (0/9): pooled accuracy 0.1; mean of annotators 0.5
    counts = np.array([[1, 0], [0, 9]])
    rng = np.random.default_rng(4)
    v = ob.bootstrap_group_values(np.zeros(2, int), counts, 1, _accuracy, aggregate="pooled", n_boot=4000,
                                  rng=rng, levels="annotators")
    # draws: both first (1.0), both second (0.0), one of each (1/10)
    assert set(np.round(np.unique(v), 12)) == {0.0, 0.1, 1.0}
    assert np.mean(v == 0.1) == pytest.approx(0.5, abs=0.03)


def test_undefined_unit_values_are_skipped_in_the_annotator_mean():
    def tpr(c):  # cells: tp, fn
        n = c[..., 0] + c[..., 1]
        return np.divide(c[..., 0], n, out=np.full(n.shape, np.nan), where=n > 0)

    counts = np.array([[2, 2], [0, 0]])  # the second annotator has no positives: undefined
    v = ob.bootstrap_group_values(np.zeros(2, int), counts, 1, tpr, n_boot=500, rng=np.random.default_rng(5),
                                  levels="annotators")
    drew_only_undefined = np.isnan(v[:, 0])
    assert np.all(v[~drew_only_undefined, 0] == 0.5)
    assert drew_only_undefined.mean() == pytest.approx(0.25, abs=0.06)


def test_same_seed_same_replicates_and_chunking(monkeypatch):
    counts = np.random.default_rng(0).integers(0, 20, size=(50, 2))
    g = np.arange(50) % 5
    a = ob.bootstrap_group_values(g, counts, 5, _accuracy, n_boot=100, rng=np.random.default_rng(7))
    b = ob.bootstrap_group_values(g, counts, 5, _accuracy, n_boot=100, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    monkeypatch.setattr(ob, "_MAX_CELLS", 300)  # 3 replicates per chunk
    c = ob.bootstrap_group_values(g, counts, 5, _accuracy, n_boot=100, rng=np.random.default_rng(7))
    assert c.shape == a.shape and not np.isnan(c).any()


def test_redraw_keeps_totals_and_follows_proportions():
    counts = np.array([[3, 1, 6, 0], [0, 0, 0, 0]])
    rep = ob._redraw_counts(np.broadcast_to(counts, (20000, 2, 4)), np.random.default_rng(8))
    assert np.all(rep.sum(-1) == counts.sum(-1)) and np.all(rep[:, :, 3] == 0) and np.all(rep[:, 1] == 0)
    np.testing.assert_allclose(rep[:, 0].mean(0), [3, 1, 6, 0], atol=0.05)


def test_spread_and_mean_across_groups_skip_undefined():
    x = np.array([[0.2, np.nan, 0.6], [np.nan, np.nan, np.nan]])
    np.testing.assert_allclose(ob.spread_across_groups(x), [0.2, np.nan])
    np.testing.assert_allclose(ob.mean_across_groups(x), [0.4, np.nan])


def test_interval_is_the_percentile_interval_when_unbiased():
    s = np.linspace(0, 1, 100001)
    iv = ob.bootstrap_interval(s, 0.5, 0.9)
    assert (iv.low, iv.high) == pytest.approx((0.05, 0.95), abs=1e-3)
    assert not iv.extended and iv.n_valid == 100001
    low, high = iv
    assert low == iv.low and high == iv.high


def test_interval_is_bias_corrected_towards_the_estimate():
    s = np.linspace(0, 1, 100001)
    iv = ob.bootstrap_interval(s, 0.3, 0.9)  # 30% of replicates below the estimate: z0 = -0.524
    z0 = -0.5244005127080407
    from scipy.stats import norm

    assert iv.low == pytest.approx(norm.cdf(2 * z0 - 1.6448536269514722), abs=1e-4)
    assert iv.high == pytest.approx(norm.cdf(2 * z0 + 1.6448536269514722), abs=1e-4)


def test_interval_is_widened_to_the_estimate_and_says_so():
    iv = ob.bootstrap_interval(np.array([1.0, 1.1, 1.2, np.nan]), 0.5, 0.95)
    assert iv.extended and iv.low == 0.5 and iv.high >= 1.0 and iv.n_valid == 3 and iv.n_boot == 4


def test_interval_of_nothing_is_undefined():
    iv = ob.bootstrap_interval(np.array([np.nan, np.nan]), 0.5, 0.95)
    assert np.isnan(iv.low) and np.isnan(iv.high) and iv.n_valid == 0
