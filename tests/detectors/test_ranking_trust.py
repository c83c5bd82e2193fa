"""Rankings with one meaning of "disadvantaged", significance filtering, and lopsided clusterings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_subgroup_benchmark
from aif360_subjective.detectors import DIRECTIONS, METRICS, alternative_clusterings, detect_subgroups, lopsidedness
from aif360_subjective.detectors.asdf.lopsided import flag_lopsided
from aif360_subjective.detectors.error_control.maxt import METRIC_TEST

PLANTED = make_subgroup_benchmark(random_state=0)


@pytest.fixture(scope="module")
def report():
    b = PLANTED
    return detect_subgroups(b.X, b.y_true, b.y_pred, clustering="slink", random_state=0, discovery="asdf")


@pytest.fixture(scope="module")
def compas_report(shared_data):
    c = pd.read_csv(shared_data / "compas" / "fairvis_compas_out.csv")
    return detect_subgroups(
        c.drop(columns=["out", "class"]), c["class"], c["out"], pos_label=0, n_clusters=30,
        categorical_features=["c_charge_degree", "race", "sex"], random_state=0, discovery="asdf",
    )


def _disadvantaged(rep, metric, values):
    if metric == "accuracy":
        return values < rep.overall_accuracy
    return values > 0 if DIRECTIONS[metric] == "larger" else values < 0


def _check_first_entries(rep):
    for kind in ("cluster", "entropy"):
        table = rep.subgroup_metrics(ci=None).loc[kind]
        for metric in METRICS:
            values = table[metric].to_numpy(dtype=float, na_value=np.nan)
            exists = np.nan_to_num(_disadvantaged(rep, metric, values), nan=0).astype(bool).any()
            raw = rep.ranking(metric, kind=kind, alpha=None)
            if exists:
                assert _disadvantaged(rep, metric, raw[metric].iloc[0]), (kind, metric)
            sig = rep.ranking(metric, kind=kind, n=None)
            if len(sig):
                ref = sig.attrs["reference"]
                bound = sig[sig.attrs["bound_column"]].to_numpy()
                assert _disadvantaged(rep, metric, sig[metric].to_numpy()).all(), (kind, metric)
                assert ((bound > ref) if DIRECTIONS[metric] == "larger" else (bound < ref)).all()
                assert (sig[metric + "_p_adjusted"] < 0.05).all()
                # ordered by adjusted p, then by the max-T statistic, then by the bound nearest the reference
                padj = sig[metric + "_p_adjusted"].to_numpy()
                assert (np.diff(padj) >= 0).all()
                pos = rep.candidates.positions(kind)
                where = dict(zip(rep.subgroup_metrics(ci=None).iloc[pos].index.get_level_values("id"), pos,
                                 strict=True))
                stat = rep.significance.max_t().statistic(METRIC_TEST[metric], 0)[[where[i] for i in sig.index]]
                same = np.diff(padj) == 0
                assert (np.diff(stat)[same] <= 1e-12).all()
                tie = same & (np.abs(np.diff(stat)) <= 1e-12)
                step = np.diff(bound)
                assert (step[tie] <= 0).all() if DIRECTIONS[metric] == "larger" else (step[tie] >= 0).all()
            fav = rep.ranking(metric, kind=kind, direction="favoured", alpha=None)
            if (np.nan_to_num(~_disadvantaged(rep, metric, values), nan=0).astype(bool) & ~np.isnan(values)).any():
                assert not _disadvantaged(rep, metric, fav[metric].iloc[0]), (kind, metric)


@pytest.mark.slow
def test_disadvantaged_list_starts_on_the_disadvantaged_side(report):
    _check_first_entries(report)


@pytest.mark.data
@pytest.mark.slow
def test_disadvantaged_list_starts_on_the_disadvantaged_side_compas(compas_report):
    _check_first_entries(compas_report)
    # the inverted report: accuracy error's "disadvantaged" are the subgroups the model errs on most
    worst = compas_report.ranking("accuracy_error", alpha=None, n=1)
    assert worst["accuracy_error"].iloc[0] == compas_report.subgroup_metrics(ci=None).loc["entropy"][
        "accuracy_error"].min()


@pytest.mark.slow
def test_ascending_is_deprecated_and_gives_the_raw_ordering(report):
    for metric in (*METRICS, "size"):
        for ascending in (True, False):
            with pytest.warns(DeprecationWarning, match="ascending"):
                old = report.ranking(metric, n=None, ascending=ascending)
            larger = metric == "size" or DIRECTIONS[metric] == "larger"
            direction = "favoured" if ascending == larger else "disadvantaged"
            new = report.ranking(metric, n=None, direction=direction, alpha=None)
            pd.testing.assert_frame_equal(old, new)
            values = old[metric].to_numpy(dtype=float)
            values = values[~np.isnan(values)]
            assert (np.diff(values) >= 0).all() if ascending else (np.diff(values) <= 0).all()


def test_significance_filter_accounts_for_every_subgroup(report):
    fwer = report.ranking("statistical_parity", n=None).attrs
    assert fwer["n_no_metrics"] + fwer["n_too_small"] + fwer["n_undefined"] + fwer["n_not_significant"] + fwer[
        "n_other_side"] + fwer["n_significant"] == report.n_clusters
    # the entropy subgroups that hold the planted rows are small (about 50 rows): significant at a false-discovery
    # rate of 0.05 over the kind, not at a family-wise error of 0.05 (the mined patterns find it; see
    # test_pattern_discovery); the bookkeeping below uses the FDR filter
    rk = report.ranking("statistical_parity", n=None, control="fdr")
    a = rk.attrs
    assert (a["n_no_metrics"] + a["n_too_small"] + a["n_undefined"] + a["n_not_significant"] + a["n_other_side"]
            + a["n_significant"]) == report.n_clusters
    assert len(rk) == a["n_significant"] - a["n_redundant"] >= 1
    # the planted subgroup cat0=a AND cat1=a (its rate lowered by 0.25) comes first
    first = report.members("entropy", rk.index[0])
    assert PLANTED.planted[first].mean() >= 0.7
    big = report.ranking("statistical_parity", n=None, min_size=10_000)
    assert len(big) == 0 and big.attrs["n_too_small"] == report.n_clusters - big.attrs["n_no_metrics"]
    assert report.ranking("statistical_parity", n=1, control="fdr").shape[0] == 1
    loose = report.ranking("statistical_parity", n=None, alpha=0.5, control="fdr")
    assert len(loose) >= len(rk) and set(rk.index) <= set(loose.index)


def test_subgroup_metrics_columns_and_undefined_counts(report):
    plain = report.subgroup_metrics(ci=None)
    full = report.subgroup_metrics()
    pd.testing.assert_frame_equal(full[plain.columns], plain)
    for m in METRICS:
        for s in ("_ci_low", "_ci_high", "_p", "_q"):
            assert m + s in full.columns
        for kind in ("cluster", "entropy"):
            part = full.loc[kind]
            exists = part["size"].notna().to_numpy() & ~plain.loc[kind, METRICS].isna().all(axis=1).to_numpy()
            assert full.attrs["undefined"][m][kind] == int((exists & part[m + "_p"].isna().to_numpy()).sum())
            q = part[m + "_q"].to_numpy()
            p = part[m + "_p"].to_numpy()
            ok = ~np.isnan(p)
            assert (q[ok] >= p[ok] - 1e-15).all()
    narrow = report.subgroup_metrics(ci=0.5)
    wide = report.subgroup_metrics(ci=0.99)
    w50 = (narrow["statistical_parity_ci_high"] - narrow["statistical_parity_ci_low"]).dropna()
    w99 = (wide["statistical_parity_ci_high"] - wide["statistical_parity_ci_low"]).dropna()
    assert (w50 < w99).all()


def test_bad_arguments_name_the_argument(report):
    with pytest.raises(ValueError, match="direction must be one of"):
        report.ranking("accuracy", direction="worst")
    with pytest.raises(ValueError, match="alpha must be"):
        report.ranking("accuracy", alpha=1.5)
    with pytest.raises(ValueError, match="ci must be"):
        report.subgroup_metrics(ci=95)
    with pytest.raises(TypeError, match="ascending must be"), pytest.warns(DeprecationWarning):
        report.ranking("accuracy", ascending="yes")


def test_lopsidedness_hand_cases():
    big = lopsidedness(np.r_[np.zeros(95), np.arange(1, 6)])
    assert big["lopsided"] and big["largest_share"] == 0.95 and "largest cluster holds 95.0%" in big["reason"]
    crumbs = lopsidedness(np.r_[np.zeros(300), np.ones(300), np.arange(2, 5)])  # 3 of 5 clusters hold 1 row
    assert crumbs["lopsided"] and crumbs["tiny_clusters"] == 3 and "3 of its 5 clusters" in crumbs["reason"]
    even = lopsidedness(np.repeat(np.arange(4), 25))
    assert not even["lopsided"] and even["reason"] == "" and even["largest_share"] == 0.25
    table = pd.DataFrame(index=["a", "b"])
    flag_lopsided(table, [np.r_[np.zeros(95), np.arange(1, 6)], np.repeat(np.arange(4), 25)])
    assert table["lopsided"].tolist() == [True, False]
    with pytest.raises(ValueError, match="labels holds 1 clusterings"):
        flag_lopsided(table, [np.zeros(3)])


@pytest.mark.slow
def test_chained_single_linkage_is_flagged_and_an_alternative_named():
    rng = np.random.default_rng(0)
    # a dense blob and a few far outliers: single linkage cuts off the outliers, k-means splits the blob
    X = pd.DataFrame({"x": np.r_[rng.normal(0, 1, 400), [30, 40, 50, 60]], "y": np.r_[rng.normal(0, 1, 400), [0] * 4]})
    y = rng.integers(0, 2, len(X))
    p = rng.integers(0, 2, len(X))
    rep = detect_subgroups(X, y, p, clustering="slink", n_clusters=[5], random_state=0)
    assert rep.lopsided["lopsided"] and rep.lopsided["largest_share"] >= 0.9
    assert bool(rep.model_selection["lopsided"].iloc[0])
    alt = alternative_clusterings(X, y, p, n_clusters=5, current="slink", random_state=0)
    assert "slink" not in alt.index.get_level_values(0)
    assert {"largest_share", "tiny_clusters", "lopsided"} <= set(alt.columns)
    name, k = alt.attrs["suggestion"]
    assert type(k) is int and type(name) is str and k == 5 and not alt.loc[(name, k), "lopsided"]


def test_old_positional_ascending_still_works(report):
    with pytest.warns(DeprecationWarning, match="ascending") as rec:
        old = report.ranking("statistical_parity", "entropy", 5, False)
    assert rec[0].filename == __file__  # the warning points at the caller
    pd.testing.assert_frame_equal(old, report.ranking("statistical_parity", n=5, alpha=None))


def test_not_significant_excludes_the_other_side(report):
    """A subgroup significantly favoured is not counted as "not significant" in the disadvantaged ranking."""
    for metric in ("statistical_parity", "accuracy_error"):
        dis = report.ranking(metric, n=None, direction="disadvantaged")
        fav = report.ranking(metric, n=None, direction="favoured")
        assert dis.attrs["n_other_side"] == fav.attrs["n_significant"]
        assert fav.attrs["n_other_side"] == dis.attrs["n_significant"]
        assert dis.attrs["n_not_significant"] == fav.attrs["n_not_significant"]
