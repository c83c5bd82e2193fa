"""Golden tests against the reference ASDF-Dashboard outputs (COMPAS, SLINK k=30, tau=0.65)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.directions import DIRECTIONS

pytestmark = pytest.mark.data

CATEGORICAL = ["c_charge_degree", "race", "sex"]
METRIC_COLUMNS = {
    "stat_par": "statistical_parity",
    "eq_opp": "equal_opportunity",
    "avg_odds": "equalized_odds",
    "acc": "accuracy",
    "acc_err": "accuracy_error",
}


@pytest.fixture(scope="module")
def compas(shared_data):
    return pd.read_csv(shared_data / "compas" / "fairvis_compas_out.csv")


@pytest.fixture(scope="module")
def golden(reference_dir):
    return reference_dir / "asdf" / "compas_slink_k30_tau0.65"


@pytest.fixture(scope="module")
def report_asdf(compas):
    return detect_subgroups(
        compas.drop(columns=["out", "class"]),
        compas["class"],
        compas["out"],
        pos_label=0,
        clustering="slink",
        n_clusters=30,
        entropy_threshold=0.65,
        categorical_features=CATEGORICAL,
        undefined_rates="asdf",
        random_state=0,
    )


@pytest.fixture(scope="module")
def report_nan(compas):
    return detect_subgroups(
        compas.drop(columns=["out", "class"]),
        compas["class"],
        compas["out"],
        pos_label=0,
        n_clusters=30,
        categorical_features=CATEGORICAL,
        random_state=0,
    )


@pytest.mark.slow
def test_cluster_and_entropy_sizes(report_asdf, golden):
    ref = pd.read_csv(golden / "sizes.csv", index_col="id")
    m = report_asdf.subgroup_metrics(ci=None)
    np.testing.assert_array_equal(
        m.loc["cluster", "size"].to_numpy(dtype=int), ref["cluster_size"].to_numpy()
    )
    np.testing.assert_array_equal(
        m.loc["entropy", "size"].to_numpy(dtype=int), ref["entropy_group_size"].to_numpy()
    )
    np.testing.assert_array_equal(
        report_asdf.clusters.value_counts().sort_index().to_numpy(), ref["cluster_size"].to_numpy()
    )


@pytest.mark.parametrize("kind,prefix", [("cluster", "c_"), ("entropy", "g_")])
@pytest.mark.parametrize("ref_col", list(METRIC_COLUMNS))
def test_subgroup_metrics_match_reference(report_asdf, golden, kind, prefix, ref_col):
    ref = pd.read_csv(golden / "subgroup_metrics.csv", index_col="id")
    ours = report_asdf.subgroup_metrics(ci=None).loc[kind, METRIC_COLUMNS[ref_col]]
    np.testing.assert_array_equal(ours.index.to_numpy(), ref.index.to_numpy())
    np.testing.assert_allclose(
        ours.to_numpy(dtype=float), ref[prefix + ref_col].to_numpy(), rtol=0, atol=1e-9
    )


def test_entropy_patterns_match_reference(report_asdf, golden):
    ref = pd.read_csv(golden / "patterns.csv", index_col="id")
    ours = report_asdf.patterns()
    assert sorted(ours.columns) == sorted(
        c for c in ref.columns if c not in ("pattern", "pattern_len", "is_duplicate")
    )
    for col in ours.columns:
        a, b = ours[col], ref[col]
        np.testing.assert_array_equal(a.isna().to_numpy(), b.isna().to_numpy(), err_msg=col)
        if b.dtype.kind == "f":
            np.testing.assert_array_equal(
                a.dropna().to_numpy(dtype=float), b.dropna().to_numpy(), err_msg=col
            )
        else:
            assert a.dropna().astype(str).tolist() == b.dropna().astype(str).tolist(), col
    info = report_asdf.pattern_info()
    np.testing.assert_array_equal(info["length"].to_numpy(), ref["pattern_len"].to_numpy())
    np.testing.assert_array_equal(info["is_duplicate"].to_numpy(), ref["is_duplicate"].to_numpy())


def test_radar_matches_reference(report_asdf, golden):
    radar = pd.read_csv(golden / "radar.csv")
    fair = pd.read_csv(golden / "summary_fair.csv", index_col="metric")
    err = pd.read_csv(golden / "summary_acc_error.csv", index_col="acc_error_stat")
    s = report_asdf.summary()
    order = ["accuracy_error", "statistical_parity", "equal_opportunity", "equalized_odds", "accuracy"]
    assert list(s.columns) == order
    # radar.csv is rounded to 10 digits; the summaries hold full precision
    np.testing.assert_allclose(s.loc["cluster"].to_numpy(), radar["clustering_based"].to_numpy(), atol=1e-9)
    np.testing.assert_allclose(s.loc["entropy"].to_numpy(), radar["entropy_based"].to_numpy(), atol=1e-9)
    for kind, pre, col in (("cluster", "c_", "cluster"), ("entropy", "g_", "entropy")):
        assert s.loc[kind, "accuracy_error"] == pytest.approx(err.loc["mean_err", col], abs=1e-12)
        for ours, ref in (
            ("statistical_parity", "stat_par"),
            ("equal_opportunity", "eq_opp"),
            ("equalized_odds", "avg_odds"),
            ("accuracy", "acc"),
        ):
            assert s.loc[kind, ours] == pytest.approx(fair.loc[pre + ref, "abs_mean"], abs=1e-12)


def test_top5_rankings_match_reference(report_asdf, golden):
    ref = pd.read_csv(golden / "top5_rankings.csv")
    for (criterion, order), part in ref.groupby(["criterion", "order"], sort=False):
        kind = "cluster" if criterion.startswith("c_") else "entropy"
        metric = METRIC_COLUMNS[criterion[2:]]
        # the seed sorts every metric the same way; "ascending" is the favoured side of the rest-minus-subgroup
        # metrics and the disadvantaged side of accuracy and accuracy error
        ascending = order == "ascending"
        direction = "favoured" if ascending == (DIRECTIONS[metric] == "larger") else "disadvantaged"
        rk = report_asdf.ranking(metric, kind=kind, n=5, direction=direction, alpha=None)
        assert rk.index.tolist() == part["id"].tolist(), (criterion, order)
        np.testing.assert_allclose(rk[metric].to_numpy(), part["value"].to_numpy(), atol=1e-9)
        with pytest.warns(DeprecationWarning, match="ascending"):
            old = report_asdf.ranking(metric, kind=kind, n=5, ascending=ascending)
        pd.testing.assert_frame_equal(old, rk)


def test_paper_count_felony_african_american_male(report_asdf, compas):
    cluster2 = compas[report_asdf.clusters.to_numpy() == 2]
    assert len(cluster2) == 1836
    assert set(map(tuple, cluster2[CATEGORICAL].drop_duplicates().to_numpy())) == {
        ("Felony", "African-American", "Male")
    }
    whole = compas[
        (compas.c_charge_degree == "Felony") & (compas.race == "African-American") & (compas.sex == "Male")
    ]
    assert len(whole) == 1836


@pytest.mark.slow
def test_nan_mode_differs_only_where_rates_are_undefined(report_asdf, report_nan):
    a, b = report_asdf.subgroup_metrics(ci=None), report_nan.subgroup_metrics()
    undefined = b[["equal_opportunity", "equalized_odds"]].isna()
    assert undefined.to_numpy().sum() > 0  # singleton clusters have no favourable truths
    for col in ["size", "statistical_parity", "accuracy", "accuracy_error"]:
        np.testing.assert_array_equal(a[col].to_numpy(dtype=float), b[col].to_numpy(dtype=float))
    for col in ["equal_opportunity", "equalized_odds"]:
        defined = ~b[col].isna().to_numpy()
        np.testing.assert_array_equal(a[col].to_numpy()[defined], b[col].to_numpy()[defined])


def test_validity_indices_close_to_reference(report_nan, golden):
    import json

    info = json.loads((golden / "run_info.json").read_text())
    v = report_nan.validity
    # Davies-Bouldin and Calinski-Harabasz are exact; the silhouette is sampled (1000 rows)
    assert v["davies_bouldin"] == pytest.approx(info["cvi"]["dbi"], abs=1e-9)
    assert v["calinski_harabasz"] == pytest.approx(info["cvi"]["chi"], rel=1e-9)
    assert v["silhouette"] == pytest.approx(info["cvi"]["sil"], abs=0.05)
