"""Opinion exclusion on ordinal ratings: "mae" and "within_one", the measures' direction, both faces, real data.

The small case (hand-computed below): 3 annotators rate 2 items on a 1-5 scale, binary view = rating >= 3
(label 1 = offensive, favourable 0, as PopquornDataset(positive_from=3)); a model predicts ratings 2, 2, 2 on
item 1 and 4, 4, 4 on item 2.

    item 1: ratings a=1 b=2 c=5 -> binary 0 0 1 -> majority 0, c disagrees
    item 2: ratings a=4 b=4 c=1 -> binary 1 1 0 -> majority 1, c disagrees
    ADR a=0 b=0 c=1; with bins=2 over [0, 1]: groups (-0.001, 0.5] = {a, b} and (0.5, 1] = {c}
    MAE a=(|1-2|+|4-4|)/2=0.5  b=0  c=(|5-2|+|1-4|)/2=3   groups 0.25, 3.0
    within one a=1 b=1 c=0                                 groups 1.0, 0.0
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.explainers.opinion_exclusion import OpinionExclusionTextExplainer
from aif360_subjective.metrics import OpinionExclusionMetric, check_opinion_options
from aif360_subjective.opinion.options import ORDINAL_PERFORMANCES, PERFORMANCES
from aif360_subjective.sklearn.metrics import annotator_performance, opinion_exclusion

RATINGS = [1, 2, 5, 4, 4, 1]
PRED = np.array([2, 2, 2, 4, 4, 4])
LOW, HIGH = pd.Interval(-0.001, 0.5), pd.Interval(0.5, 1.0)


def _small(ratings=RATINGS, pred=PRED, items=(1, 1, 1, 2, 2, 2), annotators="abcabc"):
    df = pd.DataFrame({"item": list(items), "annotator": list(annotators), "rating": ratings})
    df["label"] = (df["rating"] >= 3).astype(int)
    ds = MultiAnnotatorDataset(df, info_columns=["rating"], favorable_label=0, unfavorable_label=1)
    return ds, ds.with_predictions((np.asarray(pred) >= 3).astype(int), info={"rating": pred})


def _fn(ds, pred, **kw):
    return opinion_exclusion(ds.annotation_info["rating"], pred.annotation_info["rating"], item_ids=ds.item_ids,
                             annotator_ids=ds.annotator_ids, positive_from=3, pos_label=0, **kw)


# ------------------------------------------------------------------------------------ hand-computed
def test_mae_hand_computed_worst_group_is_the_highest():
    ds, pred = _small()
    m = OpinionExclusionMetric(ds, pred, performance="mae", rating_column="rating", bins=2)
    assert m.disagreement_rates().to_dict() == {"a": 0.0, "b": 0.0, "c": 1.0}
    assert m.annotator_performance().to_dict() == {"a": 0.5, "b": 0.0, "c": 3.0}
    table = m.group_performance()
    assert list(table.index) == [LOW, HIGH]
    assert table["performance"].tolist() == [0.25, 3.0]
    assert table["spread"].tolist() == [0.25, 0.0]
    assert m.unfairness() == pytest.approx(1.375, abs=1e-15)  # std of [0.25, 3]
    assert m.performance() == pytest.approx(1.625, abs=1e-15)
    # lower is better: the worst-served group has the highest MAE
    assert m.worst_group() == HIGH and m.worst_group_performance() == 3.0
    fig = m.individual_figures()
    assert fig["best_group"] == LOW and fig["best_group_performance"] == 0.25
    assert m.performance_gap() == pytest.approx(2.75, abs=1e-15)
    assert m.options.higher_is_better is False and m.options.needs_ratings


def test_within_one_hand_computed():
    ds, pred = _small()
    m = OpinionExclusionMetric(ds, pred, performance="within_one", rating_column="rating", bins=2)
    assert m.annotator_performance().to_dict() == {"a": 1.0, "b": 1.0, "c": 0.0}
    assert m.group_performance()["performance"].tolist() == [1.0, 0.0]
    assert m.unfairness() == 0.5 and m.worst_group() == HIGH and m.options.higher_is_better


def test_pooled_mae_differs_from_annotator_mean():
    # item 3 annotated by a alone (rating 3, predicted 5): a's MAE (1 + 0 + 2) / 3 = 1, ADR a stays 0
    ds, pred = _small([1, 2, 5, 4, 4, 1, 3], [2, 2, 2, 4, 4, 4, 5], items=(1, 1, 1, 2, 2, 2, 3),
                      annotators="abcabca")
    kw = {"performance": "mae", "rating_column": "rating", "bins": 2}
    per_annotator = OpinionExclusionMetric(ds, pred, **kw).group_performance()["performance"]
    pooled = OpinionExclusionMetric(ds, pred, aggregate="pooled", **kw).group_performance()["performance"]
    assert per_annotator.tolist() == [0.5, 3.0]  # mean of a=1 and b=0
    assert pooled.tolist() == [pytest.approx(0.6, abs=1e-15), 3.0]  # (1 + 0 + 2 + 0 + 0) / 5


def test_ambiguity_grouping_on_ratings_keeps_the_binary_view():
    ds, pred = _small()
    m = OpinionExclusionMetric(ds, pred, performance="mae", rating_column="rating", grouping="ambiguity", bins=2)
    # both items split 2 to 1 in the binary view: one ambiguity group, pooled MAE (1+0+3+0+0+3)/6
    assert m.group_performance()["performance"].tolist() == [pytest.approx(7 / 6, abs=1e-15)]


def test_median_adr_reference_hand_computed():
    # item 1: ratings 1 2 5, median 2: a (1 point off) and c disagree; item 2: 4 4 1, median 4: c disagrees;
    # item 3: a=3 b=4, median 3.5: both within half a point, both agree
    ratings, pred = [1, 2, 5, 4, 4, 1, 3, 4], [2, 2, 2, 4, 4, 4, 3, 3]
    ds, cls = _small(ratings, pred, items=(1, 1, 1, 2, 2, 2, 3, 3), annotators="abcabcab")
    m = OpinionExclusionMetric(ds, cls, performance="mae", rating_column="rating", adr_reference="median", bins=2)
    np.testing.assert_allclose(m.disagreement_rates().to_numpy(), [1 / 3, 0.0, 1.0], rtol=0, atol=1e-15)
    # MAE a = (1 + 0 + 0) / 3, b = (0 + 0 + 1) / 3, c = 3; groups {a, b} and {c}
    np.testing.assert_allclose(m.group_performance()["performance"], [1 / 3, 3.0], rtol=0, atol=1e-15)
    assert m.grouping_summary().n_tie_items == 0
    # the binary majority instead: item 3 (3 and 4, both offensive) is unanimous, a never disagrees
    binary = OpinionExclusionMetric(ds, cls, performance="mae", rating_column="rating", bins=2)
    assert binary.disagreement_rates().to_dict() == {"a": 0.0, "b": 0.0, "c": 1.0}
    with pytest.raises(ValueError, match=r"adr_reference='median' measures disagreement with the item's median "
                                         r"rating, but no ratings were given"):
        OpinionExclusionMetric(ds, cls, adr_reference="median")
    with pytest.raises(ValueError, match=r"adr_reference"):
        OpinionExclusionMetric(ds, cls, rating_column="rating", adr_reference="mode")


def test_callables_get_ratings_and_greater_is_better():
    ds, pred = _small()

    def mean_abs(y, yhat):
        return float(np.mean(np.abs(y - yhat)))

    m = OpinionExclusionMetric(ds, pred, performance=mean_abs, rating_column="rating", bins=2,
                               greater_is_better=False)
    named = OpinionExclusionMetric(ds, pred, performance="mae", rating_column="rating", bins=2)
    pd.testing.assert_frame_equal(m.group_performance(), named.group_performance())
    assert m.worst_group() == named.worst_group() == HIGH
    # without greater_is_better, a callable counts as higher-is-better: the worst group flips
    assert OpinionExclusionMetric(ds, pred, performance=mean_abs, rating_column="rating", bins=2).worst_group() == LOW


def test_error_rates_are_lower_is_better_too():
    ds, pred = _small()
    m = OpinionExclusionMetric(ds, pred, performance="false_positive_rate", bins=2)
    # positive = favourable 0 (rating < 3); FPR per annotator: a 0/1 (item 2 true 1, pred 1), b 0/1, c 1/1
    # (item 1: true 1 (rating 5), predicted 0 (rating 2))
    assert m.annotator_performance().to_dict() == {"a": 0.0, "b": 0.0, "c": 1.0}
    assert m.worst_group() == HIGH and m.options.higher_is_better is False


def test_direction_table_is_the_one_place():
    assert {n for n, p in PERFORMANCES.items() if not p.higher_is_better} == {
        "mae", "false_positive_rate", "false_negative_rate"}
    assert ORDINAL_PERFORMANCES == ("mae", "within_one")


# ------------------------------------------------------------------------------------ both faces
def test_function_equals_class_hand_computed():
    ds, pred = _small()
    res = _fn(ds, pred, performance="mae", bins=2)
    assert res.group_table["performance"].tolist() == [0.25, 3.0]
    assert res.unfairness == pytest.approx(1.375, abs=1e-15)
    ann = annotator_performance(ds.annotation_info["rating"], PRED, item_ids=ds.item_ids,
                                annotator_ids=ds.annotator_ids, performance="within_one", positive_from=3)
    assert ann.to_dict() == {"a": 1.0, "b": 1.0, "c": 0.0}


# ------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("performance, match", [
    (["mae", "accuracy"], r"mixes measures on ratings \['mae'\] with measures on binary labels \['accuracy'\]"),
    (["mae", "within_one"], r"mixes higher-is-better measures \['within_one'\] with lower-is-better measures"),
    (["accuracy", "false_positive_rate"], r"mixes higher-is-better measures \['accuracy'\]"),
])
def test_lists_mixing_kinds_or_directions_are_refused(performance, match):
    with pytest.raises(ValueError, match=match):
        check_opinion_options(annotators=pd.Index(["a"]), performance=performance, has_ratings=True)


def test_greater_is_better_checked():
    with pytest.raises(ValueError, match=r"greater_is_better=True contradicts performance 'mae' \(lower is better\)"):
        check_opinion_options(annotators=pd.Index(["a"]), performance="mae", has_ratings=True, greater_is_better=True)
    with pytest.raises(TypeError, match=r"greater_is_better must be None, True or False, got 'no'"):
        check_opinion_options(annotators=pd.Index(["a"]), greater_is_better="no")


def test_rating_column_errors_name_the_column():
    ds, pred = _small()
    with pytest.raises(ValueError, match=r"performance 'mae' compares ratings, but none were given"):
        OpinionExclusionMetric(ds, pred, performance="mae")
    with pytest.raises(ValueError, match=r"rating_column='score' is not a column of dataset.annotation_info "
                                         r"\(columns: \['rating'\]\)"):
        OpinionExclusionMetric(ds, pred, performance="mae", rating_column="score")
    with pytest.raises(TypeError, match=r"rating_column must be None or a column name \(str\), got 3"):
        OpinionExclusionMetric(ds, pred, performance="mae", rating_column=3)
    bad = ds.with_predictions(pred.labels.ravel(), info={"rating": ["2", "x", "2", "4", None, "4"]})
    with pytest.raises(ValueError, match=r"classified_dataset.annotation_info\['rating'\] must hold numeric ratings: "
                                         r"2 value\(s\) are missing or not numbers, at rows \[1, 4\] \(\['x', nan\]\)"):
        OpinionExclusionMetric(ds, bad, performance="mae", rating_column="rating")


def test_predicted_ratings_equal_to_the_annotators_own_warn():
    ds, _ = _small()
    same = ds.with_predictions(ds.labels.ravel())  # keeps the annotators' ratings in annotation_info
    with pytest.warns(UserWarning, match=r"the predicted ratings are probably the annotators' own"):
        m = OpinionExclusionMetric(ds, same, performance="mae", rating_column="rating")
    assert m.performance() == 0.0


def test_numeric_strings_are_ratings():
    # LeWiDi keeps raw labels as published strings ("4")
    ds, pred = _small()
    ds2 = ds.copy()
    ds2.annotation_info["rating"] = ds2.annotation_info["rating"].astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = OpinionExclusionMetric(ds2, pred, performance="mae", rating_column="rating", bins=2,
                                   warn_group_size=0)
    assert m.group_performance()["performance"].tolist() == [0.25, 3.0]
    assert ds.annotation_info["rating"].dtype != object  # the copy did not change the original


@pytest.mark.parametrize("kw, exc, match", [
    ({"positive_from": True}, TypeError, r"positive_from must be a number .*got True"),
    ({"positive_from": "3"}, TypeError, r"positive_from must be a number .*got '3'"),
    ({"positive_from": float("nan")}, ValueError, r"positive_from must be a finite number, got nan"),
    ({"positive_from": 3, "pos_label": 2}, ValueError, r"pos_label must be 1 or 0, got 2"),
])
def test_positive_from_checked(kw, exc, match):
    with pytest.raises(exc, match=match):
        opinion_exclusion([1, 4], [2, 4], item_ids=[1, 1], annotator_ids=["a", "b"], performance="mae", **kw)


def test_functional_ratings_checked():
    with pytest.raises(ValueError, match=r"y_pred must hold one rating per annotation \(2\), got 3"):
        opinion_exclusion([1, 4], [2, 4, 5], item_ids=[1, 1], annotator_ids=["a", "b"], positive_from=3)
    with pytest.raises(ValueError, match=r"y_true must hold numeric ratings: 1 value\(s\)"):
        opinion_exclusion([1, "high"], [2, 4], item_ids=[1, 1], annotator_ids=["a", "b"], positive_from=3)


# ------------------------------------------------------------------------------------ explainer, figure
def test_explainer_and_figure_follow_the_direction():
    import matplotlib

    matplotlib.use("Agg")
    from aif360_subjective.plotting import plot_group_performance

    ds, pred = _small()
    m = OpinionExclusionMetric(ds, pred, performance="mae", rating_column="rating", bins=2)
    ex = OpinionExclusionTextExplainer(m)
    assert ex.worst_group() == "Worst-served group (highest mae, lower is better): 0.50\u20131.00 (mae 3.0)"
    assert "lower is better" in ex.performance() and ex.performance().endswith(": 1.625")
    ax = plot_group_performance({"consensus": m})
    image = ax.images[0]
    assert image.cmap.name == "RdYlGn_r"  # green = low MAE = good
    assert image.norm.vmin == 0.0 and image.norm.vmax == 3.0  # MAE is in rating units, not in [0, 1]
    acc = OpinionExclusionMetric(ds, pred, bins=2)
    assert plot_group_performance({"m": acc}).images[0].cmap.name == "RdYlGn"
    with pytest.raises(ValueError, match=r"opposite directions"):
        plot_group_performance({"mae": m, "accuracy": acc})
    bars = plot_group_performance({"consensus": m}, kind="bars")
    assert bars.get_ylim()[1] == pytest.approx(3.0 * 1.05)
    assert "lower is better" in bars.get_ylabel()
    matplotlib.pyplot.close("all")


# ------------------------------------------------------------------------------------ real data
def _consensus_ratings(ds, column):
    """A single-label 'model': every annotation gets its item's mean rating, rounded (ties to even)."""
    r = pd.to_numeric(ds.annotation_info[column])
    return np.round(r.groupby(ds.item_ids).transform("mean").to_numpy())


