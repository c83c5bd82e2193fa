"""Task detection, the per-row values of each task, and a per-row loss."""

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors.tasks import check_loss, outcome_columns, resolve_task


def test_auto_says_what_it_decided():
    assert resolve_task([0, 1, 1], [1, 1, 0]).name == "binary"
    t = resolve_task([1, 2, 5, 3], [2, 2, 4, 1])
    assert t.name == "ordinal" and t.classes == (1, 2, 3, 4, 5)
    assert "task='auto' chose 'ordinal'" in t.reason and "task='multiclass'" in t.reason
    m = resolve_task(["cat", "dog", "bird"], ["dog", "dog", "cat"])
    assert m.name == "multiclass" and m.classes == ("bird", "cat", "dog")
    r = resolve_task([0.5, 1.25, 3.0], [0.4, 1.0, 2.0])
    assert r.name == "regression" and r.classes is None and "fractions" in r.reason
    assert resolve_task(np.arange(40), np.arange(40)).name == "regression"  # 40 integer levels: a scale, not ranks
    cat = pd.Categorical(["low", "high", "mid"], categories=["low", "mid", "high"], ordered=True)
    o = resolve_task(pd.Series(cat), pd.Series(cat))
    assert o.name == "ordinal" and o.classes == ("low", "mid", "high")
    assert resolve_task([1, 2, 3], [1, 2, 3], task="multiclass").reason == "task='multiclass' (given)"


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(y_true=[0, 1, 2], y_pred=[0, 1, 1], task="binary"), r"task='binary' but y_true and y_pred take 3 values"),
    (dict(y_true=[0.5, np.nan, 1.0], y_pred=[0, 1, 1], task="regression"), "y_true contains 1 missing values"),
    (dict(y_true=[0.5, np.inf, 1.0], y_pred=[0, 1, 1], task="regression"), "y_true contains 1 infinite value"),
    (dict(y_true=["a", "b", "c"], y_pred=["a", "b", "c"], task="regression"), "task='regression' needs numeric"),
    (dict(y_true=[1, 2], y_pred=[1, 2, 3]), "y_true has 2 values and y_pred 3"),
    (dict(y_true=[1, 2], y_pred=[1, 2], task="numeric"), "task must be one of"),
    (dict(y_true=[0, 1, 2], y_pred=["a", "b", "c"]), "y_true holds numbers and y_pred does not"),
    (dict(y_true=["a", "b", "c"], y_pred=["x", "y", "z"]), "y_pred's values .* share none with y_true's"),
])
def test_bad_labels_for_a_task(kwargs, match):
    with pytest.raises(ValueError, match=match):
        resolve_task(**kwargs)


def test_columns_of_a_regression_and_an_ordinal_scale_by_hand():
    y, yhat = np.array([1.0, 3.0, 5.0]), np.array([2.0, 3.0, 3.0])
    cols = {c.metric: c for c in outcome_columns(resolve_task(y, yhat, "regression"), y, yhat)}
    assert list(cols) == ["mean_absolute_error", "mean_error", "mean_prediction"]
    np.testing.assert_array_equal(cols["mean_absolute_error"].values, [1, 0, 2])
    np.testing.assert_array_equal(cols["mean_error"].values, [1, 0, -2])
    np.testing.assert_array_equal(cols["mean_prediction"].values, [2, 3, 3])
    assert cols["mean_absolute_error"].sign == 1 and cols["mean_error"].sign == -1
    ordinal = outcome_columns(resolve_task(y, yhat, "ordinal"), y, yhat)
    assert [c.metric for c in ordinal][-1] == "accuracy_error"
    np.testing.assert_array_equal(ordinal[-1].values, [0, 1, 0])
    assert ordinal[-1].kind == "proportion" and ordinal[-1].sign == -1


def test_ordered_categorical_is_scored_by_its_level_order():
    lv = ["low", "mid", "high"]
    t = pd.Series(pd.Categorical(["low", "high", "mid"], categories=lv, ordered=True))
    p = pd.Series(pd.Categorical(["mid", "low", "mid"], categories=lv, ordered=True))
    cols = outcome_columns(resolve_task(t, p), t, p)
    np.testing.assert_array_equal(cols[0].values, [1, 2, 0])  # |2-1|, |1-3|, |2-2|


