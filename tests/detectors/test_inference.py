"""Intervals, tests and q-values of the subgroup metrics on hand-computed and published cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from aif360_subjective.detectors.error_control.inference import (
    benjamini_hochberg,
    check_ci,
    mid_p_fisher,
    newcombe_interval,
    subgroup_inference,
    wilson_interval,
)
from aif360_subjective.detectors.subgroup_metrics import metrics_from_counts


def test_wilson_published_values_and_edges():
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (Wilson):
    # 81/263 -> 0.2553-0.3662, 15/148 -> 0.0624-0.1605, 0/20 -> 0-0.1611, 1/29 -> 0.0061-0.1718
    low, high = wilson_interval([81, 15, 0, 1], [263, 148, 20, 29])
    np.testing.assert_allclose(low, [0.2553, 0.0624, 0.0, 0.0061], atol=5e-5)
    np.testing.assert_allclose(high, [0.3662, 0.1605, 0.1611, 0.1718], atol=5e-5)
    # hand: 0/10 at 95 %: upper = z^2 / (10 + z^2) with z = 1.959964
    z2 = 1.959963984540054**2
    assert wilson_interval(0, 10)[1] == pytest.approx(z2 / (10 + z2), abs=1e-12)
    low, high = wilson_interval([5, 0], [5, 0])
    assert high[0] == 1.0 and np.isnan(low[1]) and np.isnan(high[1])


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17, Table II, method 10 (hybrid score, no continuity corr.)
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (6, 7, 2, 7, 0.0582, 0.8062),
        (5, 56, 0, 29, -0.0381, 0.1926),
        (0, 10, 0, 20, -0.1611, 0.2775),
        (10, 10, 0, 20, 0.6791, 1.0),
    ],
)
def test_newcombe_matches_published_table(x1, n1, x2, n2, low, high):
    d, lo, hi = newcombe_interval(x1, n1, x2, n2)
    assert d == pytest.approx(x1 / n1 - x2 / n2)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_mid_p_hand_case_and_exact_tail_equals_scipy_fisher():
    # 3/10 vs 7/10: X ~ Hypergeom(20 rows, 10 successes, 10 draws); P(X = 3) = C(10,3) C(10,7) / C(20,10)
    p3 = 120 * 120 / 184756
    exact_less = stats.fisher_exact([[3, 7], [7, 3]], alternative="less").pvalue  # P(X <= 3)
    less, greater = mid_p_fisher(3, 10, 7, 10)
    assert less == pytest.approx(exact_less - p3 / 2, abs=1e-12)
    assert less == pytest.approx(0.0504774, abs=1e-7)
    assert less + greater == pytest.approx(1.0, abs=1e-12)
    # hand: 0/2 vs 2/2 -> P(X = 0) = 1/6, P(X < 0) = 0 -> mid-p = 1/12
    less, _ = mid_p_fisher(0, 2, 2, 2)
    assert less == pytest.approx(1 / 12, abs=1e-12)
    less, greater = mid_p_fisher([1, 0], [0, 3], [1, 1], [2, 0])
    assert np.isnan(less).all() and np.isnan(greater).all()


def test_benjamini_hochberg_hand_case_skips_nan():
    # m = 4 defined; sorted 0.01, 0.03, 0.04, 0.5 -> 4p/rank = 0.04, 0.06, 0.0533, 0.5 -> running minimum from the top
    q = benjamini_hochberg([0.01, 0.04, 0.03, np.nan, 0.5])
    np.testing.assert_allclose(q, [0.04, 0.16 / 3, 0.16 / 3, np.nan, 0.5])
    assert np.isnan(benjamini_hochberg([np.nan, np.nan])).all()
    assert benjamini_hochberg([0.9, 0.95]).tolist() == [0.95, 0.95]


def test_check_ci_rejects_levels_outside_0_1():
    for bad in (0, 1, 1.5, -0.1, True, "0.95"):
        with pytest.raises(ValueError, match="ci must be a confidence level"):
            check_ci(bad)


# subgroup counts (TN, FP, FN, TP) against a fixed total
TOTAL = np.array([30.0, 20.0, 10.0, 40.0])
S = np.array([[5.0, 1.0, 6.0, 3.0], [10.0, 10.0, 2.0, 18.0], [0.0, 0.0, 4.0, 6.0], [30.0, 20.0, 10.0, 40.0]])


def test_subgroup_inference_composes_the_published_pieces():
    out = subgroup_inference(S, TOTAL, 0.9)
    R = TOTAL - S
    i = 0  # subgroup 0: n_S = 15, n_R = 85
    # statistical parity = sel_R - sel_S: favourable predictions FP + TP
    _, lo, hi = newcombe_interval(R[i, 1] + R[i, 3], 85, S[i, 1] + S[i, 3], 15, 0.9)
    assert out.loc[i, "statistical_parity_ci_low"] == pytest.approx(lo)
    assert out.loc[i, "statistical_parity_ci_high"] == pytest.approx(hi)
    less, greater = mid_p_fisher(4, 15, 56, 85)
    assert out.loc[i, "statistical_parity_p"] == pytest.approx(2 * min(less, greater))
    # accuracy error = (n_R / N) (acc_S - acc_R): the point estimate agrees with the metric's definition
    acc_S, acc_R = 8 / 15, (R[i, 0] + R[i, 3]) / 85
    est = metrics_from_counts(S[:1], TOTAL)["accuracy_error"].iloc[0]
    assert est == pytest.approx(85 / 100 * (acc_S - acc_R))
    _, lo, hi = newcombe_interval(8, 15, R[i, 0] + R[i, 3], 85, 0.9)
    assert out.loc[i, "accuracy_error_ci_low"] == pytest.approx(0.85 * lo)
    assert out.loc[i, "accuracy_error_ci_high"] == pytest.approx(0.85 * hi)
    assert out.loc[i, "accuracy_error_ci_low"] < est < out.loc[i, "accuracy_error_ci_high"]
    lo, hi = wilson_interval(8, 15, 0.9)
    assert (out.loc[i, "accuracy_ci_low"], out.loc[i, "accuracy_ci_high"]) == pytest.approx((float(lo), float(hi)))
    assert out.loc[i, "accuracy_p"] == out.loc[i, "accuracy_error_p"]
    # equalized odds: MOVER of the TPR and FPR differences, intersection-union test
    d_t, lo_t, hi_t = newcombe_interval(R[i, 3], R[i, 3] + R[i, 2], 3, 9, 0.9)
    d_f, lo_f, hi_f = newcombe_interval(R[i, 1], R[i, 1] + R[i, 0], 1, 6, 0.9)
    mid = (d_t + d_f) / 2
    assert out.loc[i, "equalized_odds_ci_low"] == pytest.approx(mid - np.hypot(d_t - lo_t, d_f - lo_f) / 2)
    assert out.loc[i, "equalized_odds_ci_high"] == pytest.approx(mid + np.hypot(hi_t - d_t, hi_f - d_f) / 2)
    lt, gt = mid_p_fisher(3, 9, R[i, 3], R[i, 3] + R[i, 2])
    lf, gf = mid_p_fisher(1, 6, R[i, 1], R[i, 1] + R[i, 0])
    assert out.loc[i, "equalized_odds_p"] == pytest.approx(min(1, 2 * min(max(lt, lf), max(gt, gf))))


def test_undefined_rates_and_full_subgroups_are_nan():
    out = subgroup_inference(S, TOTAL)
    # subgroup 2 has no truth negatives: FPR undefined -> equalized odds NaN; TPR defined
    assert np.isnan(out.loc[2, ["equalized_odds_ci_low", "equalized_odds_p"]].astype(float)).all()
    assert not np.isnan(out.loc[2, "equal_opportunity_p"])
    # subgroup 3 is every row: no rest, nothing defined
    assert out.loc[3].isna().all()


def test_vectorised_equals_one_subgroup_at_a_time():
    batch = subgroup_inference(S, TOTAL)
    for i in range(len(S)):
        one = subgroup_inference(S[i : i + 1], TOTAL)
        np.testing.assert_allclose(one.to_numpy()[0], batch.to_numpy()[i], equal_nan=True)


def test_intervals_contain_the_estimates():
    rng = np.random.default_rng(0)
    total = np.array([400.0, 300.0, 200.0, 500.0])
    sub = np.floor(rng.random((200, 4)) * total / 3)
    out = subgroup_inference(sub, total)
    est = metrics_from_counts(sub, total)
    for m in ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy", "accuracy_error"):
        ok = ~np.isnan(out[m + "_p"])
        assert ((out[m + "_ci_low"][ok] <= est[m][ok] + 1e-12) & (est[m][ok] <= out[m + "_ci_high"][ok] + 1e-12)).all()
        assert ((out[m + "_p"][ok] >= 0) & (out[m + "_p"][ok] <= 1)).all()
