"""The package's one max-T tail (aif360_subjective._maxt), on nulls small enough to write out."""

import numpy as np
import pytest

from aif360_subjective._maxt import (
    TIE,
    ClassNull,
    StepDown,
    balanced_offsets,
    class_tail,
    count_at_least,
    critical_value,
    p_from_counts,
    step_down,
    tail_p,
    tie_tolerance,
)


def _brute_step_down(s: np.ndarray, null: np.ndarray, exact: bool) -> np.ndarray:
    """Westfall-Young's free step-down written as the loop of its definition."""
    order = sorted((i for i in range(len(s)) if np.isfinite(s[i])), key=lambda i: -s[i])
    out = np.full(len(s), np.nan)
    running = 0.0
    for j, i in enumerate(order):
        still = order[j:]  # the hypotheses not rejected before i
        count = sum(1 for b in range(len(null)) if max(null[b, k] for k in still) >= s[i] - TIE * max(1, abs(s[i])))
        running = max(running, (count + (0 if exact else 1)) / (len(null) + (0 if exact else 1)))
        out[i] = running
    return out


def test_tie_tolerance_is_relative_and_never_below_tie():
    got = tie_tolerance(np.array([0.0, 0.5, -3.0, 2000.0, np.inf, -np.inf, np.nan]))
    np.testing.assert_allclose(got, [1e-9, 1e-9, 3e-9, 2e-6, 0.0, 0.0, 0.0], rtol=1e-15, atol=0)


def test_plus_one_rule():
    assert p_from_counts(2, 4, exact=True) == 0.5  # every arrangement enumerated: the identity among them
    assert p_from_counts(2, 4, exact=False) == pytest.approx(3 / 5)  # Monte Carlo: the data count once more
    assert p_from_counts(0, 19, exact=False) == pytest.approx(0.05)  # never 0


def test_counts_and_p_values_by_hand_with_ties_at_the_threshold():
    null = np.array([1.0, 2.0, 2.0, 3.0, np.nan])  # a NaN draw is a draw that never counts
    assert count_at_least(null, 2.0) == 3
    assert count_at_least(null, 2.0 + 1e-10) == 3  # a tie up to rounding counts
    assert count_at_least(null, 2.0 + 3e-9) == 1  # beyond the tolerance (2e-9 at 2): no longer a tie
    assert count_at_least(null, 2.0 + 2e-9) == 3  # exactly at the tolerance: still counted (>=)
    assert count_at_least(null, -np.inf) == 4 and count_at_least(null, np.nan) == 0
    np.testing.assert_allclose(tail_p([2.0, 3.5], null, exact=True), [3 / 5, 0 / 5])
    np.testing.assert_allclose(tail_p([2.0, 3.5], null, exact=False), [4 / 6, 1 / 6])
    assert np.isnan(tail_p(np.nan, null, True)[0]) and np.isnan(tail_p(1.0, np.zeros(0), False)[0])
    # relative: at 2000 a draw 1e-6 below ties, 3e-6 below does not
    assert count_at_least(np.array([2000.0 - 1e-6, 2000.0 - 3e-6]), 2000.0) == 1


def test_critical_value_by_hand_and_its_meaning():
    null = np.array([1.0, 2.0, 2.0, 3.0])
    # exact: k = floor(alpha B) draws allowed at or above; c the (k + 1)-th largest
    assert critical_value(null, 0.5, exact=True) == 2.0
    assert critical_value(null, 0.25, exact=True) == 2.0
    assert critical_value(null, 0.1, exact=True) == 3.0
    assert critical_value(null, 1.0, exact=True) == -np.inf
    # Monte Carlo: the observed arrangement is one more, at +inf: k = floor(alpha (B + 1)) - 1 of the draws
    assert critical_value(null, 0.5, exact=False) == 2.0
    assert critical_value(null, 0.25, exact=False) == 3.0
    assert critical_value(null, 0.1, exact=False) == np.inf  # 1/5 is the smallest p
    assert critical_value(np.full(4, np.nan), 0.5, exact=True) == np.inf
    for alpha in (0.2, 0.25, 0.4, 0.5, 0.75):
        for exact in (True, False):
            c = critical_value(null, alpha, exact)
            for s in (0.5, 1.0, 1.5, 2.0, 2.0 + 1e-10, 2.0 + 1e-8, 2.5, 3.0, 3.5):
                assert (tail_p(s, null, exact)[0] <= alpha) == (s - tie_tolerance(s) > c), (alpha, exact, s)


def test_balanced_offsets_by_hand():
    class_max = np.array([[1.0, 5.0], [3.0, 7.0], [2.0, 6.0]])
    np.testing.assert_array_equal(balanced_offsets(class_max, np.array([10.0, 0.0]), exact=True), [2.0, 6.0])
    # Monte Carlo: the observed arrangement joins the draws: medians of (1, 3, 2, 10) and (5, 7, 6, 0)
    np.testing.assert_array_equal(balanced_offsets(class_max, np.array([10.0, 0.0]), exact=False), [2.5, 5.5])
    np.testing.assert_array_equal(balanced_offsets(class_max, np.array([10.0, 0.0]), False, balanced=False), [0, 0])
    mostly_none = np.array([[-np.inf], [-np.inf], [1.0]])
    np.testing.assert_array_equal(balanced_offsets(mostly_none, np.array([-np.inf]), exact=False), [0.0])


