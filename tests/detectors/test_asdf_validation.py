"""Bad inputs to subgroup discovery give clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups

X = pd.DataFrame({"a": ["u", "v"] * 10, "b": np.arange(20.0)})
Y = np.arange(20) % 2
P = (np.arange(20) // 2) % 2


@pytest.mark.parametrize("tau", [-0.1, 1.5, np.nan])
def test_threshold_outside_unit_interval(tau):
    with pytest.raises(ValueError, match="entropy_threshold"):
        detect_subgroups(X, Y, P, n_clusters=2, entropy_threshold=tau)


def test_threshold_not_a_number():
    with pytest.raises(TypeError, match="entropy_threshold"):
        detect_subgroups(X, Y, P, n_clusters=2, entropy_threshold="high")


@pytest.mark.parametrize("k", [1, 0, 21, -3])
def test_n_clusters_out_of_range(k):
    with pytest.raises(ValueError, match="n_clusters must be between 2 and the number of rows"):
        detect_subgroups(X, Y, P, n_clusters=k)


def test_n_clusters_wrong_type():
    with pytest.raises(TypeError, match="n_clusters"):
        detect_subgroups(X, Y, P, n_clusters=2.5)
    with pytest.raises(ValueError, match="empty"):
        detect_subgroups(X, Y, P, n_clusters=[])


def test_length_mismatch():
    with pytest.raises(ValueError, match="y_true has 19 values but X has 20 rows"):
        detect_subgroups(X, Y[:-1], P, n_clusters=2)
    with pytest.raises(ValueError, match="y_pred"):
        detect_subgroups(X, Y, np.append(P, 1), n_clusters=2)
    with pytest.raises(ValueError, match="sample_weight"):
        detect_subgroups(X, Y, P, n_clusters=2, sample_weight=np.ones(3))


def test_labels_outside_binary_or_given_pair():
    bad = Y.copy()
    bad[3] = 2
    with pytest.raises(ValueError, match=r"y_true has values \[2\] outside the admissible labels"):
        detect_subgroups(X, bad, P, n_clusters=2)
    with pytest.raises(ValueError, match="y_pred"):
        detect_subgroups(X, Y, np.where(P == 1, "yes", "no"), n_clusters=2)
    with pytest.raises(ValueError, match="pos_label"):
        detect_subgroups(X, Y, P, pos_label=5, labels=(0, 1), n_clusters=2)
    # string labels with an explicit pair are fine
    rep = detect_subgroups(
        X,
        np.where(Y == 1, "yes", "no"),
        np.where(P == 1, "yes", "no"),
        pos_label="yes",
        labels=("yes", "no"),
        n_clusters=2,
    )
    assert rep.n_clusters == 2


def test_missing_values_in_features_or_labels():
    Xn = X.copy()
    Xn.loc[4, "b"] = np.nan
    with pytest.raises(ValueError, match=r"missing values.*'b': 1"):
        detect_subgroups(Xn, Y, P, n_clusters=2)
    with pytest.raises(ValueError, match="y_true contains 1 missing"):
        detect_subgroups(X, np.r_[np.nan, Y[1:]], P, n_clusters=2)


def test_unknown_column_and_clustering_names():
    with pytest.raises(ValueError, match=r"categorical_features: unknown column\(s\) \['nope'\]"):
        detect_subgroups(X, Y, P, n_clusters=2, categorical_features=["a", "nope"])
    with pytest.raises(ValueError, match="clustering must be one of"):
        detect_subgroups(X, Y, P, n_clusters=2, clustering="spectral-ish")
    with pytest.raises(TypeError, match="clusterer"):
        detect_subgroups(X, Y, P, n_clusters=2, clustering=object())
    with pytest.raises(ValueError, match="undefined_rates"):
        detect_subgroups(X, Y, P, n_clusters=2, undefined_rates="zero")
    with pytest.raises(ValueError, match="normalization"):
        detect_subgroups(X, Y, P, n_clusters=2, normalization="global")
    with pytest.raises(ValueError, match="finds its own number"):
        detect_subgroups(X, Y, P, n_clusters=3, clustering="dbscan")


def test_non_numeric_column_not_declared_categorical():
    with pytest.raises(TypeError, match="'a' has non-numeric dtype"):
        detect_subgroups(X, Y, P, n_clusters=2, categorical_features=[])


def test_bad_X_and_ranking_arguments():
    with pytest.raises(TypeError, match="X must be"):
        detect_subgroups("table.csv", Y, P)
    rep = detect_subgroups(X, Y, P, n_clusters=2, random_state=0)
    with pytest.raises(ValueError, match="metric must be one of"):
        rep.ranking("parity")
    with pytest.raises(ValueError, match="kind must be one of"):
        rep.ranking("accuracy", kind="clusters")
    with pytest.raises(ValueError, match="n must be a positive int"):
        rep.ranking("accuracy", n=0)
    with pytest.raises(ValueError, match="unknown subgroup id 99"):
        rep.members("cluster", 99)


def test_numpy_global_state_and_determinism():
    a = detect_subgroups(X, Y, P, random_state=7)
    b = detect_subgroups(X, Y, P, random_state=7)
    pd.testing.assert_frame_equal(a.subgroup_metrics(), b.subgroup_metrics())
    pd.testing.assert_series_equal(a.clusters, b.clusters)


def test_all_zero_weights_are_refused():
    """Issue 33: weights of 0 everywhere were accepted, every metric NaN beside intervals counted on rows."""
    with pytest.raises(ValueError, match=r"sample_weight is 0 for all 20 rows: no row would count"):
        detect_subgroups(X, Y, P, n_clusters=2, sample_weight=np.zeros(20))
    # one positive weight is a (weighted) analysis
    w = np.zeros(20)
    w[0] = 1.0
    assert detect_subgroups(X, Y, P, n_clusters=2, sample_weight=w).weighted


def test_findings_never_list_an_undefined_value():
    """Issue 33: a NaN value with a small adjusted p was listed as a significant finding."""
    rng = np.random.default_rng(0)
    n = 300
    Xn = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n)})
    y = rng.integers(0, 2, n)
    rep = detect_subgroups(Xn, y, np.where(Xn["a"] == "x", 0, y), n_clusters=4, random_state=0)
    first = rep.findings().iloc[0]
    assert np.isfinite(first["value"])
    # the same subgroup with its value undefined (as 0/0 weights made it): no longer a finding
    rep2 = detect_subgroups(Xn, y, np.where(Xn["a"] == "x", 0, y), n_clusters=4, random_state=0)
    rep2.candidate_metrics.table.loc[(first["kind"], first["id"]), first["metric"]] = np.nan
    f2 = rep2.findings()
    same = (f2["kind"] == first["kind"]) & (f2["id"] == first["id"]) & (f2["metric"] == first["metric"])
    assert not same.any()
    assert np.isfinite(f2["value"].to_numpy(dtype=float)).all()


@pytest.mark.parametrize("values", [
    pd.date_range("2020-01-01", periods=20, freq="D"),
    pd.to_timedelta(np.arange(20), unit="h"),
    pd.period_range("2020-01", periods=20, freq="M"),
])
def test_dates_are_refused_with_what_to_do(values):
    """Issue 33: datetime columns were treated as categories, one subgroup per instant."""
    with pytest.raises(ValueError, match=r"X column\(s\) \['when'\] hold dates or durations .*\.dt\.year"):
        detect_subgroups(X.assign(when=values), Y, P, n_clusters=2)
