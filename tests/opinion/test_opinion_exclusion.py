"""OpinionExclusionMetric and its array core: hand-computed cases, invariants, groupings, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric, check_opinion_options
from aif360_subjective.opinion.annotations import disagreement_rates, encode_annotations
from aif360_subjective.opinion.core import compute_opinion_exclusion
from aif360_subjective.opinion.groups import assign_bins, enforce_min_group_size
from aif360_subjective.opinion.options import PERFORMANCE_NAMES, PERFORMANCES

#: the measures on binary labels (those on ratings are tested in test_opinion_ordinal.py)
LABEL_PERFORMANCES = tuple(n for n in PERFORMANCE_NAMES if not PERFORMANCES[n].needs_ratings)

# Small hand-computed case: 4 items x 3 annotators (a, b, c), label 1 favourable.
#   item:   0      1      2      3
#   a:      1      1      1      0
#   b:      1      0      1      0
#   c:      0      0      1      1
#   MV:     1      0      1      0      ->  ADR a = 1/4, b = 0, c = 2/4
ITEMS = np.repeat([0, 1, 2, 3], 3)
ANNS = np.array(["a", "b", "c"] * 4, dtype=object)
TRUE = np.array([1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1])
MV_PRED = np.array([1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0])
# another predictor; per-annotator confusion (pos = 1):
#   a: TP 2, FN 1, TN 1, FP 0    b: TP 1, FN 1, TN 1, FP 1    c: TP 2, FP 1, TN 1, FN 0
PRED = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1])
EXPECTED = {
    "accuracy": (0.75, 0.5, 0.75),
    "balanced_accuracy": (5 / 6, 0.5, 0.75),
    "true_positive_rate": (2 / 3, 0.5, 1.0),
    "true_negative_rate": (1.0, 0.5, 0.5),
    "false_positive_rate": (0.0, 0.5, 0.5),
    "false_negative_rate": (1 / 3, 0.5, 0.0),
    "precision": (1.0, 0.5, 2 / 3),
    "f1": (0.8, 0.5, 0.8),
}
ANNOTATORS = pd.DataFrame(
    {"gender": ["f", "m", "f"], "age": ["young", "young", "old"]}, index=pd.Index(["a", "b", "c"], name="annotator")
)


def _dataset(labels=TRUE, items=ITEMS, anns=ANNS, annotators=ANNOTATORS):
    df = pd.DataFrame({"item": items, "annotator": anns, "label": labels})
    return MultiAnnotatorDataset(df, annotators=annotators, favorable_label=1, unfavorable_label=0)


@pytest.fixture(scope="module")
def small():
    return _dataset()


def _metric(ds, pred, **kw):
    return OpinionExclusionMetric(ds, ds.with_predictions(pred), **kw)


# ---------------------------------------------------------------------------------------- exact values
def test_disagreement_rates_hand_computed(small):
    m = _metric(small, MV_PRED)
    adr = m.disagreement_rates()
    assert adr.index.name == "annotator"
    assert adr.to_dict() == {"a": 0.25, "b": 0.0, "c": 0.5}


def test_adr_groups_unfairness_hand_computed(small):
    m = _metric(small, MV_PRED, bins=2)
    table = m.group_performance()
    # pandas.cut over [0, 0.5] with 2 bins: (-0.0005, 0.25], (0.25, 0.5]
    assert list(table.index) == [pd.Interval(-0.0005, 0.25), pd.Interval(0.25, 0.5)]
    assert table["n_annotators"].tolist() == [2, 1]
    assert table["n_annotations"].tolist() == [8, 4]
    np.testing.assert_allclose(table["performance"], [0.875, 0.5])
    np.testing.assert_allclose(table["spread"], [0.125, 0.0])
    assert table["n_undefined"].tolist() == [0, 0]
    assert m.unfairness() == pytest.approx(0.1875, abs=1e-15)
    assert m.performance() == pytest.approx(0.6875, abs=1e-15)
    # individual-level figures
    assert m.annotator_unfairness() == pytest.approx(np.std([0.75, 1.0, 0.5]), abs=1e-15)
    assert m.worst_group() == pd.Interval(0.25, 0.5)
    assert m.worst_group_performance() == 0.5
    assert m.performance_gap() == pytest.approx(0.375, abs=1e-15)


@pytest.mark.parametrize("name", LABEL_PERFORMANCES)
def test_every_performance_option_hand_computed(small, name):
    m = _metric(small, PRED, bins=2, performance=name)
    np.testing.assert_allclose(m.annotator_performance().to_numpy(), EXPECTED[name], rtol=0, atol=1e-15)
    a, b, c = EXPECTED[name]
    groups = [(a + b) / 2, c]
    np.testing.assert_allclose(m.group_performance()["performance"], groups, atol=1e-15)
    assert m.unfairness() == pytest.approx(np.std(groups), abs=1e-15)
    assert m.performance() == pytest.approx(np.mean(groups), abs=1e-15)


@pytest.mark.parametrize("name", LABEL_PERFORMANCES)
def test_builtin_metrics_match_sklearn_per_annotator(name):
    rng = np.random.default_rng(3)
    n = 200
    anns = rng.integers(0, 12, n)
    items = rng.integers(0, 60, n)
    y, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
    enc = encode_annotations(y, p, items, anns)
    res = compute_opinion_exclusion(enc, check_opinion_options(annotators=enc.annotators, performance=name))
    sk = {
        "accuracy": skm.accuracy_score,
        "balanced_accuracy": skm.balanced_accuracy_score,
        "true_positive_rate": lambda t, q: skm.recall_score(t, q, zero_division=np.nan),
        "true_negative_rate": lambda t, q: skm.recall_score(t, q, pos_label=0, zero_division=np.nan),
        "false_positive_rate": lambda t, q: 1 - skm.recall_score(t, q, pos_label=0, zero_division=np.nan),
        "false_negative_rate": lambda t, q: 1 - skm.recall_score(t, q, zero_division=np.nan),
        "precision": lambda t, q: skm.precision_score(t, q, zero_division=np.nan),
        "f1": lambda t, q: skm.f1_score(t, q, zero_division=np.nan),
    }[name]
    expected = [sk(y[anns == a], p[anns == a]) for a in res.annotator_performance.index]
    np.testing.assert_allclose(res.annotator_performance.to_numpy(), expected, atol=1e-12)


def test_callable_and_list_performance(small):
    m = _metric(small, PRED, bins=2, performance=skm.accuracy_score)
    np.testing.assert_allclose(m.annotator_performance(), EXPECTED["accuracy"])
    assert m.performance_name() == "accuracy_score"
    m = _metric(small, PRED, bins=2, performance=["accuracy", "f1"])
    np.testing.assert_allclose(m.annotator_performance(), [(0.75 + 0.8) / 2, 0.5, (0.75 + 0.8) / 2])
    assert m.performance_name() == "mean(accuracy, f1)"
    m = _metric(small, PRED, bins=2, performance=["accuracy", skm.f1_score])
    np.testing.assert_allclose(m.annotator_performance(), [(0.75 + 0.8) / 2, 0.5, (0.75 + 0.8) / 2])


def test_undefined_values_are_nan_skipped_and_counted():
    # annotator d is never predicted positive: precision undefined for d
    items = np.array([0, 0, 1, 1, 2, 2])
    anns = np.array(["c", "d", "c", "d", "c", "d"], dtype=object)
    y = np.array([1, 1, 0, 1, 1, 0])
    p = np.array([1, 0, 1, 0, 1, 0])
    ds = _dataset(y, items, anns, annotators=None)
    m = _metric(ds, p, grouping=pd.Series({"c": "g", "d": "g"}), performance="precision")
    perf = m.annotator_performance()
    assert perf["c"] == pytest.approx(2 / 3) and np.isnan(perf["d"])
    row = m.group_performance().loc["g"]
    assert row["n_undefined"] == 1 and row["n_annotators"] == 2 and row["performance"] == pytest.approx(2 / 3)
    assert m.grouping_summary().n_undefined_units == 1
    # a list combines NaN: propagate (default) or omit
    prop = _metric(ds, p, performance=["precision", "accuracy"]).annotator_performance()
    omit = _metric(ds, p, performance=["precision", "accuracy"], nan_policy="omit").annotator_performance()
    assert np.isnan(prop["d"]) and omit["d"] == pytest.approx(1 / 3)  # only accuracy is defined
    assert prop["c"] == omit["c"] == pytest.approx((2 / 3 + 2 / 3) / 2)


# ---------------------------------------------------------------------------------------- invariants
@pytest.fixture(scope="module")
def generated():
    return make_subjective_dataset(n_items=600, n_annotators=60, random_state=7)


@pytest.mark.parametrize("tie", ["favorable", "unfavorable"])
def test_majority_vote_predictor_accuracy_is_one_minus_adr(generated, tie):
    pred = generated.majority_labels(tie=tie)
    m = _metric(generated, pred, tie=tie)
    np.testing.assert_allclose(m.annotator_performance(), 1 - m.disagreement_rates(), rtol=0, atol=1e-15)


@pytest.mark.parametrize("tie", ["favorable", "unfavorable", "drop"])
def test_adr_uses_the_datasets_majority_vote(generated, tie):
    mv = generated.majority_labels(tie=tie)
    counted = ~np.isnan(mv)
    dis = pd.Series((generated.labels.ravel() != mv) & counted).groupby(generated.annotator_ids).sum()
    cnt = pd.Series(counted).groupby(generated.annotator_ids).sum()
    expected = (dis / cnt.where(cnt > 0)).sort_index()
    adr = _metric(generated, generated.labels.ravel(), tie=tie).disagreement_rates()
    np.testing.assert_allclose(adr.to_numpy(), expected.to_numpy(), atol=1e-15)


@pytest.mark.parametrize("grouping", ["adr", "ambiguity", "popularity", "demographic"])
def test_perfect_and_all_wrong_predictions(generated, grouping):
    truth = generated.labels.ravel()
    perfect = _metric(generated, truth, grouping=grouping)
    assert perfect.unfairness() == 0.0 and perfect.performance() == 1.0
    wrong = _metric(generated, 1 - truth, grouping=grouping)
    assert wrong.performance() == 0.0 and wrong.unfairness() == 0.0


def test_aif360_metrics_still_work_on_annotation_rows(small):
    m = _metric(small, PRED, bins=2, privileged_groups=[{"age": 1}], unprivileged_groups=[{"age": 0}])
    # age codes: old = 0, young = 1 -> privileged = a, b (8 rows), unprivileged = c (4 rows)
    assert m.accuracy() == pytest.approx(8 / 12)
    assert m.accuracy(privileged=True) == pytest.approx(5 / 8)
    assert m.accuracy(privileged=False) == pytest.approx(3 / 4)
    assert m.unfairness() == pytest.approx(0.0625)  # ADR groups {a, b} = 0.625, {c} = 0.75


def test_options_are_constructor_state_and_results_are_copies(small):
    pred = small.with_predictions(PRED)
    m1 = OpinionExclusionMetric(small, pred, bins=2, performance="accuracy")
    m2 = OpinionExclusionMetric(small, pred, bins=2, performance="f1")
    assert m1.performance() != m2.performance()
    t = m1.group_performance()
    t.loc[:, "performance"] = -1.0
    assert (m1.group_performance()["performance"] >= 0).all()


# ---------------------------------------------------------------------------------------- ties
def test_tie_policies_hand_computed():
    # item 0: a=1 b=0 c=1 d=0 (tie);  item 1: a=1 b=1
    items = np.array([0, 0, 0, 0, 1, 1])
    anns = np.array(["a", "b", "c", "d", "a", "b"], dtype=object)
    y = np.array([1, 0, 1, 0, 1, 1])
    ds = _dataset(y, items, anns, annotators=None)
    fav = _metric(ds, y, tie="favorable").disagreement_rates()
    unf = _metric(ds, y, tie="unfavorable").disagreement_rates()
    assert fav.to_dict() == {"a": 0.0, "b": 0.5, "c": 0.0, "d": 1.0}
    assert unf.to_dict() == {"a": 0.5, "b": 0.0, "c": 1.0, "d": 0.0}
    m = _metric(ds, y, tie="drop")
    drop = m.disagreement_rates()
    assert drop["a"] == 0.0 and drop["b"] == 0.0 and np.isnan(drop["c"]) and np.isnan(drop["d"])
    rep = m.grouping_summary()
    assert rep.n_tie_items == 1
    assert rep.excluded["annotations on dropped ties (not counted in ADR)"] == 4
    assert rep.excluded["annotators without ADR (only tied items)"] == 2
    assert rep.n_ungrouped_units == 2 and rep.n_ungrouped_annotations == 2
    assert "ungrouped" in rep.summary()
    assert rep.n_resolved_tie_items == 0 and "1 tied item dropped" in rep.summary()
    for policy in ("favorable", "unfavorable"):  # the same tie, resolved instead of dropped: counted too
        resolved = _metric(ds, y, tie=policy).grouping_summary()
        assert resolved.n_tie_items == 0 and resolved.n_resolved_tie_items == 1
        assert f"1 tied item resolved as {policy}" in resolved.summary()


# ---------------------------------------------------------------------------------------- groupings
def test_ambiguity_grouping_hand_computed(small):
    # disagreement per item: 1/3, 1/3, 0, 1/3 -> bins=2: {item 2}, {items 0, 1, 3}; pooled accuracy
    m = _metric(small, MV_PRED, grouping="ambiguity", bins=2)
    table = m.group_performance()
    assert table["n_annotations"].tolist() == [3, 9]
    np.testing.assert_allclose(table["performance"], [1.0, 6 / 9])
    assert m.unfairness() == pytest.approx(np.std([1.0, 6 / 9]))
    assert m.grouping_summary().unit == "item" and m.grouping_summary().aggregate == "pooled"
    # per-annotator aggregate instead of pooled: group 2 = mean of a (2/3), b (1), c (1/3)
    m = _metric(small, MV_PRED, grouping="ambiguity", bins=2, aggregate="annotator")
    np.testing.assert_allclose(m.group_performance()["performance"], [1.0, 2 / 3])
    m = _metric(small, MV_PRED, grouping="ambiguity", bins=2, ambiguity="entropy")
    assert m.group_performance()["n_annotations"].tolist() == [3, 9]


def test_uqs_ambiguity_optional(small):
    pytest.importorskip("aif360_subjective.quality", reason="CrowdTruth module")
    from aif360_subjective import quality

    if not hasattr(quality, "crowdtruth_scores"):
        with pytest.raises(ImportError, match="crowdtruth_scores"):
            _metric(small, MV_PRED, grouping="ambiguity", ambiguity="uqs").group_performance()
        return
    m = _metric(small, MV_PRED, grouping="ambiguity", ambiguity="uqs", bins=2)
    assert m.group_performance()["n_annotations"].sum() == 12


def test_popularity_grouping_hand_computed(small):
    # share of identical labels per annotation: the three minority labels have 1/3, the rest >= 2/3
    m = _metric(small, MV_PRED, grouping="popularity", bins=[0, 0.5, 1])
    table = m.group_performance()
    assert table["n_annotations"].tolist() == [3, 9]
    np.testing.assert_allclose(table["performance"], [0.0, 1.0])
    assert m.unfairness() == 0.5 and m.performance() == 0.5
    assert list(table.index) == list(pd.IntervalIndex.from_breaks([0, 0.5, 1]))


def test_demographic_grouping_and_intersections(small):
    m = _metric(small, MV_PRED, grouping="demographic", attributes="gender")
    np.testing.assert_allclose(m.group_performance()["performance"].to_numpy(), [0.625, 1.0])
    assert list(m.group_performance().index) == ["f", "m"]
    m = _metric(small, MV_PRED, grouping="demographic", attributes=["gender", "age"])
    table = m.group_performance()
    assert list(table.index) == [("f", "old"), ("f", "young"), ("m", "young")]
    np.testing.assert_allclose(table["performance"], [0.5, 0.75, 1.0])


def test_series_grouping_reports_missing_annotators(small):
    m = _metric(small, MV_PRED, grouping=pd.Series({"a": "g1", "b": "g1"}, name="mine"))
    table = m.group_performance()
    assert list(table.index) == ["g1"] and table.loc["g1", "performance"] == 0.875
    rep = m.grouping_summary()
    assert rep.grouping == "mine" and rep.excluded == {"annotators without a group label": 1}
    assert rep.n_ungrouped_annotations == 4


# ---------------------------------------------------------------------------------------- binning
def test_int_bins_follow_pandas_cut():
    v = np.array([0.0, 0.1, 0.35, 0.5, np.nan, 0.9])
    codes, labels, _ = assign_bins(v, 3)
    cat = pd.cut(v[~np.isnan(v)], 3)
    assert codes.tolist() == [*cat.codes[:4].tolist(), -1, cat.codes[4]]
    assert labels.equals(pd.Index(cat.categories, name="group"))


def test_explicit_edges_right_closed_lowest_included_outside_reported():
    v = np.array([0.0, 0.2, 0.21, 0.5, 0.7])
    codes, labels, notes = assign_bins(v, [0, 0.2, 0.5])
    assert codes.tolist() == [0, 0, 1, 1, -1]
    assert list(labels) == [pd.Interval(0, 0.2), pd.Interval(0.2, 0.5)]
    assert "1 values outside" in notes[0]


def test_quantile_bins():
    v = np.arange(8, dtype=float)
    codes, labels, _ = assign_bins(v, "quantile:4")
    assert np.bincount(codes).tolist() == [2, 2, 2, 2]
    codes, labels, notes = assign_bins(np.zeros(5), "quantile:3")
    assert codes.tolist() == [0] * 5 and "all values equal" in notes[0]


def test_empty_groups_skipped_and_reported(small):
    m = _metric(small, MV_PRED, bins=4)  # ADR 0, 0.25, 0.5 -> the bin (0.25, 0.375] is empty
    rep = m.grouping_summary()
    assert len(rep.empty_groups) == 1 and m.group_performance().shape[0] == 3
    assert "empty groups skipped" in rep.summary()


def test_min_group_size_merge_and_drop():
    labels = pd.IntervalIndex.from_breaks([0, 1, 2, 3, 4, 5])
    sizes = np.array([5, 1, 0, 2, 10])
    codes = np.repeat(np.arange(5), sizes)
    new, new_labels, rep = enforce_min_group_size(codes, pd.Index(labels), sizes, 3, "merge", True)
    assert rep["empty"] == (pd.Interval(2, 3),)
    assert list(new_labels) == [pd.Interval(0, 1), pd.Interval(1, 4), pd.Interval(4, 5)]
    assert np.bincount(new).tolist() == [5, 3, 10]
    assert rep["merged"] == (((pd.Interval(1, 2), pd.Interval(3, 4)), pd.Interval(1, 4)),)
    new, new_labels, rep = enforce_min_group_size(codes, pd.Index(labels), sizes, 3, "drop", True)
    assert list(new_labels) == [pd.Interval(0, 1), pd.Interval(4, 5)]
    assert rep["dropped"] == (pd.Interval(1, 2), pd.Interval(3, 4))
    assert (new == -1).sum() == 3
    # unordered groups: the small ones are pooled into "other"
    lab = pd.Index(["x", "y", "z"], dtype=object)
    new, new_labels, rep = enforce_min_group_size(
        np.array([0, 0, 0, 1, 2]), lab, np.array([3, 1, 1]), 2, "merge", False
    )
    assert list(new_labels) == ["x", "other"] and new.tolist() == [0, 0, 0, 1, 1]


def test_min_group_size_in_metric(generated):
    m = _metric(generated, generated.majority_labels(), bins=10, min_group_size=5)
    table = m.group_performance()
    assert (table["n_annotators"] >= 5).all()
    assert table["n_annotators"].sum() == generated.n_annotators
    assert m.grouping_summary().merged_groups


# ---------------------------------------------------------------------------------------- errors
def test_rows_must_be_the_same_pairs(small):
    other = small.subset(np.arange(6))
    with pytest.raises(ValueError, match="same .item, annotator. rows: 12 vs 6"):
        OpinionExclusionMetric(small, other)
    reordered = small.subset(np.arange(12)[::-1])
    with pytest.raises(ValueError, match="align_datasets"):
        OpinionExclusionMetric(small, reordered)
    with pytest.raises(TypeError, match="MultiAnnotatorDataset"):
        OpinionExclusionMetric(small, small.majority_vote())


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"bins": 0}, ValueError, "bins must be a positive"),
        ({"bins": -2}, ValueError, "bins must be a positive"),
        ({"bins": [0, 0.5, 0.5]}, ValueError, "strictly increasing"),
        ({"bins": [1, 0]}, ValueError, "strictly increasing"),
        ({"bins": [0.5]}, ValueError, "at least two"),
        ({"bins": "quantile:0"}, ValueError, "quantile:N"),
        ({"bins": "deciles"}, ValueError, "quantile:N"),
        ({"bins": 2.5}, TypeError, "bins must be"),
        ({"performance": "auc"}, ValueError, "performance must be one of"),
        ({"performance": ["accuracy", "auc"]}, ValueError, "performance must be one of"),
        ({"performance": 3}, TypeError, "performance must be"),
        ({"performance": []}, ValueError, "empty"),
        ({"grouping": "clusters"}, ValueError, "grouping must be one of"),
        ({"grouping": ["a"]}, TypeError, "grouping must be"),
        ({"tie": "random"}, ValueError, "tie must be one of"),
        ({"min_group_size": 0}, ValueError, "min_group_size"),
        ({"small_groups": "keep"}, ValueError, "small_groups"),
        ({"aggregate": "median"}, ValueError, "aggregate"),
        ({"ambiguity": "variance"}, ValueError, "ambiguity"),
        ({"grouping": "demographic", "attributes": ["height"]}, ValueError, "not annotator columns"),
    ],
)
def test_bad_options_raise_clear_errors(small, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        _metric(small, PRED, **kwargs)


def test_core_rejects_bad_arrays():
    with pytest.raises(ValueError, match="same length"):
        encode_annotations([1, 0], [1], [0, 1], ["a", "b"])
    with pytest.raises(ValueError, match="binary"):
        encode_annotations([1, 0, 2], [1, 0, 1], [0, 1, 2], ["a", "b", "c"])
    with pytest.raises(ValueError, match="missing"):
        encode_annotations([1, 0], [1, 0], [0, None], ["a", "b"])
    enc = encode_annotations(TRUE, MV_PRED, ITEMS, ANNS)
    with pytest.raises(ValueError, match="tie must be one of"):
        disagreement_rates(enc, tie="coin")


# ---------------------------------------------------------------------------------------- explainer
def test_text_explainer(small):
    from aif360_subjective.explainers.opinion_exclusion import OpinionExclusionTextExplainer

    ex = OpinionExclusionTextExplainer(_metric(small, MV_PRED, bins=2))
    assert ex.unfairness().endswith(": 0.1875") and "2 groups" in ex.unfairness()
    assert ex.performance().endswith(": 0.6875")
    assert "mean 0.250" in ex.disagreement_rates() and "3 annotators" in ex.disagreement_rates()
    assert "0.25\u20130.50: 0.500 over 1 annotator (" in ex.group_performance()  # one label form, singular
    assert ex.worst_group() == "Worst-served group (lowest accuracy, higher is better): 0.25\u20130.50 (accuracy 0.5)"
    assert ex.performance_gap().endswith(": 0.375")
    assert "std 0.204" in ex.annotator_performance()
    assert ex.annotator_unfairness().endswith(str(np.std([0.75, 1.0, 0.5])))
    assert ex.grouping_summary().startswith("Grouping: grouping='adr'")
    assert ex.accuracy().startswith("Classification accuracy")  # inherited AIF360 explanations
    with pytest.raises(TypeError, match="OpinionExclusionMetric"):
        OpinionExclusionTextExplainer(object())


# ---------------------------------------------------------------------------------------- option views
def test_option_attributes_are_read_only_views_of_options(small):
    m = _metric(small, MV_PRED, grouping="demographic", attributes="gender", performance=["accuracy", "f1"],
                min_group_size=2, small_groups="drop", tie="unfavorable")
    o = m.options
    assert (m.grouping, m.grouping_argument) == ("demographic", "demographic") == (o.grouping, o.grouping)
    assert m.attributes == ["gender"] and m.performance_metric == ["accuracy", "f1"]
    assert (m.tie, m.min_group_size, m.small_groups, m.aggregate) == ("unfavorable", 2, "drop", "annotator")
    assert (m.bins, m.ambiguity, m.nan_policy, m.n_clusters) == (o.bins, o.ambiguity, o.nan_policy, None)
    for name in ("grouping", "bins", "tie", "performance_metric", "attributes", "random_state"):
        with pytest.raises(AttributeError):
            setattr(m, name, None)
    assert _metric(small, MV_PRED).attributes is None


def test_grouping_is_the_kind_and_the_series_stays_available(small):
    labels = pd.Series({"a": "g1", "b": "g1", "c": "g2"}, name="mine")
    m = _metric(small, MV_PRED, grouping=labels)
    assert m.grouping == "series"
    pd.testing.assert_series_equal(m.grouping_argument, labels)
    assert _metric(small, MV_PRED).performance_metric == "accuracy"
