"""Single linkage from mlpack's exact Euclidean MST: the same tree, cuts and numbering as scikit-learn's Prim."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.cluster import AgglomerativeClustering

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.asdf import mst as mst_module
from aif360_subjective.detectors.asdf.clustering import HierarchicalTree
from aif360_subjective.detectors.asdf.mst import cut_tie, resolve_mst, single_linkage
from aif360_subjective.detectors.encoding import encode_for_clustering

pytest.importorskip("mlpack")


def _trees(Z):
    return HierarchicalTree.fit(Z, "single", mst="sklearn"), HierarchicalTree.fit(Z, "single", mst="mlpack")


def test_hand_computed_line_with_duplicates():
    # points 0, 1, 3, 3 (a duplicate), 7 on a line: MST weights 0, 1, 2, 4
    Z = np.array([[0.0], [1.0], [3.0], [3.0], [7.0]])
    children, distances, edges = single_linkage(Z, "mlpack")
    np.testing.assert_array_equal(distances, [0.0, 1.0, 2.0, 4.0])
    # the duplicate pair (rows 2, 3) merges first, then 0-1, then {0,1} with {2,3}, then row 4 joins
    np.testing.assert_array_equal(children, [[2, 3], [0, 1], [6, 5], [7, 4]])
    sk = AgglomerativeClustering(n_clusters=2, linkage="single", compute_full_tree=True).fit(Z)
    np.testing.assert_array_equal(children, sk.children_)
    np.testing.assert_array_equal(edges[:, 2], distances)


def test_cut_tie_hand_computed():
    d = np.array([0.0, 0.0, 1.0, 1.0, 2.0])  # 6 rows
    # k=3 keeps the 3 shortest (0, 0, 1) and undoes 1, 2: tied at 1
    assert cut_tie(d, 3) == (False, 1.0)
    assert cut_tie(d, 2) == (True, 2.0)
    assert cut_tie(d, 4) == (True, 1.0)  # kept 0, 0; first undone 1
    assert cut_tie(d, 5) == (False, 0.0)  # the cut falls between two zero-length merges (duplicates)
    assert cut_tie(d, 6) == (True, 0.0)
    unique, dist = cut_tie(d, 1)
    assert unique and np.isnan(dist)
    # a difference of 1e-13 is a tie (rounding of two algorithms), 1e-6 is not
    assert cut_tie(np.array([0.5, 0.5 + 1e-13]), 2)[0] is False
    assert cut_tie(np.array([0.5, 0.5 + 1e-6]), 2)[0] is True
    with pytest.raises(ValueError, match="n_clusters must be between 1 and 6, got 7"):
        cut_tie(d, 7)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(5, 120),
    n_num=st.integers(1, 4),
    levels=st.integers(2, 4),
    dup=st.integers(0, 5),
)
@pytest.mark.slow
def test_property_same_partitions_and_numbering_without_ties(seed, n, n_num, levels, dup):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{j}": rng.random(n) for j in range(n_num)})
    X["c"] = rng.choice([f"v{i}" for i in range(levels)], size=n)
    X = pd.concat([X, X.iloc[:dup]], ignore_index=True)  # exact duplicates: zero-length merges
    Z, _ = encode_for_clustering(X, ["c"])
    ts, tm = _trees(Z)
    np.testing.assert_array_equal(ts.distances, tm.distances)
    positive = ts.distances[ts.distances > 0]
    assume(len(np.unique(positive)) == len(positive))  # "without ties" (zero-length merges are allowed)
    for k in range(1, len(Z) + 1):
        np.testing.assert_array_equal(ts.cut(k), tm.cut(k), err_msg=f"k={k}")


def test_integer_grid_ties_are_reported():
    # integer grid: most MST weights are 1, so most cuts fall inside a tie, where the two exact MSTs may
    # give different (equally valid) clusters; the weights themselves agree
    rng = np.random.default_rng(0)
    Z = rng.integers(0, 4, size=(150, 3)).astype(float)
    ts, tm = _trees(Z)
    np.testing.assert_array_equal(ts.distances, tm.distances)
    n = len(Z)
    for k in (2, 3, 11, 40, 100):
        unique, dist = tm.cut_is_unique(k)
        kept, undone = ts.distances[n - k - 1], ts.distances[n - k]
        assert unique == (undone - kept > 1e-9), k
        if unique:
            np.testing.assert_array_equal(ts.cut(k), tm.cut(k))


def test_auto_uses_prim_on_small_data_and_mlpack_on_large():
    assert resolve_mst("auto", 6172, 11) == "sklearn"  # COMPAS: n^2 d = 4.2e8
    assert resolve_mst("auto", 48842, 100) == "mlpack"  # Adult
    assert resolve_mst("sklearn", 48842, 100) == "sklearn"


def test_slow_path_notice_names_the_extra(monkeypatch, caplog):
    monkeypatch.setattr(mst_module, "mlpack_available", lambda: False)
    with caplog.at_level(logging.WARNING, logger="aif360_subjective.detectors.asdf.mst"):
        assert resolve_mst("auto", 20_000, 100) == "sklearn"
    assert "aif360-subjective[fast]" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="aif360_subjective.detectors.asdf.mst"):
        resolve_mst("auto", 5_000, 100)
    assert caplog.text == ""
    with pytest.raises(ImportError, match=r"mst='mlpack' needs mlpack.*\[fast\]"):
        resolve_mst("mlpack", 10, 2)


def test_no_install_advice_when_mlpack_is_installed(monkeypatch, caplog):
    """Issue 33: 20,000 rows of 2 columns run Prim (n^2 d below AUTO_PRIM_WORK) and printed
    "pip install 'aif360-subjective[fast]'" although mlpack was installed."""
    monkeypatch.setattr(mst_module, "mlpack_available", lambda: True)
    with caplog.at_level(logging.WARNING, logger="aif360_subjective.detectors.asdf.mst"):
        assert resolve_mst("auto", 20_000, 2) == "sklearn"
    assert "pip install" not in caplog.text


def test_bad_mst_option():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 5.0]})
    with pytest.raises(ValueError, match=r"mst must be one of \['auto', 'mlpack', 'sklearn'\], got 'prim'"):
        detect_subgroups(X, [0, 1, 0, 1], [0, 1, 1, 1], n_clusters=2, mst="prim")


def test_report_and_model_selection_say_whether_the_cut_is_unique():
    # weights 1 (0-1), 1 (1-2), 3 (2-5): k=2 cuts at 3 (unique), k=3 inside the tie at 1
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 5.0]})
    y, p = [0, 1, 0, 1], [0, 1, 1, 1]
    rep = detect_subgroups(X, y, p, n_clusters=2, mst="mlpack")
    assert rep.cut_is_unique is True
    assert rep.cut_distance == pytest.approx(3 / 5)  # min-max scaled
    rep3 = detect_subgroups(X, y, p, n_clusters=3, mst="mlpack")
    assert rep3.cut_is_unique is False
    assert rep3.cut_distance == pytest.approx(1 / 5)
    sel = detect_subgroups(X, y, p, n_clusters=[2, 3]).model_selection
    assert sel["cut_is_unique"].tolist() == [True, False]
    np.testing.assert_allclose(sel["cut_distance"].to_numpy(), [3 / 5, 1 / 5])
    flat = detect_subgroups(X, y, p, clustering="kmeans", n_clusters=2, random_state=0)
    assert flat.cut_is_unique is None and np.isnan(flat.cut_distance)


def test_pure_python_union_find_equals_scikit_learns():
    rng = np.random.default_rng(3)
    Z = rng.random((60, 2))
    _, _, edges = single_linkage(Z, "mlpack")
    np.testing.assert_array_equal(mst_module._union_find_python(edges), mst_module._union_find_merges(edges))


@pytest.mark.slow
def test_html_report_notes_a_tied_cut():
    from aif360_subjective.report.sections import subgroup_sections

    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 5.0]})
    tied = detect_subgroups(X, [0, 1, 0, 1], [0, 1, 1, 1], n_clusters=3)
    def details(rep):  # the tie note is a detail: it sits in the clustering details, not in the answer
        section = next(s for s in subgroup_sections(rep, figures=False) if s.title == "Clustering details")
        return " ".join(str(b) for b in section.blocks)

    text = details(tied)
    assert "merge distances are tied at the cut (distance 0.2)" in text
    unique = detect_subgroups(X, [0, 1, 0, 1], [0, 1, 1, 1], n_clusters=2)
    text = details(unique)
    assert "tied at the cut" not in text and "is unique (no tied merge distances" in text


@pytest.mark.slow
def test_child_process_mst_equals_the_one_computed_here(monkeypatch, caplog):
    # mlpack's emst holds the GIL: large inputs go to a child process; its edges must be exactly these
    rng = np.random.default_rng(5)
    U = np.unique(rng.normal(size=(300, 4)).round(2), axis=0)
    monkeypatch.setattr(mst_module, "EMST_CHILD_ROWS", 10**9)
    here = mst_module.euclidean_mst(U)
    monkeypatch.setattr(mst_module, "EMST_CHILD_ROWS", 2)
    child = mst_module.euclidean_mst(U)
    assert all(np.array_equal(a, b) for a, b in zip(here, child, strict=True))
    # a child that cannot run: a warning, and the same edges computed here
    monkeypatch.setattr(mst_module.sys, "executable", "/nonexistent/python")
    with caplog.at_level("WARNING", logger=mst_module.__name__):
        fallback = mst_module.euclidean_mst(U)
    assert all(np.array_equal(a, b) for a, b in zip(here, fallback, strict=True))
    assert "child process failed" in caplog.text
    monkeypatch.setattr(mst_module.sys, "executable", "")  # an embedded interpreter: computed here, silently
    assert all(np.array_equal(a, b) for a, b in zip(here, mst_module.euclidean_mst(U), strict=True))


@pytest.mark.skipif(not mst_module.mlpack_available(), reason="needs mlpack (the [fast] extra)")
@pytest.mark.slow
def test_emst_child_gives_the_in_process_edges():
    from mlpack import emst

    U = np.random.default_rng(0).normal(size=(60, 3))
    out = mst_module._emst_in_child(U)
    assert out is not None
    np.testing.assert_array_equal(out, emst(input_=U, leaf_size=mst_module.EMST_LEAF_SIZE)["output"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
@pytest.mark.slow
def test_sigterm_of_the_parent_leaves_no_emst_child_running(tmp_path):
    """Issue 33: a SIGTERM of the process computing the MST orphaned mlpack's child (and its temporary folder,
    now gone: the points and edges go through pipes)."""
    import signal
    import subprocess
    import time

    parent_code = (
        "import numpy as np\n"
        "import aif360_subjective.detectors.asdf.mst as m\n"
        "m._EMST_BODY = 'import time\\ntime.sleep(120)\\n'  # a long MST\n"
        "m._emst_in_child(np.zeros((3, 2)))\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code], cwd=Path(__file__).resolve().parents[2])
    children = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
    child = None
    # generous deadlines: on a loaded machine starting two interpreters can take seconds (the loops end as soon as
    # the condition holds, so they cost nothing when the machine is idle)
    for _ in range(1200):
        text = children.read_text().split() if children.exists() else []
        if text:
            child = int(text[0])
            break
        time.sleep(0.05)
    assert child is not None, "the child process did not start"
    time.sleep(0.3)  # past the child's prologue
    parent.send_signal(signal.SIGTERM)
    parent.wait(timeout=10)

    def running(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, IndexError):
            return False
        return state not in ("Z", "X")  # a zombie has stopped running

    for _ in range(1200):
        if not running(child):
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the emst child outlived its parent")
