"""Continuous outcomes: Welch's t from sums, the pooled proportion z, intervals, and the max-T over means."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats

from aif360_subjective.detectors.error_control.continuous import (
    OutcomeColumn,
    bootstrap_intervals,
    max_t_means,
    mean_inference,
    moments,
    welch_t,
)
from aif360_subjective.detectors.error_control.counters import MemberCounter
from aif360_subjective.detectors.error_control.resampling import Permuter


def _members(*masks):
    return sp.csc_matrix(np.column_stack(masks))


def test_moments_are_the_sums_over_each_candidates_rows():
    V = np.array([[1.0, 0.5], [2.0, -1.0], [3.0, 2.0], [4.0, 0.0]])
    M = _members(np.array([1, 1, 0, 0], bool), np.array([0, 1, 1, 1], bool))
    n_S, s, q = moments(MemberCounter(M), V)
    np.testing.assert_array_equal(n_S, [2, 3])
    np.testing.assert_allclose(s, [[3.0, -0.5], [9.0, 1.0]])
    np.testing.assert_allclose(q, [[5.0, 1.25], [29.0, 5.0]])


def test_welch_t_by_hand():
    # S = 1, 2, 3 (mean 2, variance 1); R = 4, 6, 8 (mean 6, variance 4)
    v = np.array([1.0, 2, 3, 4, 6, 8])
    n_S, s_S, q_S = 3.0, 6.0, 14.0
    d, se, t = welch_t(np.array([n_S]), np.array([s_S]), np.array([q_S]), 6.0, v.sum(), (v * v).sum(), prior_df=0)
    assert d[0] == pytest.approx(-4.0)
    assert se[0] == pytest.approx(np.sqrt(1 / 3 + 4 / 3))
    assert t[0] == pytest.approx(-4.0 / np.sqrt(5 / 3))
    assert t[0] == pytest.approx(stats.ttest_ind(v[:3], v[3:], equal_var=False).statistic)
    # moderated: overall variance 34/5 = 6.8 with 2 pseudo-rows on each side
    # var_S = (2 + 2 * 6.8) / 4 = 3.9, var_R = (8 + 13.6) / 4 = 5.4, se = sqrt(3.9/3 + 5.4/3) = sqrt(3.1)
    _, se2, t2 = welch_t(np.array([n_S]), np.array([s_S]), np.array([q_S]), 6.0, v.sum(), (v * v).sum(), prior_df=2)
    assert se2[0] == pytest.approx(np.sqrt(3.1))
    assert t2[0] == pytest.approx(-4.0 / np.sqrt(3.1))


def test_welch_t_is_undefined_for_a_single_row_or_no_spread():
    v = np.array([1.0, 1.0, 1.0, 1.0])
    _, se, t = welch_t(np.array([1.0, 2.0]), np.array([1.0, 2.0]), np.array([1.0, 2.0]), 4.0, 4.0, 4.0, prior_df=0)
    assert np.isnan(t).all() and np.isnan(se).all()
    assert v.std() == 0


def test_inference_of_a_mean_by_hand():
    v = np.array([1.0, 2, 3, 4, 6, 8])
    M = _members(np.arange(6) < 3)
    col = OutcomeColumn("mean_absolute_error", v, "mean", "S-R", True)
    got = mean_inference(MemberCounter(M), [col], ci=0.95)["mean_absolute_error"]
    ref = stats.ttest_ind(v[:3], v[3:], equal_var=False)
    df = 50 / 17  # (1/3 + 4/3)^2 / ((1/3)^2 / 2 + (4/3)^2 / 2)
    half = stats.t.ppf(0.975, df) * np.sqrt(5 / 3)
    assert got["value"][0] == pytest.approx(-4.0)
    assert got["p"][0] == pytest.approx(ref.pvalue)
    assert got["ci_low"][0] == pytest.approx(-4.0 - half) and got["ci_high"][0] == pytest.approx(-4.0 + half)
    assert got["mean_S"][0] == pytest.approx(2.0) and got["mean_R"][0] == pytest.approx(6.0)
    # the same value read as rest minus subgroup turns the interval around
    col2 = OutcomeColumn("mean_prediction", v, "mean", "R-S", True)
    got2 = mean_inference(MemberCounter(M), [col2])["mean_prediction"]
    assert got2["value"][0] == pytest.approx(4.0) and got2["ci_low"][0] == pytest.approx(4.0 - half)


def test_inference_of_a_proportion_by_hand():
    # S = 1, 1, 0 (2/3), R = 0, 0, 0, 1 (1/4); pooled 3/7: z = (2/3 - 1/4) / sqrt(3/7 * 4/7 * (1/3 + 1/4))
    v = np.array([1.0, 1, 0, 0, 0, 0, 1])
    M = _members(np.arange(7) < 3)
    z = (2 / 3 - 1 / 4) / np.sqrt(1 / 7)
    got = mean_inference(MemberCounter(M), [OutcomeColumn("accuracy_error", v, "proportion", "S-all", False)])
    a = got["accuracy_error"]
    # accuracy error: acc_S - acc_all = (n_R / N)(acc_S - acc_R) = 4/7 * 5/12
    assert a["value"][0] == pytest.approx(4 / 7 * (2 / 3 - 1 / 4))
    assert a["p"][0] == pytest.approx(2 * stats.norm.sf(z))
    assert a["ci_low"][0] < a["value"][0] < a["ci_high"][0]


def test_max_t_means_z_is_signed_towards_the_disadvantaged_side():
    rng = np.random.default_rng(0)
    n = 60
    v = rng.normal(size=n)
    v[:10] += 3.0  # larger errors in the first ten rows
    M = _members(np.arange(n) < 10, np.arange(n) >= 10)
    worse = OutcomeColumn("mean_absolute_error", v, "mean", "S-R", larger_is_worse=True)
    lower = OutcomeColumn("mean_prediction", v, "mean", "S-R", larger_is_worse=False)
    res = max_t_means(M, [worse, lower], n_permutations=19, random_state=1, penalty=False)
    assert res.z[0, 0] > 3 and res.z[0, 1] == pytest.approx(-res.z[0, 0])
    assert res.z[1, 0] < 0  # the rest has the smaller errors
    assert res.p_adjusted[0, 0, 0] == pytest.approx(1 / 20)  # at the floor in the disadvantaged direction


def _brute_force(masks, columns, B, seed, prior_df):
    """Step-down max-T over (column, direction) families by explicit loops."""
    rng = np.random.default_rng(seed)
    n = len(columns[0].values)
    perm = Permuter(n)

    def stat(vals):
        out = []
        for mk in masks:
            row = []
            for j, c in enumerate(columns):
                x, y = vals[j][mk], vals[j][~mk]
                if c.kind == "proportion":
                    pbar = vals[j].mean()
                    z = (x.mean() - y.mean()) / np.sqrt(pbar * (1 - pbar) * (1 / len(x) + 1 / len(y)))
                else:
                    va = vals[j].var(ddof=1)
                    vx = (((x - x.mean()) ** 2).sum() + prior_df * va) / (len(x) - 1 + prior_df)
                    vy = (((y - y.mean()) ** 2).sum() + prior_df * va) / (len(y) - 1 + prior_df)
                    z = (x.mean() - y.mean()) / np.sqrt(vx / len(x) + vy / len(y))
                row.append(c.sign * z)
            out.append(row)
        return np.array(out)

    obs = stat([c.values for c in columns])
    perms = []
    done = 0
    while done < B:
        b = min(50, B - done)
        idx = perm.draw(rng, b)
        perms += [stat([c.values[idx[:, i]] for c in columns]) for i in range(b)]
        done += b

    def step_down(o, ps):
        order = np.argsort(-o, kind="stable")
        raw = [(1 + sum(q[order[i:]].max() >= o[order[i]] - 1e-9 for q in ps)) / (B + 1) for i in range(len(o))]
        out = np.empty(len(o))
        out[order] = np.maximum.accumulate(raw)
        return out

    p = np.empty((len(masks), len(columns), 2))
    for j in range(len(columns)):
        p[:, j, 0] = step_down(obs[:, j], [q[:, j] for q in perms])
        p[:, j, 1] = step_down(-obs[:, j], [-q[:, j] for q in perms])
    return obs, p


@pytest.mark.parametrize("prior_df", [0.0, 2.0])
def test_max_t_means_equals_brute_force(prior_df):
    rng = np.random.default_rng(3)
    n = 36
    grid = rng.integers(0, 3, (n, 2))
    masks = [grid[:, 0] == 0, grid[:, 1] == 1, (grid[:, 0] == 0) | (grid[:, 1] == 2), np.arange(n) < 7]
    err = np.abs(rng.normal(size=n)) + 0.8 * masks[0]
    ok = (rng.random(n) < 0.7).astype(float)
    cols = [OutcomeColumn("mean_absolute_error", err), OutcomeColumn("accuracy_error", ok, "proportion", "S-all",
                                                                     larger_is_worse=False)]
    res = max_t_means(_members(*masks), cols, n_permutations=40, random_state=9, penalty=False, prior_df=prior_df)
    obs, p = _brute_force(masks, cols, 40, 9, prior_df)
    np.testing.assert_allclose(res.z, obs, rtol=1e-9)
    np.testing.assert_allclose(res.p_adjusted, p, atol=1e-12)


def test_max_t_means_holds_its_level_on_null_data():
    # 60 null tables: the global family claims something at alpha = 0.05 in at most a few of them
    hits = 0
    rng = np.random.default_rng(1)
    for rep in range(60):
        n = 120
        g = rng.integers(0, 4, (n, 2))
        masks = [g[:, 0] == a for a in range(4)] + [g[:, 1] == a for a in range(4)]
        v = rng.exponential(size=n)
        res = max_t_means(_members(*masks), [OutcomeColumn("mean_absolute_error", v)], n_permutations=39,
                          random_state=rep, penalty=False)
        hits += bool(np.nanmin(res.p_global) < 0.05)
    assert hits <= 8  # expected 3 of 60 (binomial 95th percentile 6)


def test_bootstrap_resamples_whole_clusters():
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(30), 4)
    from aif360_subjective.detectors.error_control.resampling import cluster_bootstrap_weights

    W = cluster_bootstrap_weights(rng, groups, len(groups), 5)
    assert W.shape == (120, 5) and np.all(W.reshape(30, 4, 5).std(axis=1) == 0)  # one multiplicity per cluster
    np.testing.assert_array_equal(W.reshape(30, 4, 5)[:, 0].sum(axis=0), [30] * 5)


def test_cluster_bootstrap_interval_is_wider_when_rows_share_a_cluster_effect():
    rng = np.random.default_rng(4)
    persons, k = 150, 5
    groups = np.repeat(np.arange(persons), k)
    effect = np.repeat(rng.normal(scale=1.0, size=persons), k)
    v = effect + rng.normal(scale=0.3, size=persons * k)
    trait = np.repeat(rng.random(persons) < 0.3, k)  # a person-level trait
    M = _members(trait)
    col = OutcomeColumn("mean_absolute_error", v)
    rows = bootstrap_intervals(M, [col], None, n_boot=200, random_state=0)["mean_absolute_error"]
    clus = bootstrap_intervals(M, [col], groups, n_boot=200, random_state=0)["mean_absolute_error"]
    # five nearly equal records per person: the cluster interval is about sqrt(5) times as wide
    ratio = (clus[1] - clus[0]) / (rows[1] - rows[0])
    assert 1.6 < ratio[0] < 3.0


def _scaled_regression(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 600
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["p", "q"], n), "c": rng.normal(size=n)})
    y = rng.normal(size=n)
    planted = ((X["a"] == "x") & (X["b"] == "p")).to_numpy()
    return X, y, y + rng.normal(size=n) + 1.0 * planted


@pytest.mark.parametrize("k", [-15, -12, -1, 12, 75, 90, 150])
def test_regression_findings_do_not_depend_on_the_targets_unit(k):
    """The same planted bias in another unit (y * 10^k) gives the same findings: before, an absolute floor on the
    standard error dropped them all at 1e-12 and squares of the sums overflowed at 1e90."""
    from aif360_subjective.detectors import detect_subgroups

    X, y, yhat = _scaled_regression()
    kw = dict(task="regression", discovery="patterns", random_state=0, n_permutations=99)
    base = detect_subgroups(X, y, yhat, **kw).findings(0.05)
    other = detect_subgroups(X, y * 10.0 ** k, yhat * 10.0 ** k, **kw).findings(0.05)
    assert len(base) > 0
    cols = ["metric", "kind", "id", "direction", "p_adjusted", "size"]
    pd.testing.assert_frame_equal(other[cols], base[cols])
    for c in ("value", "ci_low", "ci_high"):
        np.testing.assert_allclose(other[c].to_numpy() / 10.0 ** k, base[c].to_numpy(), rtol=1e-6)


def test_standardise_is_exact_and_in_range():
    from aif360_subjective.detectors.error_control.continuous import standardise

    V = np.array([[1.0, 0.0, 1e300], [3.0, 1.0, -1e300], [5.0, 1.0, 1e300]])
    Z, centre, scale = standardise(V, np.array([False, True, False]))
    np.testing.assert_allclose(centre[0] + scale[0] * Z[:, 0], V[:, 0])
    np.testing.assert_allclose(Z[:, 0], [-1.5 ** 0.5, 0.0, 1.5 ** 0.5])  # (v - 3) / sd, sd = sqrt(8 / 3)
    np.testing.assert_array_equal(Z[:, 1], V[:, 1])  # a proportion stays 0/1
    assert np.all(np.isfinite(Z[:, 2])) and np.isfinite(scale[2])
    np.testing.assert_allclose(Z[:, 2], [2 ** -0.5, -(2 ** 0.5), 2 ** -0.5])


def test_welch_t_floor_is_relative():
    from aif360_subjective.detectors.error_control.continuous import welch_t

    args = (np.array([5.0]), np.array([1.0]), np.array([2.0]), 20.0, 3.0, 8.0)
    d, se, t = welch_t(*args, prior_df=0.0)
    for s in (1e-13, 1e100):
        d2, se2, t2 = welch_t(args[0], args[1] * s, args[2] * s * s, args[3], args[4] * s, args[5] * s * s,
                              prior_df=0.0)
        np.testing.assert_allclose([d2[0] / s, se2[0] / s, t2[0]], [d[0], se[0], t[0]], rtol=1e-9)
