"""The fast MST back-end on the golden COMPAS configurations: the reference's clusters, patterns and metrics,
or a cut reported as tied (and why)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.asdf.clustering import HierarchicalTree
from aif360_subjective.detectors.encoding import encode_for_clustering

pytestmark = pytest.mark.data
pytest.importorskip("mlpack")

CATEGORICAL = ["c_charge_degree", "race", "sex"]


@pytest.fixture(scope="module")
def compas(shared_data):
    return pd.read_csv(shared_data / "compas" / "fairvis_compas_out.csv")


@pytest.fixture(scope="module")
def trees(compas):
    Z, _ = encode_for_clustering(compas.drop(columns=["out", "class"]), CATEGORICAL)
    return HierarchicalTree.fit(Z, "single", mst="sklearn"), HierarchicalTree.fit(Z, "single", mst="mlpack")


def _run(compas, k, mst, tau=0.65):
    return detect_subgroups(
        compas.drop(columns=["out", "class"]),
        compas["class"],
        compas["out"],
        pos_label=0,
        n_clusters=k,
        entropy_threshold=tau,
        categorical_features=CATEGORICAL,
        undefined_rates="asdf",
        random_state=0,
        mst=mst,
        discovery="asdf",
    )


def test_same_merge_distances(trees):
    prim, boruvka = trees
    np.testing.assert_array_equal(prim.distances, boruvka.distances)  # bit for bit


@pytest.mark.parametrize("k", [25, 30, 45, 55])  # 55 = kmax = the automatic k (x-means)
def test_unique_cuts_give_the_reference_labels(trees, k):
    prim, boruvka = trees
    assert boruvka.cut_is_unique(k)[0] and prim.cut_is_unique(k)[0]
    np.testing.assert_array_equal(boruvka.cut(k), prim.cut(k))


@pytest.mark.parametrize("k", [10, 20])
def test_tied_cuts_are_reported(trees, k):
    prim, boruvka = trees
    n = prim.n_leaves
    # why: the last kept and the first undone merge are both at distance 1 (two rows differing in one
    # one-hot column only), so which of the tied merges is undone is arbitrary
    assert prim.distances[n - k - 1] == prim.distances[n - k] == 1.0
    assert boruvka.cut_is_unique(k) == (False, 1.0)
    assert prim.cut_is_unique(k) == (False, 1.0)


@pytest.mark.parametrize("k,tau", [(30, 0.4), (30, 0.8), (None, 0.65), (45, 0.5)])
@pytest.mark.slow
def test_reports_identical(compas, k, tau):
    a, b = _run(compas, k, "sklearn", tau), _run(compas, k, "mlpack", tau)
    np.testing.assert_array_equal(a.clusters.to_numpy(), b.clusters.to_numpy())
    pd.testing.assert_frame_equal(a.patterns(), b.patterns())
    pd.testing.assert_frame_equal(a.subgroup_metrics(), b.subgroup_metrics())
    pd.testing.assert_frame_equal(a.summary(), b.summary())
    assert a.cut_is_unique is b.cut_is_unique is True


def test_tied_report_flag(compas, caplog):
    rep = _run(compas, 20, "sklearn")
    assert rep.cut_is_unique is False and rep.cut_distance == 1.0
    assert "falls inside a tie of merge distances" in caplog.text
