"""detect_subgroups beyond binary decisions, with clusters of rows, and in any row order."""

import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.error_control.resampling import ClusteredRowsWarning


def _table(n=800, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("uv"), n), "c": rng.choice(list("pq"), n)})
    planted = (X["a"] == "x").to_numpy() & (X["b"] == "u").to_numpy()
    return X, planted, rng


def test_ordinal_audit_finds_the_over_predicted_slice():
    X, planted, rng = _table()
    y = rng.integers(1, 6, len(X))
    yhat = np.clip(y + rng.integers(-1, 2, len(X)) + 2 * planted, 1, 5)
    rep = detect_subgroups(X, y, yhat, discovery="patterns", n_permutations=99, random_state=0)
    assert rep.task == "ordinal" and "chose 'ordinal'" in rep.task_reason and rep.unit.startswith("rows")
    sm = rep.subgroup_metrics()
    assert {"mean_absolute_error", "mean_error_ci_low", "accuracy_error_p_adjusted"} <= set(sm.columns)
    top = rep.ranking("mean_error", kind="pattern", direction="favoured", n=1)  # over-predicted: favoured
    assert top["subgroup"].iloc[0] in ("a=x AND b=u", "b=u AND a=x")
    f = rep.findings()
    assert len(f) and f.attrs["task"] == "ordinal" and "studentized difference of means" in f.attrs["family"]
    err = f[(f["metric"] == "mean_absolute_error") & (f["direction"] == "disadvantaged")]
    rows = rep.members(err["kind"].iloc[0], err["id"].iloc[0])
    assert (rows & planted).sum() / (rows | planted).sum() >= 0.5


def test_regression_and_multiclass_reports():
    X, planted, rng = _table(seed=1)
    y = rng.normal(size=len(X))
    rep = detect_subgroups(X, y, y + rng.normal(size=len(X)) * np.where(planted, 3, 1), discovery="patterns",
                           n_permutations=49, random_state=0)
    assert rep.task == "regression"
    assert rep.ranking("mean_absolute_error", kind="pattern", n=1)["subgroup"].iloc[0] in (
        "a=x AND b=u", "b=u AND a=x")
    with pytest.raises(ValueError, match="metric must be one of"):
        rep.ranking("equal_opportunity", kind="pattern")
    cls = np.array(["cat", "dog", "owl"])
    t = cls[rng.integers(0, 3, len(X))]
    p = np.where(planted, "owl", t)  # the slice is predicted 'owl'
    mc = detect_subgroups(X, t, p, discovery="patterns", n_permutations=49, random_state=0)
    assert mc.task == "multiclass"
    owl = mc.ranking("statistical_parity", kind="pattern", label="owl", direction="favoured", n=1)
    assert list(owl.columns[:2]) == ["rank", "statistical_parity[owl]"] and owl.iloc[0, 1] < 0
    f = mc.findings()  # every class's one-vs-rest parity is in the family
    owl_rows = f[f["metric"] == "statistical_parity[owl]"]
    assert len(owl_rows) and owl_rows["direction"].iloc[0] == "favoured"
    with pytest.raises(ValueError, match="pass label= one of"):
        mc.ranking("statistical_parity", kind="pattern")
    with pytest.raises(ValueError, match="label='emu' is not one of the classes"):
        mc.ranking("statistical_parity", kind="pattern", label="emu")


@pytest.mark.parametrize(("kwargs", "err", "match"), [
    (dict(y_true=[0, 1, 2] * 10, y_pred=[0, 1, 1] * 10, task="binary"), ValueError,
     r"y_true has values \[2\] outside the admissible labels \[0, 1\].*task='binary' reads binary decisions"),
    (dict(y_true=[0.5, np.nan, 1.5] * 10, y_pred=[0.1, 0.2, 0.3] * 10, task="regression"), ValueError,
     "y_true contains 10 missing values"),
    (dict(y_true=[0.5, np.inf, 1.5] * 10, y_pred=[0.1, 0.2, 0.3] * 10), ValueError, "infinite"),
    (dict(y_true=[0.5, 1.0, 1.5] * 10, y_pred=[0.1, 0.2, 0.3] * 10, loss=lambda a, b: a[:3]), ValueError,
     r"loss\(<lambda>\) returned an array that must have shape \(30,\)"),
    (dict(y_true=[0, 1, 1] * 10, y_pred=[0, 1, 0] * 10, groups=[1, 2] * 10), ValueError,
     "groups must have one cluster id per row: got 20 ids for 30 rows"),
    (dict(y_true=[0, 1, 1] * 10, y_pred=[0, 1, 0] * 10, groups=np.arange(30)), ValueError, "it adds nothing"),
    (dict(y_true=[0, 1, 1] * 10, y_pred=[0, 1, 0] * 10, loss=np.ones(30)), ValueError, "loss= is compared"),
    (dict(y_true=[0.5, 1.0, 1.5] * 10, y_pred=[0.1, 0.2, 0.3] * 10, sample_weight=np.ones(30)), ValueError,
     "sample_weight applies to binary decisions"),
])
def test_bad_input(kwargs, err, match):
    X = pd.DataFrame({"a": list("xyz") * 10})
    with pytest.raises(err, match=match):
        detect_subgroups(X, discovery="patterns", n_permutations=19, **kwargs)


