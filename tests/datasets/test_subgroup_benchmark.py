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
        ({"accuracy": 2}, ValueError, r"accuracy must be in \[0, 1\], got 2"),
        ({"base_rate": "x"}, TypeError, r"base_rate must be a number in \[0, 1\], got 'x'"),
        ({"random_state": "x"}, TypeError, "random_state must be"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_subgroup_benchmark(**kwargs)


# ---------------------------------------------------------------- make_planted_slice
from aif360_subjective.datasets import make_planted_slice  # noqa: E402


@pytest.mark.parametrize("n_conditions", [2, 3])
def test_planted_conjunction_share_mask_and_shift(n_conditions):
    b = make_planted_slice(n_samples=80_000, n_conditions=n_conditions, planted_share=0.05, effect=0.2,
                           random_state=3)
    assert len(b.conditions) == n_conditions and set(b.conditions) <= {f"cat{j}" for j in range(6)}
    mask = np.ones(len(b.X), dtype=bool)
    for col, level in b.conditions.items():
        mask &= b.X[col].to_numpy() == level
    np.testing.assert_array_equal(b.planted, mask)
    assert b.planted.mean() == pytest.approx(0.05, abs=0.004)
    assert b.y_pred[~b.planted].mean() == pytest.approx(0.5, abs=0.01)
    assert b.y_pred[b.planted].mean() == pytest.approx(0.3, abs=0.03)
    assert b.target == "statistical_parity"


def test_planted_numeric_region_is_a_box_of_the_share():
    b = make_planted_slice(n_samples=80_000, shape="numeric_region", planted_share=0.04, random_state=4)
    assert set(b.conditions) == {"num0", "num1"}
    mask = np.ones(len(b.X), dtype=bool)
    for col, (low, high) in b.conditions.items():
        assert high - low == pytest.approx(0.2)  # sqrt(0.04)
        mask &= (b.X[col].to_numpy() >= low) & (b.X[col].to_numpy() < high)
    np.testing.assert_array_equal(b.planted, mask)
    assert b.planted.mean() == pytest.approx(0.04, abs=0.003)


def test_planted_error_rate_shifts_accuracy_not_selection():
    b = make_planted_slice(n_samples=80_000, target="error_rate", effect=0.2, random_state=5)
    correct = b.y_true == b.y_pred
    assert correct[~b.planted].mean() == pytest.approx(0.8, abs=0.01)
    assert correct[b.planted].mean() == pytest.approx(0.6, abs=0.03)
    # truths are drawn independently of the features; with base rate 0.5 the selection rate stays 0.5
    assert b.y_pred[b.planted].mean() == pytest.approx(0.5, abs=0.03)


def test_planted_null_table_and_seeding():
    a = make_planted_slice(n_samples=60_000, effect=0.0, random_state=6)
    assert a.y_pred[a.planted].mean() == pytest.approx(a.y_pred[~a.planted].mean(), abs=0.03)
    b = make_planted_slice(n_samples=60_000, effect=0.0, random_state=np.random.default_rng(6))
    assert a.X.equals(b.X) and a.conditions == b.conditions and (a.y_true == b.y_true).all()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"shape": "blob"}, ValueError, "shape must be one of"),
        ({"target": "tpr"}, ValueError, "target must be one of"),
        ({"n_conditions": 3, "shape": "numeric_region"}, ValueError, r"n_conditions \(3\) must be at most n_numeric"),
        ({"n_conditions": 1.0}, TypeError, "n_conditions must be an int"),
        ({"planted_share": 1.0}, ValueError, "planted_share must be in"),
        ({"effect": 0.9, "target": "error_rate"}, ValueError, "effect must be at most accuracy"),
    ],
)
def test_planted_slice_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_planted_slice(n_samples=100, **kwargs)
