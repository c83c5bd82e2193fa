"""The opinion-exclusion metrics on Dask equal the pandas path exactly, on both schedulers."""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import write_synthetic_parquet
from aif360_subjective.sklearn import metrics as M

# Every supported option (a list: one Dask pass each, on both schedulers).
OPTIONS = [
    {},
    {"tie": "drop", "bins": "quantile:4", "performance": ["f1", "precision"], "nan_policy": "omit"},
    {"tie": "unfavorable", "bins": [0, 0.05, 0.1, 0.2, 0.4], "min_group_size": 5, "small_groups": "drop"},
    {"bins": 8, "min_group_size": 6, "performance": "balanced_accuracy", "aggregate": "pooled"},
    {"pos_label": 0, "performance": ["true_positive_rate", "true_negative_rate", "accuracy"]},
    {"performance": ["false_positive_rate", "false_negative_rate"], "bins": 3},
    {"grouping": "demographic", "attributes": "age_group"},
    {"grouping": "demographic", "attributes": ["age_group", "kind"], "min_group_size": 4, "aggregate": "pooled"},
    {"grouping": "kind_series", "performance": "f1", "min_group_size": 10},
    {"grouping": "ambiguity"},
    {"grouping": "ambiguity", "ambiguity": "entropy", "bins": 4, "min_group_size": 100, "aggregate": "annotator",
     "performance": ["f1", "accuracy"]},
    {"grouping": "ambiguity", "bins": [0.1, 0.2, 0.3, 0.4, 0.5], "pos_label": 0},
    {"grouping": "popularity", "bins": [0.3, 0.5, 0.7, 0.9], "min_group_size": 800, "small_groups": "drop",
     "tie": "drop"},
]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = write_synthetic_parquet(tmp_path_factory.mktemp("ann"), 900, 60, 5, items_per_file=300, random_state=3)
    pdf = pd.read_parquet(root / "annotations")
    annotators = pd.read_parquet(root / "annotators.parquet")
    csv = tmp_path_factory.mktemp("csv")
    for k in range(3):
        pdf.iloc[k * len(pdf) // 3:(k + 1) * len(pdf) // 3].to_csv(csv / f"part-{k}.csv", index=False)
    return root, pdf, annotators, csv


def _args(frame):
    return (frame["label"], frame["prediction"]), {"item_ids": frame["item"], "annotator_ids": frame["annotator"]}


def _options(opts, annotators):
    opts = dict(opts)
    if opts.get("grouping") == "demographic":
        opts["annotators"] = annotators
    if opts.get("grouping") == "kind_series":
        opts["grouping"] = annotators["kind"]
    return opts


def assert_same(r0, r1):
    pd.testing.assert_series_equal(r0.disagreement_rates, r1.disagreement_rates, check_exact=True)
    pd.testing.assert_series_equal(r0.annotator_performance, r1.annotator_performance, check_exact=True)
    pd.testing.assert_frame_equal(r0.group_table, r1.group_table, check_exact=True)
    pd.testing.assert_frame_equal(r0.unit_performance, r1.unit_performance, check_exact=True)
    np.testing.assert_array_equal([r0.unfairness, r0.performance], [r1.unfairness, r1.performance])
    assert r0.grouping_summary == r1.grouping_summary
    assert r0.performance_name == r1.performance_name
    np.testing.assert_array_equal(r0.unit_counts, r1.unit_counts)
    assert (r0.unfairness_ci, r0.performance_ci) == (r1.unfairness_ci, r1.performance_ci)


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_equal_to_pandas(data, scheduler, opts):
    root, pdf, annotators, _ = data
    ddf = dd.read_parquet(root / "annotations")
    opts = _options(opts, annotators)
    a, kw = _args(pdf)
    expected = M.opinion_exclusion(*a, **kw, **opts)
    a, kw = _args(ddf)
    got = M.opinion_exclusion(*a, **kw, **opts)
    assert_same(expected, got)
    assert got.extras["shuffled_by_item"] is False  # one file = whole items: no shuffle
    assert got.extras["n_annotations"] == len(pdf)


def test_helpers_equal_to_pandas(data, scheduler):
    root, pdf, _, _ = data
    ddf = dd.read_parquet(root / "annotations")
    (pt, pp), pkw = _args(pdf)
    (dt, dp), dkw = _args(ddf)
    pd.testing.assert_series_equal(M.disagreement_rates(pt, **pkw, tie="drop"),
                                   M.disagreement_rates(dt, **dkw, tie="drop"), check_exact=True)
    pd.testing.assert_series_equal(M.annotator_performance(pt, pp, **pkw, performance="f1"),
                                   M.annotator_performance(dt, dp, **dkw, performance="f1"), check_exact=True)
    pd.testing.assert_frame_equal(M.opinion_group_performance(pt, pp, **pkw, bins=3),
                                  M.opinion_group_performance(dt, dp, **dkw, bins=3), check_exact=True)
    assert M.opinion_unfairness(pt, pp, **pkw) == M.opinion_unfairness(dt, dp, **dkw)
    assert M.opinion_performance(pt, pp, **pkw) == M.opinion_performance(dt, dp, **dkw)
    pd.testing.assert_series_equal(M.opinion_individual_figures(pt, pp, **pkw),
                                   M.opinion_individual_figures(dt, dp, **dkw))


def test_csv_blocks_cutting_items_are_shuffled(data, scheduler):
    """CSV blocks cut items in two: detected from the partitions' id ranges, shuffled once, same result."""
    _, pdf, _, csv = data
    ddf = dd.read_csv(str(csv / "*.csv"), blocksize=4_000)
    assert ddf.npartitions > 3
    a, kw = _args(ddf)
    got = M.opinion_exclusion(*a, **kw, tie="drop")
    assert got.extras["shuffled_by_item"] is True
    a, kw = _args(pdf)
    assert_same(M.opinion_exclusion(*a, **kw, tie="drop"), got)


def test_string_ids_in_any_order(scheduler):
    """Unsorted string ids spread over partitions (shuffled), one annotator only on ties."""
    pdf = pd.DataFrame({
        "item": ["i3", "i3", "i1", "i1", "i2", "i2", "i2", "i4", "i4"],
        "annotator": ["b", "a", "a", "c", "a", "b", "c", "d", "b"],
        "label": [1, 0, 1, 1, 0, 0, 1, 1, 0],
        "prediction": [1, 1, 1, 0, 0, 1, 1, 0, 0],
    })
    ddf = dd.from_pandas(pdf, npartitions=3, sort=False)
    for opts in ({"tie": "drop", "bins": 2}, {"tie": "favorable", "bins": [0, 0.5, 1], "aggregate": "pooled"}):
        a, kw = _args(pdf)
        expected = M.opinion_exclusion(*a, **kw, **opts)
        a, kw = _args(ddf)
        assert_same(expected, M.opinion_exclusion(*a, **kw, **opts))
    # hand-computed, tie="drop": i3 and i4 are tied (dropped), i1 votes 1, i2 votes 0; c disagrees on i2;
    # d only labelled i4, so its ADR is undefined
    adr = M.disagreement_rates(ddf["label"], item_ids=ddf["item"], annotator_ids=ddf["annotator"], tie="drop")
    assert adr.to_dict() == pytest.approx({"a": 0.0, "b": 0.0, "c": 0.5, "d": np.nan}, nan_ok=True)


def _exploding_frame():
    """A Dask frame whose computation fails: an error raised before computing cannot come from it."""
    pdf = pd.DataFrame({"item": [0, 0], "annotator": ["a", "b"], "label": [1, 0], "prediction": [1, 1]})

    def boom(df):
        raise AssertionError("computed")

    return dd.from_pandas(pdf, npartitions=1).map_partitions(boom, meta=pdf)


@pytest.mark.parametrize("opts,match", [
    ({"grouping": "discovered", "n_clusters": 3},
     "grouping='discovered': grouping='discovered' is not supported on Dask"),
    ({"grouping": "ambiguity", "ambiguity": "uqs"}, "ambiguity='uqs' is not supported on Dask"),
    ({"grouping": "ambiguity", "bins": "quantile:4"},
     "bins='quantile:4' with grouping='ambiguity': bins='quantile:N' for 'ambiguity'/'popularity' is not supported"),
    ({"grouping": "popularity", "bins": "quantile:2"}, "bins='quantile:2' with grouping='popularity'"),
    ({"performance": lambda t, p: 0.5}, "performance='<lambda>': a callable performance is not supported on Dask"),
    ({"performance": ["accuracy", np.mean]}, "a callable performance is not supported on Dask"),
    ({"positive_from": 3, "performance": "mae", "grouping": "ambiguity", "ambiguity": "uqs"},
     "ambiguity='uqs' is not supported on Dask"),
    ({"positive_from": 3, "pos_label": "yes"}, "pos_label must be 1 or 0, got 'yes'"),
    ({"positive_from": float("nan")}, "positive_from must be a finite number, got nan"),
    ({"performance": "mae"}, "performance 'mae' compares ratings, but none were given"),
    ({"adr_reference": "median"}, "adr_reference='median' measures disagreement with the item's median rating"),
    ({"item_ids": None}, "item_ids=None: with Dask inputs"),
    ({"annotator_ids": "annotator"}, "annotator_ids='annotator': with Dask inputs"),
    ({"tie": "coin"}, r"tie must be one of \['favorable', 'unfavorable', 'drop'\], got 'coin'"),
    ({"bins": 0}, "bins must be a positive number of bins, got 0"),
    ({"min_group_size": 0}, "min_group_size must be >= 1, got 0"),
    ({"grouping": "demographic"}, "needs an annotator table"),
    ({"ci": 1.5}, "ci must be a confidence level strictly between 0 and 1"),
    ({"ci": 0.9, "n_boot": 10}, "n_boot must be >= 100, got 10"),
    ({"ci": 0.9, "bootstrap_levels": "items"}, "bootstrap_levels must be one of"),
    ({"warn_group_size": -1}, "warn_group_size must be >= 0, got -1"),
])
def test_unsupported_or_invalid_options_fail_before_computing(opts, match):
    ddf = _exploding_frame()
    kw = {"item_ids": ddf["item"], "annotator_ids": ddf["annotator"], **opts}
    with pytest.raises(ValueError, match=match):
        M.opinion_exclusion(ddf["label"], ddf["prediction"], **kw)


def test_option_unknown_to_the_dask_path(monkeypatch):
    """An option of the core the Dask path does not implement is accepted only at its default value."""
    from aif360_subjective.opinion import _dask as dask_opinion

    monkeypatch.setattr(dask_opinion, "HANDLED_FIELDS", dask_opinion.HANDLED_FIELDS - {"warn_group_size"})
    ddf = _exploding_frame()
    kw = {"item_ids": ddf["item"], "annotator_ids": ddf["annotator"]}
    with pytest.raises(ValueError, match="option warn_group_size=3 is not supported on Dask"):
        M.opinion_exclusion(ddf["label"], ddf["prediction"], warn_group_size=3, **kw)
    with pytest.raises(AssertionError, match="computed"):  # at its default: validated, then computed
        M.opinion_exclusion(ddf["label"], ddf["prediction"], **kw)


def test_invalid_option_same_message_as_pandas():
    pdf = pd.DataFrame({"item": [0, 0], "annotator": ["a", "b"], "label": [1, 0], "prediction": [1, 1]})
    ddf = _exploding_frame()
    for bad in ({"small_groups": "keep"}, {"performance": "auc"}, {"aggregate": "sum"}):
        msgs = []
        for frame in (pdf, ddf):
            with pytest.raises(ValueError) as err:
                M.opinion_exclusion(frame["label"], frame["prediction"], item_ids=frame["item"],
                                    annotator_ids=frame["annotator"], **bad)
            msgs.append(str(err.value))
        assert msgs[0] == msgs[1]


def test_series_sharing_no_annotator_same_message_as_pandas():
    """The one option check needing the data's annotator ids runs after the counting pass, same message."""
    pdf = pd.DataFrame({"item": [0, 0], "annotator": ["a", "b"], "label": [1, 0], "prediction": [1, 1]})
    ddf = dd.from_pandas(pdf, npartitions=1)
    groups = pd.Series(["x", "y"], index=["p", "q"])
    msgs = []
    for frame in (pdf, ddf):
        with pytest.raises(ValueError, match="grouping Series shares no annotator id") as err:
            M.opinion_exclusion(frame["label"], frame["prediction"], item_ids=frame["item"],
                                annotator_ids=frame["annotator"], grouping=groups)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


def test_pandas_ids_with_dask_labels_is_a_type_error():
    ddf = _exploding_frame()
    with pytest.raises(TypeError, match="item_ids must be a Dask Series when one of y_true, y_pred, item_ids, "
                                        "annotator_ids is, got list"):
        M.opinion_exclusion(ddf["label"], ddf["prediction"], item_ids=[0, 0], annotator_ids=ddf["annotator"])


@pytest.mark.parametrize("opts", [
    {"ci": 0.9, "n_boot": 200, "random_state": 7},
    {"ci": 0.95, "n_boot": 150, "random_state": 1, "bootstrap_levels": "annotators", "performance": "f1",
     "grouping": "ambiguity", "bins": 3},
    {"ci": 0.8, "n_boot": 120, "random_state": 2, "grouping": "demographic", "attributes": "age_group",
     "aggregate": "pooled", "performance": ["precision", "accuracy"], "nan_policy": "omit"},
], ids=["adr", "ambiguity-annotators", "demographic-pooled"])
@pytest.mark.slow
def test_intervals_equal_to_pandas(data, scheduler, opts):
    """Bootstrap intervals redraw the result's unit counts: the same numbers as the pandas path, same seed."""
    root, pdf, annotators, _ = data
    opts = _options(opts, annotators)
    a, kw = _args(pdf)
    expected = M.opinion_exclusion(*a, **kw, **opts, warn_group_size=0)
    a, kw = _args(dd.read_parquet(root / "annotations"))
    got = M.opinion_exclusion(*a, **kw, **opts, warn_group_size=0)
    assert got.unfairness_ci is not None and got.unfairness_ci.low <= got.unfairness <= got.unfairness_ci.high
    assert_same(expected, got)
    assert list(got.group_table.columns[-2:]) == ["ci_low", "ci_high"]


def test_thin_groups_warn_as_on_pandas(data, scheduler):
    root, pdf, _, _ = data
    a, kw = _args(pdf)
    with pytest.warns(UserWarning, match="groups? holds? fewer than 30 annotators") as expected:
        M.opinion_exclusion(*a, **kw, bins=4, warn_group_size=30)
    a, kw = _args(dd.read_parquet(root / "annotations"))
    with pytest.warns(UserWarning, match="groups? holds? fewer than 30 annotators") as got:
        M.opinion_exclusion(*a, **kw, bins=4, warn_group_size=30)
    def thin(record):  # Dask's own deprecation warnings aside
        return [str(w.message) for w in record if "fewer than 30 annotators" in str(w.message)]

    assert thin(expected) == thin(got) and len(thin(got)) == 1


@pytest.mark.parametrize("change,match", [
    ({"label": [1, 2, 0, 1]}, "labels must be binary: y_true and y_pred hold 3 distinct values"),
    ({"label": [np.nan, 1, 0, 1]}, r"missing values in \{'y_true': 1\}"),
    ({"annotator": ["a", None, "a", "b"]}, r"missing values in \{'annotator_ids': 1\}"),
    ({"label": [5, 7, 5, 7], "prediction": [5, 5, 7, 7]}, "pos_label=1 is not one of the labels"),
])
def test_bad_data(scheduler, change, match):
    pdf = pd.DataFrame({"item": [0, 0, 1, 1], "annotator": ["a", "b", "a", "b"], "label": [1, 0, 0, 1],
                        "prediction": [1, 1, 0, 0]})
    pdf = pdf.assign(**change)
    ddf = dd.from_pandas(pdf, npartitions=2)
    with pytest.raises(ValueError, match=match):
        M.opinion_exclusion(ddf["label"], ddf["prediction"], item_ids=ddf["item"], annotator_ids=ddf["annotator"])


@pytest.mark.slow
def test_no_dask_import_for_pandas_inputs():
    """The pandas path never imports Dask (checked in a fresh interpreter)."""
    import subprocess
    import sys

    code = ("import sys; from aif360_subjective.sklearn.metrics import opinion_exclusion; "
            "from aif360_subjective.quality import crowdtruth_scores; import pandas as pd; "
            "opinion_exclusion([1, 0], [1, 1], item_ids=[0, 0], annotator_ids=['a', 'b']); "
            "crowdtruth_scores(pd.DataFrame({'unit': [0, 0], 'worker': [1, 2], 'label': ['x', 'y']})); "
            "print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------------------ ratings
RATING_OPTIONS = [
    {"performance": "mae"},
    {"performance": "within_one", "aggregate": "pooled", "bins": 3},
    {"performance": "mae", "adr_reference": "median", "pos_label": 0},
    {"performance": "within_one", "grouping": "demographic", "attributes": "age_group"},
    {"performance": "mae", "grouping": "demographic", "attributes": ["age_group", "kind"], "aggregate": "pooled",
     "min_group_size": 4},
    {"performance": ["within_one"], "grouping": "kind_series", "adr_reference": "median", "aggregate": "pooled"},
    {"performance": "accuracy", "pos_label": 0, "adr_reference": "median"},
    {"performance": "f1", "grouping": "ambiguity", "bins": 3},
    {"performance": "mae", "grouping": "ambiguity", "bins": 4, "min_group_size": 150, "aggregate": "pooled"},
    {"performance": "within_one", "grouping": "ambiguity", "ambiguity": "entropy", "bins": [0.5, 0.8, 1.0],
     "small_groups": "drop", "min_group_size": 100, "adr_reference": "median"},
    {"performance": "mae", "grouping": "popularity", "bins": [0.3, 0.5, 0.7, 0.9], "pos_label": 0},
    {"performance": "within_one", "grouping": "popularity", "bins": 3, "ci": 0.9, "n_boot": 100,
     "random_state": 6, "aggregate": "pooled"},
    {"performance": "mae", "grouping": "ambiguity", "bins": [0.9, 1.0], "ambiguity": "entropy",
     "small_groups": "drop", "min_group_size": 10**6},
    {"performance": "mae", "ci": 0.9, "n_boot": 150, "random_state": 4},
    {"performance": "within_one", "grouping": "demographic", "attributes": "age_group", "aggregate": "pooled",
     "ci": 0.8, "n_boot": 120, "random_state": 5, "bootstrap_levels": "annotators"},
]


@pytest.fixture(scope="module")
def rated(data):
    """The synthetic annotations with 1-5 ratings and rounded predicted ratings, cut across partitions."""
    _, pdf, annotators, _ = data
    rng = np.random.default_rng(11)
    frame = pdf[["item", "annotator"]].copy()
    frame["rating"] = rng.integers(1, 6, len(frame)).astype(np.float64)
    frame["predicted"] = np.clip(np.round(frame["rating"] + rng.normal(0.3, 1.3, len(frame))), 1, 5)
    return frame, annotators


def _rated_args(frame):
    return (frame["rating"], frame["predicted"]), {"item_ids": frame["item"], "annotator_ids": frame["annotator"],
                                                   "positive_from": 3, "warn_group_size": 0}


@pytest.mark.parametrize("opts", RATING_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.slow
def test_ratings_equal_to_pandas(rated, scheduler, opts):
    frame, annotators = rated
    opts = _options(opts, annotators)
    a, kw = _rated_args(frame)
    expected = M.opinion_exclusion(*a, **kw, **opts)
    a, kw = _rated_args(dd.from_pandas(frame, npartitions=4, sort=False))
    got = M.opinion_exclusion(*a, **kw, **opts)
    assert_same(expected, got)
    np.testing.assert_array_equal(expected.unit_cells, got.unit_cells)
    if "ci" in opts:
        assert got.unfairness_ci is not None and got.performance_ci is not None
    if opts["performance"] in ("mae", ["within_one"], "within_one"):
        assert got.unit_cells is not None and got.unit_counts.shape[1] == len(got.unit_cells)


def test_ratings_unit_cells_are_those_of_the_grouped_annotations(rated, scheduler):
    # annotators without a group: the units' cells are the distinct errors of the grouped rows only (as on pandas);
    # rows in random order: items cut across partitions, shuffled by item before the pass is repeated
    frame, annotators = rated
    frame = frame.sample(frac=1.0, random_state=1)
    lonely = frame["annotator"] == frame["annotator"].iloc[0]
    frame.loc[lonely, "predicted"] = frame.loc[lonely, "rating"] + 0.25  # an error only this annotator makes
    table = annotators.copy()
    table.loc[frame["annotator"].iloc[0], "age_group"] = None
    opts = {"performance": "mae", "grouping": "demographic", "attributes": "age_group", "annotators": table}
    a, kw = _rated_args(frame)
    expected = M.opinion_exclusion(*a, **kw, **opts)
    a, kw = _rated_args(dd.from_pandas(frame, npartitions=3, sort=False))
    got = M.opinion_exclusion(*a, **kw, **opts)
    assert 0.25 not in got.unit_cells
    assert got.annotator_performance[frame["annotator"].iloc[0]] == 0.25  # its own MAE, from all its annotations
    assert got.extras["shuffled_by_item"] is True
    assert_same(expected, got)


def test_ratings_with_too_many_distinct_errors_raise_on_dask(rated):
    frame, _ = rated
    frame = frame.assign(predicted=frame["rating"] + np.linspace(0.0, 1.0, len(frame)))  # ~all errors distinct
    a, kw = _rated_args(frame)
    on_pandas = M.opinion_exclusion(*a, **kw, performance="mae")  # pandas: from the rows
    assert on_pandas.unit_counts is None and np.isfinite(on_pandas.performance)
    a, kw = _rated_args(dd.from_pandas(frame, npartitions=3, sort=False))
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match=(
            r"the absolute errors \|rating - predicted\| take more than 64 distinct values: on Dask the measures "
            r"on ratings \('mae', 'within_one'\) are computed from histograms")):
        M.opinion_exclusion(*a, **kw, performance="mae")
    with dask.config.set(scheduler="sync"):  # binary measures on the binary view need no histogram
        got = M.opinion_exclusion(*a, **kw, performance="accuracy")
    a, kw = _rated_args(frame)
    assert_same(M.opinion_exclusion(*a, **kw, performance="accuracy"), got)


def test_ratings_that_are_not_numbers(rated):
    frame, _ = rated
    frame = frame.assign(rating=frame["rating"].astype(str))
    frame.loc[frame.index[:3], "rating"] = "high"
    a, kw = _rated_args(dd.from_pandas(frame, npartitions=2, sort=False))
    with dask.config.set(scheduler="sync"), pytest.raises(
            ValueError, match=r"y_true and y_pred must hold numeric ratings: \{'y_true': 3\} value\(s\)"):
        M.opinion_exclusion(*a, **kw, performance="mae")
    # numeric strings are read as numbers, as on pandas
    frame = frame.iloc[3:]
    a, kw = _rated_args(frame)
    expected = M.opinion_exclusion(*a, **kw, performance="within_one")
    a, kw = _rated_args(dd.from_pandas(frame, npartitions=2, sort=False))
    with dask.config.set(scheduler="sync"):
        assert_same(expected, M.opinion_exclusion(*a, **kw, performance="within_one"))


@pytest.mark.parametrize("opts", [
    {"grouping": "demographic", "attributes": "age_group"},
    {"grouping": "ambiguity", "bins": 3, "performance": "f1"},
    {"grouping": "kind_series", "aggregate": "pooled"},
], ids=["demographic", "ambiguity", "series-pooled"])
def test_equal_service_test_and_interval_equal_to_pandas(data, scheduler, opts):
    """The test permutes the result's units and the interval reads its group table: the same numbers, same seed."""
    root, pdf, annotators, _ = data
    opts = _options(opts, annotators)
    kw_test = dict(ci=0.95, n_boot=120, random_state=7, n_permutations=199, warn_group_size=0)
    a, kw = _args(pdf)
    expected = M.opinion_exclusion(*a, **kw, **opts, **kw_test)
    a, kw = _args(dd.read_parquet(root / "annotations"))
    got = M.opinion_exclusion(*a, **kw, **opts, **kw_test)
    assert_same(expected, got)
    assert got.exclusion_test is not None and got.exclusion_test == expected.exclusion_test
    assert got.unfairness_ci.debiased == expected.unfairness_ci.debiased
    assert got.verdict() == expected.verdict()


ADR_TESTS = [
    {},
    {"adr_fit": "cross"},
    {"adr_fit": "cross", "aggregate": "pooled", "performance": "f1", "test_statistic": "std"},
    {"bins": 2, "tie": "drop", "aggregate": "pooled"},
]


@pytest.mark.parametrize("opts", ADR_TESTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_adr_test_and_cross_fit_equal_to_pandas(data, scheduler, opts):
    """The cross-fitted test of ADR bins (and the cross-fitted headline) from per (annotator, half) counts: the
    same groups, statistic and p-value as from the rows, same seed; the rows in random order are cut across
    partitions (a shuffle by item, then the halves' pass on the shuffled frame)."""
    _, pdf, _, _ = data
    frame = pdf.sample(frac=1.0, random_state=2)
    kw_test = dict(ci=0.95, n_boot=100, random_state=7, n_permutations=199, warn_group_size=0)
    a, kw = _args(frame)
    expected = M.opinion_exclusion(*a, **kw, **opts, **kw_test)
    a, kw = _args(dd.from_pandas(frame, npartitions=3, sort=False))
    got = M.opinion_exclusion(*a, **kw, **opts, **kw_test)
    assert_same(expected, got)
    assert got.exclusion_test is not None and np.isfinite(got.exclusion_test.p_value)
    assert got.exclusion_test == expected.exclusion_test
    assert got.verdict() == expected.verdict()


@pytest.mark.parametrize("opts", [
    {"performance": "mae", "adr_fit": "cross"},
    {"performance": "within_one", "aggregate": "pooled", "adr_reference": "median"},
], ids=["mae-cross", "within_one-pooled-median"])
def test_adr_test_on_ratings_equal_to_pandas(rated, scheduler, opts):
    frame, _ = rated
    kw_test = dict(test=True, random_state=3, n_permutations=199)
    a, kw = _rated_args(frame)
    expected = M.opinion_exclusion(*a, **kw, **opts, **kw_test)
    a, kw = _rated_args(dd.from_pandas(frame, npartitions=4, sort=False))
    got = M.opinion_exclusion(*a, **kw, **opts, **kw_test)
    assert_same(expected, got)
    assert got.exclusion_test == expected.exclusion_test and np.isfinite(got.exclusion_test.p_value)


def test_adr_test_with_a_callable_measure_is_refused_on_dask(data, scheduler):
    root, _, _, _ = data
    a, kw = _args(dd.read_parquet(root / "annotations"))
    with pytest.raises(ValueError, match="callable performance"):
        M.opinion_exclusion(*a, **kw, performance=lambda t, p: float(np.mean(t == p)), test=True)


def test_crossed_bootstrap_is_refused_on_dask(data, scheduler):
    root, _, annotators, _ = data
    a, kw = _args(dd.read_parquet(root / "annotations"))
    with pytest.raises(ValueError, match="bootstrap_levels='crossed' resamples items and needs the annotation rows"):
        M.opinion_exclusion(*a, **kw, grouping="demographic", annotators=annotators, attributes="age_group",
                            ci=0.95, n_boot=100, bootstrap_levels="crossed", warn_group_size=0)


# ---------------------------------------------------------------------------------------------
# column types that differ between partitions; Series whose divisions are unknown
# ---------------------------------------------------------------------------------------------
def _typed_partitions(pdf):
    """Two partitions whose id columns have different types: int items and annotators in the first, strings in
    the second (as CSV blocks or files typed one by one); annotator 3 appears as 3 in one and "3" in the other."""
    items = np.sort(pdf["item"].unique())
    a = pdf[pdf["item"].isin(items[:150])].copy()
    b = pdf[pdf["item"].isin(items[150:300])].copy()
    b["item"] = "i" + b["item"].astype(str)
    b["annotator"] = b["annotator"].astype(str)
    whole = pd.concat([a.astype({"item": object, "annotator": object}), b], ignore_index=True)
    ddf = dd.from_delayed([dask.delayed(a.reset_index(drop=True)),
                           dask.delayed(b.reset_index(drop=True).set_axis(range(len(a), len(a) + len(b))))],
                          meta=a.iloc[:0], verify_meta=False)
    return ddf, whole


@pytest.mark.parametrize("grouping", ["adr", "ambiguity"])
def test_id_types_differing_between_partitions(data, scheduler, grouping):
    """Ids typed differently per partition are the ids of the concatenated (object) column, as on pandas: 3 and
    "3" are two annotators on both paths."""
    _, pdf, _, _ = data
    ddf, whole = _typed_partitions(pdf)
    assert {type(v) for v in whole["annotator"]} == {int, str}
    a, kw = _args(ddf)
    r_dask = M.opinion_exclusion(*a, **kw, grouping=grouping, bins=3)
    a, kw = _args(whole)
    r_pd = M.opinion_exclusion(*a, **kw, grouping=grouping, bins=3)
    assert_same(r_pd, r_dask)
    assert len(r_dask.disagreement_rates) == whole["annotator"].nunique()


def test_unknown_divisions(data, scheduler):
    """Series of two collections whose divisions are unknown: paired partition by partition when their rows match
    (the same file read twice), refused with the row-for-row error when they do not (another row order)."""
    _, pdf, _, _ = data
    one = dd.from_pandas(pdf, npartitions=3, sort=False).clear_divisions()
    same = dd.from_pandas(pdf, npartitions=3, sort=False).clear_divisions()
    other = dd.from_pandas(pdf.sample(frac=1.0, random_state=0), npartitions=3, sort=False).clear_divisions()
    assert not one.known_divisions
    r_dask = M.opinion_exclusion(one["label"], same["prediction"], item_ids=one["item"],
                                 annotator_ids=same["annotator"])
    a, kw = _args(pdf)
    assert_same(M.opinion_exclusion(*a, **kw), r_dask)
    with pytest.raises(ValueError, match=r"y_pred and y_true do not match row for row in a partition \(\d+ vs \d+ "
                                         r"rows, different index\)"):
        M.opinion_exclusion(one["label"], other["prediction"], item_ids=one["item"], annotator_ids=one["annotator"])