def _persons(n_persons=200, k=4, seed=2):
    rng = np.random.default_rng(seed)
    person = np.repeat(np.arange(n_persons), k)
    X = pd.DataFrame({"sex": rng.choice(["f", "m"], n_persons)[person],
                      "region": rng.choice(list("abcd"), n_persons)[person],
                      "person_id": person})
    err = rng.random(n_persons)[person] < 0.3  # a person-level error propensity
    t = rng.integers(0, 2, len(person))
    return X, t, np.where(err & (rng.random(len(person)) < 0.8), 1 - t, t), person


@pytest.mark.slow
def test_groups_state_the_unit_and_resample_clusters():
    X, t, p, person = _persons()
    with pytest.warns(ClusteredRowsWarning, match="column 'person_id' looks like an id"):
        detect_subgroups(X, t, p, discovery="patterns", n_permutations=19, random_state=0)
    feats = X.drop(columns="person_id")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClusteredRowsWarning)
        rep = detect_subgroups(feats, t, p, discovery="patterns", n_permutations=39, random_state=0,
                               groups=X["person_id"])
    assert rep.unit.startswith("200 clusters of rows by person_id (whole clusters permuted")
    sm = rep.subgroup_metrics(kind="pattern")
    assert sm["accuracy_p"].isna().all() and sm["accuracy_error_ci_low"].notna().any()
    assert sm.attrs["unit"] == rep.unit
    rows = detect_subgroups(feats, t, p, discovery="patterns", n_permutations=39, random_state=0)
    # person-level errors: the cluster bootstrap's intervals are wider than the rows' Newcombe intervals
    width = (sm["accuracy_error_ci_high"] - sm["accuracy_error_ci_low"]).median()
    sm_rows = rows.subgroup_metrics(kind="pattern")
    assert width > 1.2 * (sm_rows["accuracy_error_ci_high"] - sm_rows["accuracy_error_ci_low"]).median()


def test_findings_do_not_depend_on_the_row_order():
    X, planted, rng = _table(600, 3)
    t = rng.integers(0, 2, len(X))
    p = np.where(planted & (rng.random(len(X)) < 0.5), 0, t)
    a = detect_subgroups(X, t, p, discovery="patterns", n_permutations=39, random_state=5)
    shuffle = rng.permutation(len(X))
    b = detect_subgroups(X.iloc[shuffle].reset_index(drop=True), t[shuffle], p[shuffle], discovery="patterns",
                         n_permutations=39, random_state=5)
    pa = a.subgroup_metrics(kind="pattern").filter(like="_p_adjusted").to_numpy()
    pb = b.subgroup_metrics(kind="pattern").filter(like="_p_adjusted").to_numpy()
    np.testing.assert_array_equal(pa, pb)
    fa, fb = a.findings(), b.findings()
    assert len(fa) > 0
    pd.testing.assert_frame_equal(fa.drop(columns=["id"]), fb.drop(columns=["id"]))


def test_findings_tied_at_the_floor_are_ordered_by_the_strength_of_evidence():
    X, planted, rng = _table(1500, 4)
    t = rng.integers(0, 2, len(X))
    p = np.where(planted & (rng.random(len(X)) < 0.6), 0, t)  # strong: many findings at the floor 1/40
    rep = detect_subgroups(X, t, p, discovery="patterns", n_permutations=39, random_state=0)
    f = rep.findings(keep_redundant=True, merge_identical=False)
    floor = f[f["p_adjusted"] == f["p_adjusted"].min()]
    assert len(floor) > 3 and floor["metric"].nunique() > 1
    mt = rep.significance.max_t()
    tests = rep.candidate_metrics.metric_test
    stat = [mt.statistic(tests[m], 0 if d == "disadvantaged" else 1)[rep.candidates.positions(k)[
        rep.candidates.position(k, i)]] for m, k, i, d in zip(floor["metric"], floor["kind"], floor["id"],
                                                             floor["direction"], strict=True)]
    assert np.all(np.diff(stat) <= 1e-12)  # not the order of the metrics