@pytest.fixture(scope="module")
def popquorn(shared_data):
    from aif360_subjective.datasets import PopquornDataset

    ds = PopquornDataset(shared_data / "popquorn")
    pr = _consensus_ratings(ds, "rating")
    return ds, ds.with_predictions((pr >= 3).astype(int), info={"rating": pr}), 3, "rating"


@pytest.fixture(scope="module")
def csc(shared_data):
    from aif360_subjective.datasets import LeWiDiDataset

    ds = LeWiDiDataset(shared_data / "csc", positive_from=4)
    pr = _consensus_ratings(ds, "raw_label")
    return ds, ds.with_predictions((pr >= 4).astype(int), info={"raw_label": pr}), 4, "raw_label"


@pytest.mark.parametrize("name", ["popquorn", "csc"])
@pytest.mark.parametrize("performance", ORDINAL_PERFORMANCES)
@pytest.mark.data
def test_real_data_both_faces_and_per_annotator_values(request, name, performance):
    ds, pred, cut, column = request.getfixturevalue(name)
    m = OpinionExclusionMetric(ds, pred, performance=performance, rating_column=column, bins=5)
    f = opinion_exclusion(ds.annotation_info[column], pred.annotation_info[column], item_ids=ds.item_ids,
                          annotator_ids=ds.annotator_ids, positive_from=cut, pos_label=0, performance=performance,
                          bins=5)
    pd.testing.assert_frame_equal(m.group_performance(), f.group_table)
    assert m.unfairness() == f.unfairness and m.grouping_summary() == f.grouping_summary
    # per-annotator values against a plain pandas computation
    err = (pd.to_numeric(ds.annotation_info[column]) - pred.annotation_info[column]).abs()
    per_row = err if performance == "mae" else (err <= 1).astype(float)
    expected = per_row.groupby(ds.annotator_ids).mean()
    pd.testing.assert_series_equal(m.annotator_performance().sort_index(), expected.sort_index(),
                                   check_names=False, check_index_type=False)
    table = m.group_performance()
    assert table["n_annotations"].sum() == len(ds.item_ids)
    perf = table["performance"]
    assert m.worst_group() == (perf.idxmax() if performance == "mae" else perf.idxmin())


