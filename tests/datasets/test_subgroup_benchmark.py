"""The planted-subgroup generator: shape, shares, determinism, validation."""

from __future__ import annotations

import numpy as np
import pytest

from aif360_subjective.datasets import make_subgroup_benchmark


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
