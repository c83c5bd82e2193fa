"""The opinion metrics, the test of equal service and the discovery of excluded groups on a Spark DataFrame:
pandas' results on the same annotations; the refusals.

Few and small (a local JVM; each pass a Spark job): a hand case, one synthetic table spread over partitions (the
shuffle by item and the executors' combination), a POPQUORN subset (ratings, the test, ``excluded_groups``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective._spark.partitions import SparkPartitions
from aif360_subjective.opinion import excluded_groups, opinion_exclusion

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]
_IDS = {"item_ids": "item", "annotator_ids": "annotator"}


def _same_result(rs, rp) -> None:
    """Spark's result is pandas': the figures, the tables, the test."""
    assert rs.unfairness == rp.unfairness and rs.performance == rp.performance
    pd.testing.assert_frame_equal(rs.group_table, rp.group_table, check_exact=True)
    pd.testing.assert_series_equal(rs.annotator_performance, rp.annotator_performance, check_exact=True)
    pd.testing.assert_series_equal(rs.disagreement_rates, rp.disagreement_rates, check_exact=True)
    if rp.exclusion_test is not None:
        assert rs.exclusion_test.p_value == rp.exclusion_test.p_value
        assert rs.exclusion_test.statistic == rp.exclusion_test.statistic


def test_hand_case(spark):
    # items 0 (labels 1, 0) and 1 (1, 1), every prediction 1: the majority votes are 1 (a tie goes to the favourable
    # label) and 1, so a disagrees with none (ADR 0) and b with one of two (ADR 0.5); two ADR bins hold a (accuracy
    # 2/2 = 1) and b (1/2): performance (1 + 0.5) / 2 = 0.75, unfairness std(1, 0.5) = 0.25
    pdf = pd.DataFrame({"label": [1, 0, 1, 1], "pred": [1, 1, 1, 1], "item": [0, 0, 1, 1],
                        "annotator": ["a", "b", "a", "b"]})
    r = opinion_exclusion("label", "pred", data=spark.createDataFrame(pdf), bins=2, **_IDS)
    assert (r.unfairness, r.performance) == (0.25, 0.75)
    assert r.extras["backend"] == "spark" and r.extras["n_annotations"] == 4 and r.extras["driver_bytes"] > 0
    pd.testing.assert_series_equal(r.disagreement_rates, pd.Series([0.0, 0.5], index=pd.Index(["a", "b"])),
                                   check_names=False, check_index_type=False)


@pytest.mark.slow
def test_items_spread_over_partitions_and_combined_on_the_executors(spark, monkeypatch):
    rng = np.random.default_rng(4)
    pdf = pd.DataFrame({"item": rng.integers(0, 120, 900), "annotator": rng.integers(0, 30, 900)})
    pdf = pdf.drop_duplicates(["item", "annotator"]).reset_index(drop=True)
    pdf["label"] = rng.integers(0, 2, len(pdf))
    pdf["pred"] = np.where(rng.random(len(pdf)) < 0.8, pdf["label"], 1 - pdf["label"])
    sdf = spark.createDataFrame(pdf).repartition(3)  # every item's rows spread over the three partitions
    monkeypatch.setattr(SparkPartitions, "DRIVER_SUMS", 1)  # floor(sqrt(3)) = 1 group combined on the executors
    kw = {"test": True, "n_permutations": 99, "random_state": 0, **_IDS}
    rs = opinion_exclusion("label", "pred", data=sdf, **kw)
    rp = opinion_exclusion("label", "pred", data=pdf, **kw)
    assert rs.extras["shuffled_by_item"]
    _same_result(rs, rp)


@pytest.fixture(scope="module")
def popquorn(shared_data):
    """A POPQUORN subset: the ratings of the first 120 items, a consensus 'model' (each item's mean rating,
    rounded), and the annotators' demographics."""
    from aif360_subjective.datasets import PopquornDataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ds = PopquornDataset(shared_data / "popquorn")
    rating = pd.to_numeric(ds.annotation_info["rating"]).to_numpy()
    frame = pd.DataFrame({"item": np.asarray(ds.item_ids), "annotator": np.asarray(ds.annotator_ids),
                          "rating": rating})
    frame = frame[frame["item"].isin(pd.unique(frame["item"])[:120])].reset_index(drop=True)
    frame["predicted"] = np.round(frame.groupby("item")["rating"].transform("mean"))
    return frame, ds.annotators


