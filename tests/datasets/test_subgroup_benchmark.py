"""The planted-subgroup generator: shape, shares, determinism, validation."""

from __future__ import annotations

import numpy as np
import pytest

from aif360_subjective.datasets import make_slice_benchmark, make_subgroup_benchmark


def test_shape_shares_and_planted_effect():
    b = make_subgroup_benchmark(n_samples=60_000, random_state=0)
    assert list(b.X.columns) == ["cat0", "cat1", "cat2", "cat3", "num0", "num1"]
    assert set(b.X["cat2"]) == {"a", "b", "c"}
    assert b.planted.mean() == pytest.approx(0.07, abs=0.005)
    np.testing.assert_array_equal(b.planted, (b.X["cat0"] == "a") & (b.X["cat1"] == "a"))
    rate_in, rate_out = b.y_pred[b.planted].mean(), b.y_pred[~b.planted].mean()
    assert rate_out == pytest.approx(0.5, abs=0.01)
    assert rate_in == pytest.approx(0.25, abs=0.02)
    assert (b.y_true == b.y_pred).mean() == pytest.approx(0.8, abs=0.01)
    assert b.X["num0"].between(0, 1).all() and b.conditions == {"cat0": "a", "cat1": "a"}


def test_four_levels_gives_the_documented_cat0_shares():
    b = make_subgroup_benchmark(n_samples=100_000, n_levels=4, random_state=1)
    shares = b.X["cat0"].value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_allclose(shares, [0.28, 0.24, 0.24, 0.24], atol=0.005)


def test_null_data_has_no_feature_signal():
    b = make_subgroup_benchmark(n_samples=60_000, effect=0.0, random_state=2)
    assert b.y_pred[b.planted].mean() == pytest.approx(b.y_pred[~b.planted].mean(), abs=0.03)


def test_seeded_and_leaves_global_state_alone():
    a = make_subgroup_benchmark(n_samples=500, random_state=7)
    b = make_subgroup_benchmark(n_samples=500, random_state=np.random.default_rng(7))
    assert a.X.equals(b.X) and (a.y_pred == b.y_pred).all() and (a.y_true == b.y_true).all()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_samples": 1}, ValueError, "n_samples must be >= 2"),
        ({"n_categorical": 1}, ValueError, "n_categorical must be >= 2"),
        ({"n_levels": 2.5}, TypeError, "n_levels must be an int"),
        ({"n_levels": 17}, ValueError, "n_levels must be at most 16"),
        ({"planted_share": 0.5}, ValueError, "planted_share must be in"),
        ({"effect": 0.6}, ValueError, "effect must be at most base_rate"),
        ({"accuracy": 2}, ValueError, "accuracy must be a number in"),
        ({"random_state": "x"}, TypeError, "random_state must be"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_subgroup_benchmark(**kwargs)


# ------------------------------------------------------------------ make_slice_benchmark
def test_slice_conjunction_share_conditions_and_sp_shift():
    b = make_slice_benchmark(n_samples=200_000, shift=0.2, planted_share=0.05, n_conditions=3, random_state=1)
    assert len(b.conditions) == 3 and set(b.conditions) <= {"cat0", "cat1", "cat2", "cat3"}
    expected = np.logical_and.reduce([b.X[c].to_numpy() == v for c, v in b.conditions.items()])
    np.testing.assert_array_equal(b.planted, expected)
    assert b.planted.mean() == pytest.approx(0.05, abs=0.003)
    # every planted level has probability 0.05 ** (1/3) = 0.368
    for c, v in b.conditions.items():
        assert (b.X[c] == v).mean() == pytest.approx(0.05 ** (1 / 3), abs=0.005)
    assert b.y_pred[b.planted].mean() == pytest.approx(0.3, abs=0.015)
    assert b.y_pred[~b.planted].mean() == pytest.approx(0.5, abs=0.005)
    assert (b.y_true != b.y_pred).mean() == pytest.approx(0.2, abs=0.005)
    assert b.effect == 0.2


def test_slice_region_box_and_error_shift():
    b = make_slice_benchmark(n_samples=200_000, shape="region", outcome="error_rate", shift=0.2,
                             planted_share=0.04, random_state=2)
    (lo0, hi0), (lo1, hi1) = b.conditions["num0"], b.conditions["num1"]
    assert hi0 - lo0 == pytest.approx(0.2) and hi1 - lo1 == pytest.approx(0.2)  # sqrt(0.04)
    assert min(lo0, lo1) >= 0 and max(hi0, hi1) <= 1
    x0, x1 = b.X["num0"].to_numpy(), b.X["num1"].to_numpy()
    np.testing.assert_array_equal(b.planted, (x0 >= lo0) & (x0 < hi0) & (x1 >= lo1) & (x1 < hi1))
    assert b.planted.mean() == pytest.approx(0.04, abs=0.002)
    err = b.y_true != b.y_pred
    assert err[b.planted].mean() == pytest.approx(0.4, abs=0.015)
    assert err[~b.planted].mean() == pytest.approx(0.2, abs=0.005)
    # the error shift leaves the favourable-prediction rate alone
    assert b.y_pred[b.planted].mean() == pytest.approx(0.5, abs=0.015)


def test_slice_null_and_seeding():
    a = make_slice_benchmark(n_samples=100_000, shift=0.0, random_state=3)
    assert a.y_pred[a.planted].mean() == pytest.approx(a.y_pred[~a.planted].mean(), abs=0.02)
    b = make_slice_benchmark(n_samples=500, random_state=np.random.default_rng(3))
    c = make_slice_benchmark(n_samples=500, random_state=3)
    assert b.X.equals(c.X) and (b.y_pred == c.y_pred).all() and b.conditions == c.conditions


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"shape": "circle"}, ValueError, "shape must be one of"),
        ({"outcome": "tpr"}, ValueError, "outcome must be one of"),
        ({"n_conditions": 4}, ValueError, "n_conditions must be 2 or 3"),
        ({"n_conditions": 3, "n_categorical": 2}, ValueError, r"at most n_categorical \(2\)"),
        ({"shape": "region", "n_numeric": 1}, ValueError, "needs n_numeric >= 2"),
        ({"planted_share": 1.0}, ValueError, "strictly between 0 and 1"),
        ({"shift": 0.6}, ValueError, "shift must be at most base_rate"),
        ({"outcome": "error_rate", "shift": 0.9}, ValueError, "shift must be at most accuracy"),
        ({"n_samples": 10.0}, TypeError, "n_samples must be an int"),
    ],
)
def test_slice_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_slice_benchmark(**kwargs)
