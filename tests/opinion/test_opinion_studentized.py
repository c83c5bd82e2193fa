"""The studentized statistic's pieces by hand (issue 29): the annotators' spread fitted with count weights, its
variance, Welch's corrected omnibus, the degrees of freedom of each contrast and the normal equivalent of a t."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from aif360_subjective.opinion.equal_service import _group_sums
from aif360_subjective.opinion.studentized import (
    contrast_df,
    contrasts,
    group_moments,
    normal_equivalent,
    omnibus_tail,
    t_from_normal,
    unit_columns,
    welch_omnibus,
)

# group 0: values .5, .9 of 10 and 30 annotations; group 1: .6, .7, .2 of 10, 10 and 20
X = np.array([0.5, 0.9, 0.6, 0.7, 0.2])
N = np.array([10.0, 30.0, 10.0, 10.0, 20.0])
G = np.array([0, 0, 1, 1, 1])
B = 0.1  # one annotation's variance, known


def _moments():
    sums = _group_sums(G[None, :, None], unit_columns(X, N)[:, None, :], 2)
    return group_moments(sums, within=B)


def test_spread_of_annotators_by_hand():
    mom = _moments()
    # group 0: weighted mean (5 + 27) / 40 = .8, sum n (x - .8)^2 = .9 + .3 = 1.2, S1 - S2/S1 = 40 - 1000/40 = 15
    # group 1: weighted mean 17/40 = .425, 10 .175^2 + 10 .275^2 + 20 .225^2 = 2.075, 40 - 600/40 = 25
    a = (1.2 + 2.075 - B * (1 + 2)) / (15 + 25)
    assert a == pytest.approx(0.074375)
    assert mom.a[0] == pytest.approx(a) and mom.b[0] == pytest.approx(B)
    # its variance: 2 (a^2 sum n^2 + 2 a b sum n + b^2 (N - G)) / 40^2
    assert mom.var_a[0] == pytest.approx(2 * (a**2 * 1600 + 2 * a * B * 80 + B**2 * 3) / 40**2)
    # each group mean's variance: the model (a k + b sum 1/n) / k^2 blended with Welch's s^2 / k (1,000 : k - 1)
    model0, welch0 = (a * 2 + B * (1 / 10 + 1 / 30)) / 4, np.var([0.5, 0.9], ddof=1) / 2
    assert mom.variance[0, 0] == pytest.approx((1 * welch0 + 1000 * model0) / 1001)


def test_spread_is_zero_when_the_values_agree_within_noise():
    sums = _group_sums(np.array([[0, 0, 1, 1]])[..., None], unit_columns(np.array([.5, .5, .5, .5]),
                                                                         np.array([10., 20., 10., 20.]))[:, None], 2)
    mom = group_moments(sums, within=B)
    assert mom.a[0] == 0.0  # the excess is negative: clipped
    assert mom.var_a[0] == pytest.approx(2 * (B**2 * 2) / (2 * (30 - 500 / 30)) ** 2)


def test_welch_omnibus_and_contrast_df_by_hand():
    mom = _moments()
    v, k = mom.variance[0], np.array([2.0, 3.0])
    m = np.array([0.7, 0.5])
    w = 1 / v
    centre = (w * m).sum() / w.sum()
    t_raw = (w * (m - centre) ** 2).sum()
    df_g = 2 * v**2 * k**2 / mom.var_a[0]
    lam = ((1 - w / w.sum()) ** 2 / df_g).sum()
    # two groups: F = T on (1, 1 / lambda) degrees of freedom, returned as the chi-square (1) value of its tail
    raw, equivalent = welch_omnibus(mom)
    assert raw[0] == pytest.approx(t_raw)
    tail = stats.f.sf(t_raw, 1, 1 / lam)
    assert equivalent[0] == pytest.approx(stats.chi2.isf(tail, 1))
    assert omnibus_tail(float(equivalent[0]), 2) == pytest.approx(tail)
    assert np.isnan(omnibus_tail(float(equivalent[0]), 1))
    # each contrast's squared standard error holds a with the coefficient 1/k_g + 1/(N - k_g) = 1/2 + 1/3
    _, se, _ = contrasts(mom)
    assert contrast_df(mom)[0] == pytest.approx(2 * se[0] ** 4 / (mom.var_a[0] * (1 / 2 + 1 / 3) ** 2))


def test_normal_equivalent_of_t_by_hand():
    # t = 2.5 on 5 df: two-sided tail 2 * 0.02724 -> the normal value with the same one-sided tail
    z = normal_equivalent(np.array([2.5, -2.5, np.nan]), np.array([5.0, 5.0, 5.0]))
    assert z[0] == pytest.approx(stats.norm.isf(stats.t.sf(2.5, 5))) and z[1] == z[0] and np.isnan(z[2])
    assert z[0] < 2.5  # a t on few degrees of freedom is less extreme than the same normal value
    assert normal_equivalent(np.array([2.5]), np.array([np.inf]))[0] == pytest.approx(2.5)
    assert t_from_normal(float(z[0]), np.array([5.0]))[0] == pytest.approx(2.5)


def test_permutation_test_face_by_hand():
    from aif360_subjective.opinion.equal_service import _between_values, permutation_test

    # values 1, 2 | 3, 5: sum_g S_g^2 / k_g - S^2 / N = 9/2 + 64/2 - 121/4 = 6.25; of the 6 distinct arrangements,
    # 2 are as extreme (the data's and its mirror)
    patterns = np.array([[0], [0], [1], [1]])
    data = np.array([[[1.0, 1.0]], [[2.0, 1.0]], [[3.0, 1.0]], [[5.0, 1.0]]])
    obs, p, used, exact = permutation_test(patterns, data, 2, _between_values, n_permutations=99,
                                           rng=np.random.default_rng(0))
    assert (obs, used, exact) == (6.25, 6, True) and p == pytest.approx(2 / 6)