def test_multiclass_columns_one_vs_rest():
    t = np.array(["a", "b", "c", "a"])
    p = np.array(["a", "c", "c", "b"])
    task = resolve_task(t, p)
    cols = outcome_columns(task, t, p)
    assert [c.metric for c in cols] == ["accuracy_error", "statistical_parity[a]", "statistical_parity[b]",
                                        "statistical_parity[c]"]
    np.testing.assert_array_equal(cols[0].values, [1, 0, 1, 0])
    np.testing.assert_array_equal(cols[3].values, [0, 1, 1, 0])
    assert cols[1].contrast == "R-S" and cols[1].sign == -1  # fewer 'a' predictions in S: z > 0, disadvantaged
    only = outcome_columns(task, t, p, labels="b")
    assert [c.metric for c in only] == ["accuracy_error", "statistical_parity[b]"]
    with pytest.raises(ValueError, match=r"label='z' is not a class of the labels \['a', 'b', 'c'\]"):
        outcome_columns(task, t, p, labels="z")


def test_loss_array_or_callable():
    y, yhat = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0])
    np.testing.assert_allclose(check_loss(lambda a, b: (a - b) ** 2, y, yhat, 3), [0.25, 0, 1])
    assert check_loss(None, y, yhat, 3) is None
    with pytest.raises(ValueError, match=r"loss\(<lambda>\) returned an array that must have shape \(3,\)"):
        check_loss(lambda a, b: np.ones((3, 2)), y, yhat, 3)
    with pytest.raises(ValueError, match=r"loss must have shape \(3,\) \(one loss per row\), got \(2,\)"):
        check_loss([1.0, 2.0], y, yhat, 3)
    with pytest.raises(ValueError, match="1 NaN or infinite"):
        check_loss([1.0, np.nan, 2.0], y, yhat, 3)
    with pytest.raises(TypeError, match="loss must be a per-row array or a callable"):
        check_loss("mse", y, yhat, 3)
    cols = outcome_columns(resolve_task(y, yhat, "regression"), y, yhat, loss=np.array([0.0, 1.0, 1.0]))
    assert cols[-1].metric == "mean_loss" and cols[-1].kind == "proportion"


def test_metric_labels_of_per_class_columns():
    from aif360_subjective.detectors.subgroup_metrics import base_metric, metric_label

    assert base_metric("statistical_parity[cat]") == "statistical_parity"
    assert metric_label("statistical_parity[cat]") == "Statistical parity (class cat)"
    assert metric_label("mean_error") == "Mean error (bias)" and metric_label("nope") == "nope"


@pytest.mark.parametrize(("y_true", "y_pred", "match"), [
    ([0, 1, 1, 0, 1], [0, 1, 3, 0, 1], r"y_pred holds 1 value that y_true never takes: 3 \(1 row, first at row 2\); "
                                       r"y_true's labels are \[0, 1\]"),
    ([0, 1, 1, 0, 1], [2, 1, 3, 2, 1],
     r"y_pred holds 2 values that y_true never takes: 2, 3 \(3 rows, first at row 0\)"),
    ([1, 2, 5, 3], [1, 2, 6, 3], r"y_pred holds 1 value that y_true never takes: 6 \(1 row"),
    (["cat", "dog", "cat"], ["cat", "dog", "Dog"], r"y_pred holds 1 value that y_true never takes: 'Dog' \(1 row"),
])
def test_auto_refuses_a_stray_prediction_and_names_it(y_true, y_pred, match):
    with pytest.raises(ValueError, match=match):
        resolve_task(y_true, y_pred)
    # given explicitly, the task is the caller's: no guess is refused
    assert resolve_task(y_true, y_pred, task="multiclass").name == "multiclass"


def test_auto_keeps_a_scale_value_the_truths_lack_and_regression_predictions():
    assert resolve_task([1, 2, 5, 3], [2, 2, 4, 1]).name == "ordinal"  # 4 lies on the 1-5 scale
    assert resolve_task([1, 2, 3, 2], [1.5, 2.2, 2.9, 2.0]).name == "regression"


def test_detect_subgroups_auto_refuses_a_stray_prediction():
    from aif360_subjective.detectors import detect_subgroups

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(["x", "y"], 60)})
    t = rng.integers(0, 2, 60)
    p = t.copy()
    p[7] = 3
    with pytest.raises(ValueError, match=r"y_pred holds 1 value that y_true never takes: 3 \(1 row, first at row 7\)"):
        detect_subgroups(X, t, p, discovery="patterns")
