"""detect_subgroups on a Spark DataFrame: the pandas (keyed) and Dask reports on the same rows; the refusals.

Few tests, all slow (a local JVM; each pass a Spark job): one table, analysed once per module.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective import _spark
from aif360_subjective.datasets import make_planted_slice
from aif360_subjective.detectors import detect_subgroups

pytestmark = [
    pytest.mark.slow,
    # PySpark 4.3's own notices about pandas 3 (its conversions work on the columns used here)
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.fixture(scope="module")
def table(spark):
    b = make_planted_slice(2000, n_categorical=3, n_numeric=2, planted_share=0.1, effect=0.3, random_state=3)
    X = b.X.copy()
    X["num1"] = np.round(X["num1"] * 2)  # a numeric column with few values: coded by value
    frame = X.assign(t=np.asarray(b.y_true), p=np.asarray(b.y_pred))
    sdf = spark.createDataFrame(frame).repartition(3).sortWithinPartitions("num0").persist()
    pdf = sdf.toPandas()  # the rows in the DataFrame's order: the positions of the keyed permutations
    return list(X.columns), sdf, pdf


@pytest.fixture(scope="module")
def reports(table):
    features, sdf, pdf = table
    kw = {"discovery": "patterns", "random_state": 0, "n_permutations": 99, "thresholds": 10}
    rs = detect_subgroups(sdf, "t", "p", **kw)
    rp = detect_subgroups(pdf[features], pdf["t"], pdf["p"], permutation="keyed", **kw)
    return rs, rp


def test_same_report_as_pandas_keyed_and_as_dask(table, reports):
    import dask
    import dask.dataframe as dd

    features, _, pdf = table
    rs, rp = reports
    fs, fp = rs.candidates.family("pattern"), rp.candidates.family("pattern")
    assert fs.items.labels == fp.items.labels and fs.items.values == fp.items.values  # exact quantile edges
    assert any("≥" in lab or "<" in lab for lab in fs.items.labels)  # the one-sided threshold items
    assert fs.patterns == fp.patterns and fs.n_identical == fp.n_identical
    np.testing.assert_array_equal(fs.support, fp.support)
    ts, tp = rs.candidate_metrics.table, rp.candidate_metrics.table
    np.testing.assert_allclose(ts.to_numpy(float), tp.to_numpy(float), rtol=0, atol=1e-9, equal_nan=True)
    ms, mp = rs.significance.max_t(), rp.significance.max_t()
    np.testing.assert_array_equal(ms.p_adjusted, mp.p_adjusted)
    found = rs.findings()
    assert len(found) > 0
    pd.testing.assert_frame_equal(found, rp.findings())
    ddf = dd.from_pandas(pdf, npartitions=4, sort=False)
    with dask.config.set(scheduler="sync"):
        rd = detect_subgroups(ddf[features], ddf["t"], ddf["p"], discovery="patterns", random_state=0,
                              n_permutations=99, thresholds=10)
    np.testing.assert_array_equal(rd.significance.max_t().p_adjusted, ms.p_adjusted)
    pd.testing.assert_frame_equal(rd.findings(), found)


def test_members_are_a_spark_column_until_computed(table, reports):
    from pyspark.sql import Column

    _, sdf, _ = table
    rs, rp = reports
    ids = rs.candidates.family("pattern").ids[:40:7]
    for i in ids:
        col = rs.members("pattern", i)
        assert isinstance(col, Column)
        expected = rp.members("pattern", i)
        got = rs.members("pattern", i, compute=True)
        assert isinstance(got, pd.Series) and got.dtype == bool
        np.testing.assert_array_equal(got.to_numpy(), expected)
        assert sdf.filter(col).count() == int(expected.sum())


def test_spark_columns_of_x_name_the_labels(table, reports):
    _, sdf, _ = table
    rs, _ = reports
    again = detect_subgroups(sdf, sdf["t"], sdf["p"], discovery="patterns", random_state=0, n_permutations=99,
                             thresholds=10)
    np.testing.assert_array_equal(again.significance.max_t().p_adjusted, rs.significance.max_t().p_adjusted)


@pytest.mark.parametrize("kw, name", [
    ({"discovery": "asdf"}, "discovery"), ({"discovery": "both"}, "discovery"),
    ({"sample_weight": np.ones(3)}, "sample_weight"), ({"groups": np.zeros(3)}, "groups"),
    ({"task": "multiclass"}, "task"), ({"permutation": "classical"}, "permutation"),
])
def test_unsupported_options_are_named(table, kw, name):
    _, sdf, _ = table
    with pytest.raises(ValueError, match=f"{name}=.* is not available on Spark DataFrames"):
        detect_subgroups(sdf, "t", "p", **{"discovery": "patterns", **kw})


def test_bad_columns_and_labels(spark, table):
    _, sdf, pdf = table
    with pytest.raises(ValueError, match="y_true='label' is not a column of the Spark DataFrame X"):
        detect_subgroups(sdf, "label", "p", discovery="patterns")
    other = spark.newSession().createDataFrame(pdf[["t"]])
    with pytest.raises(ValueError, match="y_true is a Spark DataFrame of another SparkSession"):
        detect_subgroups(sdf, other, "p", discovery="patterns")
    with pytest.raises(ValueError, match="y_pred is a Spark Column that is not a column of X"):
        detect_subgroups(sdf, "t", other["t"], discovery="patterns")
    text = sdf.withColumn("p", sdf["p"].cast("string"))
    with pytest.raises(TypeError, match=r"y_pred \(p\) holds string values: expected numeric"):
        detect_subgroups(text, "t", "p", discovery="patterns")
    with pytest.raises(TypeError, match="y_true must name a column of X"):
        detect_subgroups(sdf, pdf["t"].to_numpy(), "p", discovery="patterns")
    with pytest.raises(ValueError, match=r"categorical_features.*nope"):
        detect_subgroups(sdf, "t", "p", discovery="patterns", categorical_features=["nope"])


def test_workers_of_another_version_are_named(spark, monkeypatch):
    import aif360_subjective

    monkeypatch.setattr(aif360_subjective, "__version__", "0.0.0-driver")
    monkeypatch.setattr(_spark, "_CHECKED", set())
    with pytest.raises(RuntimeError, match=r"another version of aif360_subjective than the driver \(0.0.0-driver\)"):
        _spark.check_workers(spark, probes=2)


def test_missing_java_names_the_install_command(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match="apt-get install openjdk-17-jre-headless"):
        _spark.local_session("local[1]")


@pytest.fixture
def histogram_pass(table, monkeypatch):
    """One pass (the histogram of ``num0``) over the table's partitions, run by fresh :class:`SparkParts` (each counts
    its own driver bytes) under the engine settings given (class attributes patched for the test), and its result
    on the whole table in pandas."""
    from aif360_subjective.detectors._dask import summary as ds
    from aif360_subjective.detectors._spark.detect import spark_features
    from aif360_subjective.detectors._spark.parts import SparkParts

    _, sdf, pdf = table
    data = spark_features(sdf, "t", "p")
    jobs = [("num0", (float(pdf["num0"].min()), float(pdf["num0"].max()), True))]

    def run(how: str, **settings: int) -> tuple[SparkParts, object]:
        for name, value in settings.items():
            monkeypatch.setattr(SparkParts, name, value)
        parts = SparkParts(data.frame, data.features, data.dtypes)
        return parts, getattr(parts, how)(ds._partition_histograms, jobs)

    return run, ds._partition_histograms(pdf[data.features], jobs)


def test_sums_on_the_executors_equal_the_drivers(histogram_pass):
    # above DRIVER_SUMS partitions the executors add the results in floor(sqrt(P)) groups first: the same sums
    run, expected = histogram_pass
    parts, on_driver = run("total")
    grouped, on_executors = run("total", DRIVER_SUMS=1)
    np.testing.assert_array_equal(on_executors, on_driver)
    np.testing.assert_array_equal(on_driver, expected)
    assert 0 < grouped.driver_bytes < parts.driver_bytes  # floor(sqrt(3)) = 1 sum, not 3 results


def test_partitions_that_moved_between_passes_are_refused(table):
    from aif360_subjective.detectors._spark.detect import spark_features
    from aif360_subjective.detectors._spark.parts import SparkParts

    _, sdf, pdf = table
    data = spark_features(sdf, "t", "p")
    parts = SparkParts(data.frame, data.features, data.dtypes)
    rows = parts.map(len)  # rows per partition
    assert sum(rows) == len(pdf) and len(rows) == parts.npartitions
    parts.pin([n + 1 for n in rows])  # as if the first pass had seen one more row in each
    with pytest.raises(RuntimeError, match="partitions changed between the passes"):
        parts.map(len)


def test_results_in_pieces_are_joined_in_order():
    from aif360_subjective._spark.partitions import _joined, _pieces

    blob = bytes(range(256)) * 3
    rows = pd.concat([_pieces(4, blob, 100), _pieces(1, b"", 100), _pieces(2, b"xyz", 100)]).iloc[::-1]
    assert len(_pieces(4, blob, 100)) == 8  # ceil(768 / 100) pieces, the last of 68 bytes
    assert _joined(rows.to_dict("records")) == {4: blob, 1: b"", 2: b"xyz"}


def test_results_cut_into_small_pieces_give_the_same_sums(histogram_pass):
    # every partition's result crosses the JVM in pieces of CHUNK_BYTES: 64-byte pieces (hundreds per result) give the
    # results whole, on the driver's path and on the executors'
    run, total = histogram_pass
    whole, expected = run("map")
    cut, got = run("map", CHUNK_BYTES=64)
    assert len(got) == len(expected) == cut.npartitions
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    assert cut.driver_bytes == whole.driver_bytes > 64 * cut.npartitions
    np.testing.assert_array_equal(run("total", DRIVER_SUMS=1)[1], total)