def test_class_tail_single_step_by_hand():
    class_max = np.array([[1.0, 5.0], [3.0, 7.0], [2.0, 6.0]])
    classes = np.array([0, 0, 1])
    observed = np.array([4.0, 1.0, 8.0])
    tail = class_tail(class_max, classes, observed, 0.5, exact=False)
    # offsets: medians of (1, 3, 2, 4) and (5, 7, 6, 8); statistics 1.5, -1.5, 1.5
    np.testing.assert_array_equal(tail.offset, [2.5, 2.5, 6.5])
    # null maxima of the offset statistics: -1.5, 0.5, -0.5
    np.testing.assert_allclose(tail.p_adjusted, [1 / 4, 4 / 4, 1 / 4])
    assert tail.critical_value == -0.5  # k = floor(0.5 * 4) - 1 = 1: the second largest draw
    plain = class_tail(class_max, classes, observed, 0.5, exact=False, balanced=False)
    # no offsets: null maxima 5, 7, 6
    np.testing.assert_allclose(plain.p_adjusted, [4 / 4, 4 / 4, 1 / 4])
    assert (plain.offset == 0).all() and plain.critical_value == 6.0


def test_step_down_by_hand_rejects_what_the_single_step_misses():
    s = np.array([3.0, 2.0])
    null = np.array([[3.5, 0.0], [2.5, 0.0], [0.0, 2.5], [0.0, 0.0]])
    single = tail_p(s, null.max(axis=1), exact=False)
    np.testing.assert_allclose(single, [2 / 5, 4 / 5])
    # H2's successive maximum is over H2 alone: 0, 0, 2.5, 0 -> one draw reaches 2
    np.testing.assert_allclose(step_down(s, null, exact=False), [2 / 5, 2 / 5])
    np.testing.assert_allclose(step_down(s, null, exact=True), [1 / 4, 1 / 4])
    # the monotone step: a later hypothesis never gets a smaller p than an earlier one
    np.testing.assert_allclose(step_down(np.array([3.0, 2.0]), np.array([[0.0, 2.5], [3.5, 2.5]]), True), [0.5, 1.0])


@pytest.mark.parametrize("seed", range(6))
def test_step_down_equals_the_loop_and_its_short_head_is_conservative(seed):
    rng = np.random.default_rng(seed)
    m, B = 7, 25
    s = np.round(rng.normal(size=m) * 1.5 + 1, 1)
    s[rng.integers(m)] = np.nan
    null = np.round(rng.normal(size=(B, m)), 1)  # rounded: ties with the observed values happen
    for exact in (True, False):
        want = _brute_step_down(s, null, exact)
        np.testing.assert_allclose(step_down(s, null, exact), want)
        short = StepDown(s, head=2)
        short.add(null[:10])
        short.add(null[10:])
        got = short.adjusted(B, exact)
        order = np.argsort(-np.where(np.isnan(s), -np.inf, s), kind="stable")
        np.testing.assert_allclose(got[order[:2]], want[order[:2]])
        assert np.all(got[~np.isnan(s)] >= want[~np.isnan(s)] - 1e-12)
        assert np.isnan(got[np.isnan(s)]).all()


@pytest.mark.parametrize("seed", range(6))
def test_class_step_down_on_offset_statistics_equals_the_loop(seed):
    rng = np.random.default_rng(10 + seed)
    m, B, n_classes = 12, 30, 3
    classes = rng.integers(0, n_classes, m)
    classes[:n_classes] = np.arange(n_classes)
    observed = np.round(rng.normal(size=m) + 1.0, 1)
    stats = np.round(rng.normal(size=(m, B)), 1)
    stats[rng.random((m, B)) < 0.05] = np.nan  # undefined under a draw: never the maximum
    for exact in (True, False):
        null = ClassNull(observed, classes, n_classes, keep=m)
        for b0 in range(0, B, 8):
            null.add(stats[:, b0:b0 + 8].copy())
        single = class_tail(null.class_max, classes, observed, 0.05, exact)
        sd = class_tail(null.class_max, classes, observed, 0.05, exact, step_down=null, head=m)
        s = observed - single.offset
        want = _brute_step_down(s, np.where(np.isfinite(stats), stats, -np.inf).T - single.offset[None, :], exact)
        np.testing.assert_allclose(sd.p_adjusted, want)
        assert np.all(sd.p_adjusted <= single.p_adjusted + 1e-12)
        top = np.argmax(s)
        assert sd.p_adjusted[top] == single.p_adjusted[top]
        np.testing.assert_array_equal(sd.offset, single.offset)
        assert sd.critical_value == single.critical_value
        # a short head per class: exact for the first candidates, single step after, never below the full step-down
        few = ClassNull(observed, classes, n_classes, keep=2)
        for b0 in range(0, B, 8):
            few.add(stats[:, b0:b0 + 8].copy())
        short = class_tail(few.class_max, classes, observed, 0.05, exact, step_down=few, head=2)
        assert np.all(short.p_adjusted >= want - 1e-12) and np.all(short.p_adjusted <= single.p_adjusted + 1e-12)
        first = np.argsort(-s, kind="stable")[:2]
        np.testing.assert_allclose(short.p_adjusted[first], want[first])


def test_class_null_keeps_what_it_was_asked_for():
    null = ClassNull(np.array([1.0, np.nan, 2.0]), np.array([0, 0, 1]), 2)
    null.add(np.array([[0.5, 1.5], [np.nan, 3.0], [1.0, -1.0]]))
    np.testing.assert_array_equal(null.class_max, [[0.5, 1.0], [3.0, -1.0]])
    with pytest.raises(ValueError, match="keep > 0"):
        null.kept_null()
    with pytest.raises(ValueError, match="head=3"):
        class_tail(null.class_max, np.array([0, 0, 1]), np.array([1.0, np.nan, 2.0]), 0.05, False,
                   step_down=ClassNull(np.zeros(3), np.array([0, 0, 1]), 2, keep=2), head=3)
