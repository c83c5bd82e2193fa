"""Property tests: the vectorised scores equal a loop-by-loop transcription of the formulas, lie in
[0, 1], and do not depend on worker names or row order."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aif360_subjective.quality import crowdtruth_scores

EPS = 1e-8
LABELS = ["a", "b", "c"]


def naive_crowdtruth(rows, labels, open_ended=False, max_delta=0.001, max_iter=1000):
    """The formulas of ../shared/reference/README.md with plain loops (slow, obvious)."""
    vec = {}
    for u, w, cell in rows:
        v = np.zeros(len(labels))
        for lab in cell if isinstance(cell, list) else [cell]:
            v[labels.index(lab)] += 1
        vec[u, w] = v
    units, workers = {}, {}
    for u, w in vec:
        units.setdefault(u, []).append(w)
        workers.setdefault(w, []).append(u)
    wqs = dict.fromkeys(workers, 1.0)
    uqs = dict.fromkeys(units, 1.0)
    aqs = np.ones(len(labels))

    def wcos(x, y, g):
        return float(np.sum(g * x * y) / math.sqrt(np.sum(g * x * x) * np.sum(g * y * y)))

    first = None
    for _ in range(max_iter):
        new_aqs = aqs.copy()
        if not open_ended:
            num, den = np.zeros(len(labels)), np.zeros(len(labels))
            for i, j in permutations(workers, 2):
                shared = set(workers[i]) & set(workers[j])
                if not shared:
                    continue
                for a in range(len(labels)):
                    d = sum(uqs[u] * vec[u, j][a] for u in shared)
                    if d > 0:
                        n = sum(uqs[u] * vec[u, i][a] * vec[u, j][a] for u in shared)
                        num[a] += wqs[i] * wqs[j] * n / d
                        den[a] += wqs[i] * wqs[j]
            new_aqs = np.array([max(n / d, EPS) if d > EPS else EPS for n, d in zip(num, den, strict=True)])
        new_uqs = {}
        for u, ws in units.items():
            n = d = 0.0
            for x in range(len(ws)):
                for y in range(x + 1, len(ws)):
                    n += wcos(vec[u, ws[x]], vec[u, ws[y]], aqs) * wqs[ws[x]] * wqs[ws[y]]
                    d += wqs[ws[x]] * wqs[ws[y]]
            new_uqs[u] = n / max(d, EPS) if len(ws) > 1 else 0.0
        wwa, wua = {}, {}
        for i, us in workers.items():
            n = d = 0.0
            for u in us:
                for j in units[u]:
                    if j != i:
                        n += wcos(vec[u, i], vec[u, j], aqs) * wqs[j] * uqs[u]
                        d += wqs[j] * uqs[u]
            wwa[i] = n / max(d, EPS)
            n = d = 0.0
            for u in us:
                mine = wqs[i] * vec[u, i]
                # s(u) - WQS_i v_i as the sum over the unit's other workers: the subtraction would cancel
                # when the others' weight is tiny, and the cosine is scale-free, so the residue counts
                rest = sum((wqs[j] * vec[u, j] for j in units[u] if j != i), np.zeros(len(labels)))
                root = math.sqrt(np.sum(aqs * mine * mine) * np.sum(aqs * rest * rest))
                c = EPS if root < EPS else float(np.sum(aqs * mine * rest)) / root
                n += c * uqs[u]
                d += uqs[u]
            wua[i] = n / max(d, EPS)
        new_wqs = {i: wwa[i] * wua[i] for i in workers}
        delta = max(
            max(abs(new_wqs[i] - wqs[i]) for i in workers),
            max(abs(new_uqs[u] - uqs[u]) for u in units),
            float(np.max(np.abs(new_aqs - aqs))),
        )
        wqs, uqs, aqs = new_wqs, new_uqs, new_aqs
        if first is None:
            first = (dict(wqs), dict(uqs), aqs.copy())
        if delta < max_delta:
            break
    return {"wqs": wqs, "wwa": wwa, "wua": wua, "uqs": uqs, "aqs": aqs, "first": first}


label_cell = st.one_of(
    st.sampled_from(LABELS[:2]),
    st.lists(st.sampled_from(LABELS), min_size=1, max_size=3),
)


@st.composite
def jobs(draw, multiple_choice=False):
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, 4), st.integers(0, 5)), min_size=2, max_size=18, unique=True
        )
    )
    cell = label_cell if multiple_choice else st.sampled_from(LABELS[:2])
    return [(f"u{u}", f"w{w}", draw(cell)) for u, w in pairs]


def _frame(rows):
    return pd.DataFrame(rows, columns=["unit", "worker", "label"])


pytestmark = pytest.mark.filterwarnings("ignore:CrowdTruth did not converge:RuntimeWarning")
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(jobs(multiple_choice=True), st.booleans())
@pytest.mark.slow
def test_equals_loop_transcription(rows, open_ended):
    # A cap keeps rare slowly-oscillating jobs short; both sides stop at the same iteration.
    res = crowdtruth_scores(_frame(rows), labels=LABELS, open_ended=open_ended, max_iter=25)
    ref = naive_crowdtruth(rows, LABELS, open_ended=open_ended, max_iter=25)
    # A job that still oscillates after 25 iterations can sit near an unstable fixed point (e.g. two labels whose
    # AQS are equal by symmetry): the two sums' last-bit differences then grow about 2x per iteration, to ~5e-9
    # at iteration 25 ("closed-unstable-oscillation" below). Both follow the formulas; only the tolerance differs.
    atol = 1e-9 if res.converged else 1e-6
    for key in ("wqs", "wwa", "wua"):
        np.testing.assert_allclose(res.workers[key], pd.Series(ref[key])[res.workers.index], atol=atol)
    np.testing.assert_allclose(res.units["uqs"], pd.Series(ref["uqs"])[res.units.index], atol=atol)
    np.testing.assert_allclose(res.annotations["aqs"], ref["aqs"], atol=atol)
    wqs0, uqs0, aqs0 = ref["first"]
    np.testing.assert_allclose(res.workers["wqs_initial"], pd.Series(wqs0)[res.workers.index], atol=1e-9)
    np.testing.assert_allclose(res.units["uqs_initial"], pd.Series(uqs0)[res.units.index], atol=1e-9)
    np.testing.assert_allclose(res.annotations["aqs_initial"], aqs0, atol=1e-9)


# Jobs where a worker's WQS is tiny (1e-8: its unit-mates have WQS 0, so its WUA is eps) beside a worker with
# other labels: the vectorised WUA once zeroed the tiny weight of s(u) on the labels the worker did not choose
# (a round-off guard after "whole unit minus own labels"), which changes a scale-free cosine by up to 1e-4.
# Found by `HYPOTHESIS_PROFILE=explore` and a random search of 12,064 jobs (3 failures).
REGRESSIONS = {
    "open-tiny-wqs": ([("u1", "w1", ["a", "a", "b"]), ("u0", "w4", "b"), ("u1", "w3", "b"),
                       ("u2", "w0", ["a", "a", "a"]), ("u0", "w0", ["a"]), ("u1", "w5", ["b", "a"]),
                       ("u2", "w4", ["a", "c", "c"]), ("u2", "w1", ["c"]), ("u0", "w3", "a")], True),
    "closed-tiny-wqs": ([("u0", "w1", ["b", "c"]), ("u0", "w5", "b"), ("u3", "w1", ["b", "c", "c"]), ("u2", "w1", "b"),
                         ("u1", "w1", ["b", "b", "a"]), ("u0", "w3", ["a", "a"]), ("u2", "w5", "a"),
                         ("u1", "w3", ["a", "c", "c"])], False),
    "closed-multiple-choice": ([("u2", "w3", ["a"]), ("u0", "w2", ["c", "b", "c"]), ("u2", "w4", "b"),
                                ("u2", "w5", "a"), ("u1", "w2", "b"), ("u1", "w5", ["a", "b"]),
                                ("u0", "w5", ["a", "c", "a"]), ("u0", "w1", "a"), ("u0", "w0", ["a"]),
                                ("u1", "w4", ["c", "b"]), ("u2", "w1", "a"), ("u2", "w0", "b")], False),
    # the example `HYPOTHESIS_PROFILE=explore` reported (WQS differed by 1.8e-4)
    "open-hypothesis": ([("u1", "w4", ["a", "a", "b"]), ("u1", "w0", ["b", "c"]), ("u1", "w1", "a"),
                         ("u0", "w1", "b"), ("u4", "w3", "b"), ("u4", "w4", "a"), ("u4", "w0", "b"),
                         ("u0", "w2", "a"), ("u2", "w2", "a"), ("u3", "w0", "a")], True),
    # not a bug: round-off amplified by an oscillation that has not converged after 25 iterations (see the test)
    "closed-unstable-oscillation": ([("u0", "w0", "a"), ("u0", "w1", "b"), ("u0", "w2", "a"),
                                     ("u1", "w0", ["a", "a", "c"]), ("u1", "w3", ["c", "b", "b"]),
                                     ("u0", "w3", "b")], False),
}


@pytest.mark.parametrize("case", list(REGRESSIONS), ids=list(REGRESSIONS))
def test_equals_loop_transcription_regressions(case):
    rows, open_ended = REGRESSIONS[case]
    test_equals_loop_transcription.hypothesis.inner_test(rows, open_ended)


@SETTINGS
@given(jobs(), st.randoms(use_true_random=False))
@pytest.mark.slow
def test_scores_in_unit_interval_and_invariant(rows, rnd):
    res = crowdtruth_scores(_frame(rows), max_iter=25)
    for frame in (res.units, res.workers, res.annotations):
        scores = frame.drop(columns=[c for c in ("n_workers", "n_units") if c in frame]).to_numpy()
        assert (scores >= 0).all() and (scores <= 1 + 1e-12).all()
    # Rename workers in reverse order (their internal order changes) and shuffle the rows.
    names = sorted({w for _, w, _ in rows})
    rename = dict(zip(names, [f"z{k:02d}" for k in range(len(names), 0, -1)], strict=True))
    shuffled = [(u, rename[w], lab) for u, w, lab in rows]
    rnd.shuffle(shuffled)
    res2 = crowdtruth_scores(_frame(shuffled), max_iter=25)
    assert res2.n_iterations == res.n_iterations
    back = res2.workers.rename(index={v: k for k, v in rename.items()}).loc[res.workers.index]
    np.testing.assert_allclose(back.to_numpy(float), res.workers.to_numpy(float), atol=1e-9)
    np.testing.assert_allclose(res2.units.to_numpy(float), res.units.to_numpy(float), atol=1e-9)
    np.testing.assert_allclose(res2.annotations.to_numpy(float), res.annotations.to_numpy(float), atol=1e-9)