# ------------------------------------------------------------------------------------ histograms = rows
def test_histogram_formula_by_hand():
    # errors 0, 1, 2.5 seen 2, 1, 1 times: MAE (0 + 0 + 1 + 2.5) / 4 = 0.875, within one 3 / 4; an empty unit NaN
    from aif360_subjective.opinion.core import performance_from_histograms

    counts, cells = np.array([[2, 1, 1], [0, 0, 0]]), np.array([0.0, 1.0, 2.5])
    mae = performance_from_histograms(("mae",), counts, cells, "propagate")
    within = performance_from_histograms(("within_one",), counts, cells, "propagate")
    assert mae[0] == 0.875 and within[0] == 0.75 and np.isnan(mae[1]) and np.isnan(within[1])
    # any leading shape (the bootstrap's (n_boot, n_units, k))
    assert performance_from_histograms(("mae",), counts[None], cells, "propagate").shape == (1, 2)
    assert performance_from_histograms(("mae",), np.zeros((0, 0)), np.zeros(0), "propagate").shape == (0,)


def test_small_case_histograms_equal_rows_exactly(monkeypatch):
    # the module's hand case: histogram path (default) and row path (no histograms past MAX_ERROR_CELLS)
    import aif360_subjective.opinion.annotations as oa

    for performance in ORDINAL_PERFORMANCES:
        for aggregate in ("annotator", "pooled"):
            hist = _fn(*_small(), performance=performance, aggregate=aggregate, bins=2)
            assert hist.unit_counts is not None
            with monkeypatch.context() as mp:
                mp.setattr(oa, "MAX_ERROR_CELLS", 0)
                rows = _fn(*_small(), performance=performance, aggregate=aggregate, bins=2)
            assert rows.unit_counts is None
            pd.testing.assert_frame_equal(hist.group_table, rows.group_table, check_exact=True)
            pd.testing.assert_series_equal(hist.annotator_performance, rows.annotator_performance, check_exact=True)