@pytest.mark.slow
@pytest.mark.data
def test_popquorn_ratings_the_test_and_excluded_groups(spark, popquorn):
    pdf, annotators = popquorn
    sdf = spark.createDataFrame(pdf).repartition(2, "annotator")  # items spread, annotators not
    kw = {"positive_from": 3, "pos_label": 0, "performance": "mae", "test": True, "n_permutations": 99,
          "random_state": 0, **_IDS}
    _same_result(opinion_exclusion("rating", "predicted", data=sdf, **kw),
                 opinion_exclusion("rating", "predicted", data=pdf, **kw))
    ekw = {"annotators": annotators, "attributes": ["gender", "age"], "max_conditions": 1, "min_annotators": 5,
           "n_permutations": 99, "random_state": 0, **_IDS}
    es = excluded_groups("rating", "predicted", data=sdf, performance="mae", **ekw)
    ep = excluded_groups("rating", "predicted", data=pdf, performance="mae", **ekw)
    assert len(ep.table) > 0
    pd.testing.assert_frame_equal(es.table, ep.table, check_exact=True)
    assert es.counts == ep.counts


def test_bad_columns_and_options_are_named(spark):
    pdf = pd.DataFrame({"label": [1, 0, 1, 1], "pred": [1, 1, 1, 1], "item": [0, 0, 1, 1],
                        "annotator": ["a", "b", "a", "b"]})
    sdf = spark.createDataFrame(pdf)
    with pytest.raises(ValueError, match=r"item_ids='items' is not a column of data \(its columns: \['label', "):
        opinion_exclusion("label", "pred", item_ids="items", annotator_ids="annotator", data=sdf)
    with pytest.raises(ValueError, match="y_true='truth' is not a column of data"):
        excluded_groups("truth", "pred", annotators=pd.DataFrame({"g": [0, 1]}, index=["a", "b"]), data=sdf, **_IDS)
    with pytest.raises(TypeError, match="with data=a Spark DataFrame, y_pred must name a column of it"):
        opinion_exclusion("label", pdf["pred"], data=sdf, **_IDS)
    with pytest.raises(TypeError, match="y_true is a Spark Column: pass the Spark DataFrame of the annotations as "
                                        "data="):
        opinion_exclusion(sdf["label"], sdf["pred"], **_IDS)
    with pytest.raises(ValueError, match="grouping='discovered' is not supported on Spark"):
        opinion_exclusion("label", "pred", data=sdf, grouping="discovered", **_IDS)
    with pytest.raises(ValueError, match=r"bins='quantile:2' with grouping='ambiguity'.* not supported on Spark"):
        opinion_exclusion("label", "pred", data=sdf, grouping="ambiguity", bins="quantile:2", **_IDS)
    with pytest.raises(ValueError, match="test_adjust='items' .* the Spark back end has only counts"):
        opinion_exclusion("label", "pred", data=sdf, test=True, test_adjust="items", **_IDS)
    with pytest.raises(ValueError, match="bootstrap_levels='crossed' .* the Spark back end does not"):
        opinion_exclusion("label", "pred", data=sdf, ci=0.9, bootstrap_levels="crossed", **_IDS)
    with pytest.raises(ValueError, match=r"2 duplicate \(item, annotator\) pair\(s\), e.g. item=0, annotator=.a.; "):
        opinion_exclusion("label", "pred", data=spark.createDataFrame(pdf.assign(annotator="a")), **_IDS)
    with pytest.raises(TypeError, match="data must be a pandas, Dask or Spark DataFrame"):
        opinion_exclusion("label", "pred", data=pdf.to_dict(), **_IDS)
