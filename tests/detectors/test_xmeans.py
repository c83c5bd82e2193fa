"""The vectorised x-means: pyclustering's BIC exactly, and the same automatic k as pyclustering."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective._compat import import_pyclustering
from aif360_subjective.detectors.asdf import clustering as clustering_module
from aif360_subjective.detectors.asdf.clustering import choose_n_clusters, default_kmax, xmeans_n_clusters
from aif360_subjective.detectors.asdf.xmeans import bic_score, fast_xmeans
from aif360_subjective.detectors.encoding import encode_for_clustering


def _pyclustering_bic(Z, clusters, centers):
    import_pyclustering()
    from pyclustering.cluster.xmeans import xmeans

    model = xmeans(Z.tolist(), centers, kmax=10, ccore=False)
    return model._xmeans__bayesian_information_criterion(clusters, centers)


def test_bic_hand_computed():
    # one cluster {0, 2} in 1-d: centre 1, W = 2, sigma^2 = W / (N - K) = 2, p = 0 + 1 + 1 = 2
    # L = 2 ln 2 - 2 ln 2 - ln(2 pi) - 2 * 0.5 ln 2 - (2 - 1) / 2; score = L - ln 2
    expected = -np.log(2 * np.pi) - np.log(2) - 0.5 - np.log(2)
    assert bic_score(np.array([[2.0]]), np.array([2.0]), 1)[0] == pytest.approx(expected, rel=1e-15)
    assert bic_score(np.array([[1.0, 1.0]]), np.array([0.0]), 1)[0] == np.inf  # N - K = 0
    assert bic_score(np.array([[3.0]]), np.array([0.0]), 2)[0] == np.inf  # identical points: sigma^2 = 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bic_equals_pyclustering(seed):
    rng = np.random.default_rng(seed)
    Z = rng.random((40, 3))
    labels = rng.integers(0, 3, size=40)
    clusters = [np.flatnonzero(labels == j).tolist() for j in range(3)]
    centers = [Z[c].mean(axis=0).tolist() for c in clusters]
    ref = _pyclustering_bic(Z, clusters, centers)
    n = np.array([[len(c) for c in clusters]], dtype=float)
    wce = np.array([sum(float(np.sum((Z[c] - Z[c].mean(axis=0)) ** 2)) for c in clusters)])
    assert bic_score(n, wce, 3)[0] == pytest.approx(ref, rel=1e-12)
    # a parent against its two children, as the splitting rule compares them
    par = _pyclustering_bic(Z, [list(range(40))], [Z.mean(axis=0).tolist()])
    assert bic_score(np.array([[40.0]]), np.array([float(np.sum((Z - Z.mean(axis=0)) ** 2))]), 3)[0] == (
        pytest.approx(par, rel=1e-12)
    )


def test_duplicates_count_as_weights():
    rng = np.random.default_rng(0)
    base = rng.random((30, 2))
    Z = np.vstack([base, base[:10], base[:10]])
    # two well separated blobs of points: x-means stops at 2 with or without the repeated rows
    blobs = np.vstack([rng.normal(0, 0.05, (60, 2)), rng.normal(5, 0.05, (60, 2))])
    assert fast_xmeans(blobs, 10, 0) == 2
    assert fast_xmeans(np.vstack([blobs, blobs[:30]]), 10, 0) == 2
    assert 2 <= fast_xmeans(Z, 5, 0) <= 5


def test_choose_falls_back_to_pyclustering_below_kmax(monkeypatch):
    rng = np.random.default_rng(1)
    blobs = np.vstack([rng.normal(c, 0.02, (50, 2)) for c in (0.0, 3.0, 6.0)])
    calls = []
    real = clustering_module._pyclustering_xmeans

    def spy(Z, kmax, seed):
        calls.append(seed)
        return real(Z, kmax, seed)

    monkeypatch.setattr(clustering_module, "_pyclustering_xmeans", spy)
    k = choose_n_clusters(blobs, kmax=8, random_state=0, method="fast")
    assert fast_xmeans(blobs, 8, np.random.default_rng(clustering_module._seed(np.random.default_rng(0)))) < 8
    assert calls, "below kmax the answer must be pyclustering's"
    assert k == xmeans_n_clusters(blobs, kmax=8, random_state=0)[0]
    calls.clear()
    centres = rng.random((30, 5)) * 20
    many = np.vstack([rng.normal(c, 0.1, (20, 5)) for c in centres])
    assert choose_n_clusters(many, kmax=8, random_state=0, method="fast") == 8
    assert not calls  # kmax reached: no pyclustering run
    assert choose_n_clusters(blobs, kmax=8, random_state=0) == k  # "auto" on small data: pyclustering
    assert len(calls) == 1
    with pytest.raises(ValueError, match=r"method must be one of \['auto', 'pyclustering', 'fast'\], got 'x'"):
        choose_n_clusters(blobs, method="x")


def test_where_pyclustering_c_core_differs():
    # documented: 30 separated blobs, kmax 8, random_state 2: pyclustering's C++ core stops at 2, its
    # Python implementation and the vectorised rule reach 8 ("fast" would then say 8)
    rng = np.random.default_rng(2)
    centres = rng.random((30, 5)) * 20
    Z = np.vstack([rng.normal(c, 0.1, (20, 5)) for c in centres])
    seed = clustering_module._seed(np.random.default_rng(2))
    assert xmeans_n_clusters(Z, 8, 2)[0] == 2
    assert fast_xmeans(Z, 8, np.random.default_rng(seed)) == 8


@pytest.mark.data
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.slow
def test_same_k_as_pyclustering_on_compas(shared_data, seed):
    df = pd.read_csv(shared_data / "compas" / "fairvis_compas_out.csv")
    Z, _ = encode_for_clustering(df.drop(columns=["out", "class"]), ["c_charge_degree", "race", "sex"])
    kmax = default_kmax(len(Z))
    rng = np.random.default_rng(seed)
    ref, _ = xmeans_n_clusters(Z, kmax, rng)
    assert fast_xmeans(Z, kmax, seed) == ref == kmax == 55


def test_progress_bar_only_on_a_terminal(capsys):
    # stderr is captured (not a TTY): no bar even when asked, and the answer does not change
    rng = np.random.default_rng(0)
    Z = rng.random((200, 3))
    assert fast_xmeans(Z, 5, 0, progress=True) == fast_xmeans(Z, 5, 0, progress=False)
    assert capsys.readouterr().err == ""
