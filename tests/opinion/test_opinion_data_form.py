"""The ``data=`` form of opinion_exclusion and excluded_groups on pandas and Dask: the named columns give the result
of the Series themselves; bad names and tables are refused by name. (Spark: tests/spark/test_opinion_spark.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.opinion import excluded_groups, opinion_exclusion
from aif360_subjective.opinion.data_form import collected_columns, data_columns

_IDS = {"item_ids": "item", "annotator_ids": "annotator"}


def _table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"item": np.repeat(np.arange(40), 6), "annotator": rng.integers(0, 12, 240)})
    frame = frame.drop_duplicates(["item", "annotator"]).reset_index(drop=True)
    frame["label"] = rng.integers(0, 2, len(frame))
    frame["pred"] = np.where(rng.random(len(frame)) < 0.7, frame["label"], 1 - frame["label"])
    return frame


def test_hand_case_by_column_names():
    # the docstring's case: unfairness 0.25, performance 0.75 (ADR 0 and 0.5; accuracies 1 and 0.5)
    pdf = pd.DataFrame({"y": [1, 0, 1, 1], "p": [1, 1, 1, 1], "item": [0, 0, 1, 1], "annotator": ["a", "b", "a", "b"]})
    r = opinion_exclusion("y", "p", data=pdf, bins=2, **_IDS)
    assert (r.unfairness, r.performance) == (0.25, 0.75)


def test_pandas_and_dask_tables_equal_the_series():
    import dask
    import dask.dataframe as dd

    pdf = _table()
    kw = {"test": True, "n_permutations": 99, "random_state": 0, "warn_group_size": 0}
    series = opinion_exclusion(pdf["label"], pdf["pred"], item_ids=pdf["item"], annotator_ids=pdf["annotator"], **kw)
    by_name = opinion_exclusion("label", "pred", data=pdf, **_IDS, **kw)
    pd.testing.assert_frame_equal(by_name.group_table, series.group_table, check_exact=True)
    assert by_name.exclusion_test.p_value == series.exclusion_test.p_value
    ddf = dd.from_pandas(pdf, npartitions=2, sort=False)
    with dask.config.set(scheduler="sync"):
        on_dask = opinion_exclusion("label", "pred", data=ddf, **_IDS, **kw)
        cols = collected_columns(ddf, "label", "pred", "item", "annotator")
    assert on_dask.extras["backend"] == "dask"
    pd.testing.assert_frame_equal(on_dask.group_table, series.group_table, check_exact=True)
    assert on_dask.exclusion_test.p_value == series.exclusion_test.p_value
    pd.testing.assert_series_equal(cols[0], pdf["label"])  # excluded_groups' rows: the computed columns


def test_excluded_groups_by_column_names():
    pdf = _table(1)
    table = pd.DataFrame({"g": np.arange(12) % 2, "h": np.arange(12) % 3}, index=np.arange(12))
    kw = {"annotators": table, "max_conditions": 1, "min_annotators": 3, "n_permutations": 99, "random_state": 0}
    by_name = excluded_groups("label", "pred", data=pdf, **_IDS, **kw)
    series = excluded_groups(pdf["label"], pdf["pred"], item_ids=pdf["item"], annotator_ids=pdf["annotator"], **kw)
    pd.testing.assert_frame_equal(by_name.table, series.table, check_exact=True)


def test_bad_names_and_tables():
    pdf = _table()
    with pytest.raises(ValueError, match=r"annotator_ids='who' is not a column of data \(its columns: \['item', "):
        opinion_exclusion("label", "pred", item_ids="item", annotator_ids="who", data=pdf)
    with pytest.raises(TypeError, match="with data=DataFrame, y_true must name a column of it .a str., got Series"):
        opinion_exclusion(pdf["label"], "pred", data=pdf, **_IDS)
    with pytest.raises(TypeError, match="data must be a pandas, Dask or Spark DataFrame of the annotations, got dict"):
        excluded_groups("label", "pred", annotators=pd.DataFrame({"g": [0, 1]}), data={"label": [1]}, **_IDS)
    # without data the inputs are passed through untouched
    assert data_columns(None, 1, 2, 3, 4) == (1, 2, 3, 4)