@pytest.mark.parametrize("name", ["popquorn", "csc"])
@pytest.mark.parametrize("aggregate", ["annotator", "pooled"])
@pytest.mark.parametrize("performance", ORDINAL_PERFORMANCES)
@pytest.mark.data
def test_real_data_histograms_equal_rows(request, monkeypatch, name, aggregate, performance):
    import aif360_subjective.opinion.annotations as oa

    ds, pred, cut, column = request.getfixturevalue(name)
    kw = {"item_ids": ds.item_ids, "annotator_ids": ds.annotator_ids, "positive_from": cut, "pos_label": 0,
          "performance": performance, "aggregate": aggregate, "bins": 5, "warn_group_size": 0}
    args = (ds.annotation_info[column], pred.annotation_info[column])
    hist = opinion_exclusion(*args, **kw)
    assert hist.unit_counts is not None and hist.unit_cells is not None
    monkeypatch.setattr(oa, "MAX_ERROR_CELLS", 0)
    rows = opinion_exclusion(*args, **kw)
    assert rows.unit_counts is None
    pd.testing.assert_frame_equal(hist.group_table, rows.group_table, check_exact=False, rtol=1e-12, atol=1e-12)
    pd.testing.assert_frame_equal(hist.unit_performance, rows.unit_performance, check_exact=False, rtol=1e-12,
                                  atol=1e-12)
    pd.testing.assert_series_equal(hist.annotator_performance, rows.annotator_performance, check_exact=False,
                                   rtol=1e-12, atol=1e-12)
    assert abs(hist.unfairness - rows.unfairness) <= 1e-12
