"""``held_out_logistic``: a logistic regression trained on a stratified share of a table's rows, scored on the
others (the command line's ``--model logistic``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.algorithms.inprocessing import HeldOutPredictions, held_out_logistic


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(["a", "b"], size=200), "k": rng.integers(0, 3, 200)})
    positive = (X["x"] + (X["g"] == "a") > 0.5).to_numpy()
    return X, positive


def test_split_is_stratified_in_table_order_and_seeded(table):
    X, positive = table
    fit = held_out_logistic(X, positive, test_size=0.25, random_state=3)
    assert isinstance(fit, HeldOutPredictions)
    assert len(fit.test_rows) == 50 and fit.n_train == 150 and fit.n_attributes == 3
    assert np.all(np.diff(fit.test_rows) > 0)  # held-out rows in table order
    # stratified: the held-out share of favourable rows is the table's (to one row)
    assert abs(positive[fit.test_rows].sum() - positive.sum() * 0.25) <= 1
    assert set(np.unique(fit.predictions)) <= {0, 1} and fit.predictions.dtype == np.int64
    again = held_out_logistic(X, positive, test_size=0.25, random_state=3)
    assert np.array_equal(fit.test_rows, again.test_rows) and np.array_equal(fit.predictions, again.predictions)
    other = held_out_logistic(X, positive, test_size=0.25, random_state=4)
    assert not np.array_equal(fit.test_rows, other.test_rows)


def test_learns_a_separable_rule(table):
    X, positive = table
    fit = held_out_logistic(X, positive, test_size=0.3, random_state=0)
    assert (fit.predictions == positive[fit.test_rows]).mean() > 0.9


def test_categorical_numeric_column_is_one_hot_coded():
    # k's three codes carry the label with no order: one-hot coding separates them, a slope cannot
    X = pd.DataFrame({"k": np.tile([0, 1, 2], 60)})
    positive = X["k"].to_numpy() == 1
    coded = held_out_logistic(X, positive, random_state=0, categorical=["k"])
    assert np.array_equal(coded.predictions, positive[coded.test_rows].astype(int))
    slope = held_out_logistic(X, positive, random_state=0)
    assert slope.predictions.sum() == 0  # a monotone function of k never picks the middle code


@pytest.mark.parametrize(("kwargs", "exc", "match"), [
    ({"test_size": 0.0}, ValueError, r"test_size must be a share strictly between 0 and 1, got 0\.0"),
    ({"test_size": 1}, ValueError, "test_size must be a share"),
    ({"categorical": ["nope"]}, ValueError, r"categorical: unknown column\(s\) \['nope'\]"),
])
def test_bad_options(table, kwargs, exc, match):
    X, positive = table
    with pytest.raises(exc, match=match):
        held_out_logistic(X, positive, **kwargs)


def test_bad_data(table):
    X, positive = table
    with pytest.raises(TypeError, match="X must be a pandas DataFrame, got ndarray"):
        held_out_logistic(X.to_numpy(), positive)
    with pytest.raises(ValueError, match=r"one value per row of X \(200\), got shape \(199,\)"):
        held_out_logistic(X, positive[:-1])
    one = np.zeros(200, dtype=bool)
    one[0] = True
    with pytest.raises(ValueError, match="at least 2 rows of each label; the table has 1 favourable and 199 other"):
        held_out_logistic(X, one)
