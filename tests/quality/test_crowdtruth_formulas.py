"""Every CrowdTruth formula on small cases computed by hand (first iteration = the ``_initial`` values).

In the first iteration every WQS, UQS and AQS is 1, so cosines are plain cosines of label counts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.quality import crowdtruth_scores

EPS = 1e-8


def _df(rows):
    return pd.DataFrame(rows, columns=["unit", "worker", "label"])


@pytest.fixture(scope="module")
def three_workers():
    """u1: w1=a, w2=a, w3=b; u2: w1=a, w2=b."""
    df = _df([("u1", "w1", "a"), ("u1", "w2", "a"), ("u1", "w3", "b"), ("u2", "w1", "a"), ("u2", "w2", "b")])
    return crowdtruth_scores(df, keep_history=True)


def test_uqs_initial(three_workers):
    # u1: pairs (w1,w2) cos 1, (w1,w3) 0, (w2,w3) 0 -> 1/3; u2: one pair, cos 0 -> 0.
    u = three_workers.units
    assert u.loc["u1", "uqs_initial"] == pytest.approx(1 / 3, abs=1e-12)
    assert u.loc["u2", "uqs_initial"] == 0.0


def test_wwa_initial(three_workers):
    # w1: u1 others (w2: 1, w3: 0), u2 (w2: 0) -> 1 / 3; w2: 1 / 3 likewise; w3: 0 / 2.
    w = three_workers.workers
    assert w.loc["w1", "wwa_initial"] == pytest.approx(1 / 3, abs=1e-12)
    assert w.loc["w2", "wwa_initial"] == pytest.approx(1 / 3, abs=1e-12)
    assert w.loc["w3", "wwa_initial"] == 0.0


def test_wua_initial(three_workers):
    # u1: s = (a 2, b 1); w1: s - v = (1, 1) -> cos 1/sqrt2; u2: s = (1, 1), s - v1 = (0, 1) -> 0.
    # WUA(w1) = (1/sqrt2 + 0) / 2, same for w2; w3 on u1: s - v3 = (2, 0) -> 0.
    w = three_workers.workers
    assert w.loc["w1", "wua_initial"] == pytest.approx(1 / (2 * math.sqrt(2)), abs=1e-12)
    assert w.loc["w2", "wua_initial"] == pytest.approx(1 / (2 * math.sqrt(2)), abs=1e-12)
    assert w.loc["w3", "wua_initial"] == 0.0


def test_wqs_is_wwa_times_wua(three_workers):
    w = three_workers.workers
    assert w.loc["w1", "wqs_initial"] == pytest.approx(1 / (6 * math.sqrt(2)), abs=1e-12)
    np.testing.assert_allclose(w["wqs"], w["wwa"] * w["wua"], rtol=1e-15)
    np.testing.assert_allclose(w["wqs_initial"], w["wwa_initial"] * w["wua_initial"], rtol=1e-15)


def test_aqs_initial(three_workers):
    # Label a, ordered pairs (i, j) with D_ij = sum_shared v_j[a] > 0:
    #   (w1,w2): D 1, N 1 -> 1; (w2,w1): D 2, N 1 -> 1/2; (w3,w1): 1 -> 0; (w3,w2): 0  => 3/8.
    # Label b: (w1,w2) 0, (w1,w3) 0, (w2,w3) 0 => 0, floored at eps.
    a = three_workers.annotations
    assert a.loc["a", "aqs_initial"] == pytest.approx(3 / 8, abs=1e-12)
    assert a.loc["b", "aqs_initial"] == EPS


def test_uas(three_workers):
    u, w = three_workers.units, three_workers.workers
    assert u.loc["u1", "uas_a_initial"] == pytest.approx(2 / 3)
    assert u.loc["u2", "uas_b_initial"] == pytest.approx(1 / 2)
    # Final UAS: WQS-weighted share of the workers choosing the label.
    expected = (w.loc["w1", "wqs"] + w.loc["w2", "wqs"]) / w["wqs"].sum()
    assert u.loc["u1", "uas_a"] == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(u[["uas_a", "uas_b"]].sum(axis=1), 1.0, rtol=1e-12)


def test_second_iteration_uses_previous_values(three_workers):
    # Iteration 2, UQS(u1): weighted cosine with AQS (3/8, eps) of iteration 1: one-hot vectors still
    # have cosine 1 (same label) or 0, so UQS = w1 w2 / (w1 w2 + w1 w3 + w2 w3) with iteration-1 WQS.
    h = three_workers.history
    it1 = h[h.iteration == 1].set_index(["kind", "id"])["value"]
    it2 = h[h.iteration == 2].set_index(["kind", "id"])["value"]
    w1, w2, w3 = (it1[("wqs", k)] for k in ("w1", "w2", "w3"))
    assert w3 == 0.0
    # w3 has WQS 0 so the denominator is w1 w2 and UQS(u1) = 1.
    assert it2[("uqs", "u1")] == pytest.approx(w1 * w2 / (w1 * w2 + w1 * w3 + w2 * w3), abs=1e-12)
    assert it2[("uqs", "u1")] == pytest.approx(1.0, abs=1e-12)


def test_one_worker_unit_and_zero_quality_worker():
    """A unit with one worker gets UQS 0; a worker whose units all have UQS 0 gets WQS 0."""
    df = _df(
        [
            ("u1", "w1", "a"), ("u1", "w2", "a"), ("u1", "w3", "a"),
            ("u2", "w1", "b"), ("u2", "w2", "b"), ("u2", "w3", "a"),
            ("solo", "w4", "a"),  # w4's only unit has one worker
            ("split", "w5", "a"), ("split", "w6", "b"),  # full disagreement: UQS 0
            ("solo2", "w5", "b"),
        ]
    )  # fmt: skip
    res = crowdtruth_scores(df)
    u, w = res.units, res.workers
    assert u.loc["solo", "uqs"] == 0.0 and u.loc["solo", "uqs_initial"] == 0.0
    assert u.loc["split", "uqs"] == 0.0 and u.loc["solo2", "uqs"] == 0.0
    for worker in ("w4", "w5", "w6"):
        assert w.loc[worker, "wqs"] == 0.0, worker
    # w4 in iteration 1: no other worker -> WWA 0/eps = 0; s(u) - v = 0 -> cosine eps -> WUA eps.
    assert w.loc["w4", "wwa_initial"] == 0.0
    assert w.loc["w4", "wua_initial"] == EPS
    # Afterwards its unit has UQS 0: WUA = eps * 0 / max(eps, 0) = 0.
    assert w.loc["w4", "wua"] == 0.0
    assert (w.loc[["w1", "w2", "w3"], "wqs"] > 0.3).all()
    # UAS with WQS 0 workers only: denominator floored at eps, numerator 0.
    assert u.loc["solo", "uas_a"] == 0.0 and u.loc["solo", "uas_a_initial"] == 1.0


def test_multiple_choice_first_iteration():
    """w1 chose {a, b}, w2 chose {a} on one unit, labels [a, b, c]."""
    df = _df([("u", "w1", ["a", "b"]), ("u", "w2", ["a"])])
    res = crowdtruth_scores(df, labels=["a", "b", "c"], keep_history=True)
    r2 = 1 / math.sqrt(2)
    assert res.units.loc["u", "uqs_initial"] == pytest.approx(r2, abs=1e-12)  # cos((1,1,0),(1,0,0))
    w = res.workers
    np.testing.assert_allclose(w["wwa_initial"], [r2, r2], atol=1e-12)
    # s = (2, 1, 0): w1: s - v = (1, 0, 0) -> 1/sqrt2; w2: s - v = (1, 1, 0) -> 1/sqrt2.
    np.testing.assert_allclose(w["wua_initial"], [r2, r2], atol=1e-12)
    np.testing.assert_allclose(w["wqs_initial"], [0.5, 0.5], atol=1e-12)
    # AQS a: (w1,w2) 1, (w2,w1) 1 -> 1; b: only (w2,w1) has D > 0, N = 0 -> eps; c: no pair -> eps.
    np.testing.assert_allclose(res.annotations["aqs_initial"], [1.0, EPS, EPS], rtol=1e-12)
    # Iteration 2: weighted cosine with AQS (1, eps, eps): 1 / sqrt((1 + eps) * 1).
    h = res.history
    uqs2 = h[(h.iteration == 2) & (h.kind == "uqs")]["value"].iloc[0]
    assert uqs2 == pytest.approx(1 / math.sqrt(1 + EPS), abs=1e-15)
    assert res.units.loc["u", "uas_b_initial"] == 0.5
    assert res.units.loc["u", "uas_c"] == 0.0


def test_open_ended_keeps_aqs_one():
    df = _df([("u", "w1", ["a", "b"]), ("u", "w2", ["a"]), ("v", "w1", "x"), ("v", "w2", "x")])
    res = crowdtruth_scores(df, open_ended=True, keep_history=True)
    assert (res.annotations["aqs"] == 1.0).all() and (res.annotations["aqs_initial"] == 1.0).all()
    # With AQS fixed at 1 the cosine stays the plain one: UQS(u) = 1/sqrt2 in every iteration.
    h = res.history
    np.testing.assert_allclose(h[(h.kind == "uqs") & (h.id == "u")]["value"], 1 / math.sqrt(2), atol=1e-12)
    assert list(res.annotations.index) == ["a", "b", "x"]


def test_repeated_label_in_a_cell_counts_twice():
    # As the reference's Counter: ["a", "a"] is the vector (2, 0); the cosine with (1, 0) is still 1.
    df = _df([("u", "w1", ["a", "a"]), ("u", "w2", "a"), ("u", "w3", "b")])
    res = crowdtruth_scores(df)
    assert res.units.loc["u", "uqs_initial"] == pytest.approx(1 / 3)
    assert res.units.loc["u", "uas_a_initial"] == pytest.approx(3 / 3)


def test_stopping_rule_and_log():
    df = _df([("u1", "w1", "a"), ("u1", "w2", "a"), ("u1", "w3", "b"), ("u2", "w1", "a"), ("u2", "w2", "b")])
    res = crowdtruth_scores(df, max_delta=0.001)
    assert res.log["max_delta"].iloc[-1] < 0.001
    assert (res.log["max_delta"].iloc[:-1] >= 0.001).all()
    coarse = crowdtruth_scores(df, max_delta=0.5)
    assert coarse.n_iterations <= res.n_iterations
    assert coarse.log["max_delta"].iloc[-1] < 0.5


def test_max_iter_warns():
    df = _df([("u1", "w1", "a"), ("u1", "w2", "a"), ("u1", "w3", "b"), ("u2", "w1", "a"), ("u2", "w2", "b")])
    with pytest.warns(RuntimeWarning, match="max_iter=2"):
        res = crowdtruth_scores(df, max_iter=2)
    assert res.n_iterations == 2 and not res.converged


def test_oscillating_job_stops_at_max_iter():
    """A job on which the reference's loop never ends: the scores flip between two states."""
    rows = [
        ("u0", "w4", ["l1"]), ("u1", "w1", ["l1"]), ("u1", "w4", ["l1"]), ("u1", "w0", ["l0"]),
        ("u2", "w1", ["l0"]), ("u2", "w0", ["l0"]), ("u3", "w1", ["l1"]), ("u3", "w3", ["l0"]),
        ("u3", "w4", ["l1", "l0"]), ("u3", "w5", ["l0"]), ("u3", "w2", ["l0"]),
    ]  # fmt: skip
    with pytest.warns(RuntimeWarning, match="did not converge") as caught:
        res = crowdtruth_scores(_df(rows), max_iter=40)
    assert caught[0].filename == __file__  # attributed to the caller, not to the package's own frames
    assert not res.converged and res.n_iterations == 40
    tail = res.log["max_delta"].iloc[-4:]
    assert (tail > 0.5).all()  # a period-2 cycle: the scores keep jumping back and forth
