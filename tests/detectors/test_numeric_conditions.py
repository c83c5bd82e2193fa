"""One-sided numeric conditions (issue 38): readable cuts, the items, their counts, and the slice they find."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.error_control.counters import MemberCounter
from aif360_subjective.detectors.mining.numeric_conditions import (
    check_thresholds,
    condition_text,
    cut_text,
    readable_cut,
    threshold_quantiles,
)
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns


@pytest.mark.parametrize(("below", "at", "cut"), [
    (48, 49, 49),  # integer neighbours: the value the data holds
    (45, 50, 50),  # 50 is rounder than 46..49
    (44, 47, 45),  # a multiple of 5 before 47
    (-1.3, -0.7, -1),
    (-5, 3, 0),  # zero first
    (21_399.5, 21_437.6, 21_400),
    (0.25, 0.3, 0.3),
    (1.0, 1.0000000000000002, 1.0000000000000002),  # nothing rounder fits: the value itself
])
def test_readable_cut_by_hand(below, at, cut):
    r = readable_cut(below, at)
    assert r == cut and below < r <= at


def test_readable_cut_needs_an_order():
    with pytest.raises(ValueError, match="below < at"):
        readable_cut(2.0, 2.0)


@pytest.mark.parametrize(("r", "text"), [(21_400.0, "21,400"), (-1234.5, "-1,234.5"), (0.35, "0.35"), (49.0, "49"),
                                         (1_200_000.0, "1,200,000"), (-3.0, "-3")])
def test_cut_text(r, text):
    assert cut_text(r) == text


def test_condition_text():
    assert condition_text((-np.inf, 21_400.0, False)) == "< 21,400"
    assert condition_text((49.0, np.inf, False)) == "≥ 49"
    assert condition_text((44.0, 49.0, False)) == "≥ 44 and < 49"


def test_threshold_quantiles():
    np.testing.assert_allclose(threshold_quantiles(4), [0.25, 0.5, 0.75])
    assert len(threshold_quantiles(None)) == 0


def _ages(n_each: int = 20) -> pd.DataFrame:
    return pd.DataFrame({"age": np.repeat(np.arange(100), n_each)})  # 0..99, n_each rows each


def test_integer_cuts_are_the_data_s_and_select_the_same_rows():
    X = _ages()
    items = build_items(X, [], n_bins=10, max_merge=3, thresholds=10)
    x = X["age"].to_numpy(float)
    m = items.matrix.toarray()
    one_sided = [j for j, v in enumerate(items.values) if np.isinf(v[0]) or np.isinf(v[1])]
    # the median of 0..99 (20 rows each) is 49.5: the cut the data allows is 50
    assert "age ≥ 50" in items.labels and "age < 50" in items.labels
    for j in one_sided:
        label = items.labels[j]
        cut = float(label.split()[-1].replace(",", ""))
        assert cut.is_integer(), label
        rows = x >= cut if "≥" in label else x < cut
        np.testing.assert_array_equal(rows, m[:, j])  # the displayed cut selects the item's rows
    # every range reads as people write it and selects its rows too
    for j, (label, (low, high, closed)) in enumerate(zip(items.labels, items.values, strict=True)):
        rows = (x >= low) & ((x <= high) if closed else (x < high))
        np.testing.assert_array_equal(rows, m[:, j], err_msg=label)
    assert "30 ≤ age < 50" in items.labels
    # deciles: 9 cuts on each side, 3 of each already ranges from an end (widths 1-3): 12 new items
    assert len(items.labels) == 27 + 12
    assert len(set(zip(items.lo.tolist(), items.hi.tolist(), strict=True))) == len(items.labels)  # each run once


def test_without_thresholds_the_items_are_the_ranges_as_before():
    X = _ages()
    plain = build_items(X, [], n_bins=10, max_merge=3)
    assert plain.labels[0] == "age ∈ [0, 9.9)" and len(plain.labels) == 27
    with_thr = build_items(X, [], n_bins=10, max_merge=3, thresholds=20)
    # the ranges select the same rows with or without thresholds (the base bins refine the deciles)
    np.testing.assert_array_equal(with_thr.matrix.toarray()[:, :27], plain.matrix.toarray())


def test_counts_through_corner_sums_are_the_members_counts():
    rng = np.random.default_rng(0)
    n = 1500
    X = pd.DataFrame({"c": rng.choice(list("abc"), n), "age": rng.integers(18, 90, n),
                      "income": rng.lognormal(10, 0.5, n)})
    mp = mine_patterns(build_items(X, ["c"], thresholds=20), 15, 3)
    counter = mp.counter()
    assert counter._corner_A is not None  # the long runs are counted through corners
    Y = (rng.random((n, 4)) < 0.3).astype(np.uint8)
    np.testing.assert_array_equal(counter.count(Y), MemberCounter(mp.members()).count(Y))  # exact integers
    W = rng.normal(size=(n, 2))
    np.testing.assert_allclose(counter.count(W), MemberCounter(mp.members()).count(W), rtol=0, atol=1e-9)


def test_condition_table_shows_one_sided_conditions():
    X = _ages().assign(c=np.tile(["a", "b"], 1000))
    mp = mine_patterns(build_items(X, ["c"], thresholds=10), 50, 2)
    i = [mp.description(k) for k in range(len(mp.patterns))].index("age ≥ 50 AND c=a")
    row = mp.condition_table().loc[i]
    assert row["age"] == "≥ 50" and row["c"] == "a"
    assert mp.conditions(i)["age"] == (50.0, np.inf, False)


def test_one_valued_numeric_column_is_stated():
    X = _ages().assign(k=3.0)
    items = build_items(X, [], thresholds=10)
    assert any("'k' holds one value (3)" in note for note in items.notes)
    assert [lab for lab, col in zip(items.labels, items.column, strict=True) if col == 1] == ["k=3.0"]


def test_categorical_columns_get_no_one_sided_conditions():
    X = _ages()
    items = build_items(X, ["age"], thresholds=10)  # declared categorical: one item per value
    assert not any("≥" in lab or "<" in lab for lab in items.labels)
    assert any("'age' is in categorical_features" in note for note in items.notes)  # said, not silent
    assert build_items(X, ["age"]).notes == ()  # without thresholds nothing was asked for


def test_the_report_says_which_columns_have_no_one_sided_conditions():
    X = _ages().assign(k=3.0)
    rep = detect_subgroups(X, np.tile([0, 1], 1000), np.tile([0, 1], 1000), discovery="patterns",
                           n_permutations=19)
    assert "'k' holds one value (3): no one-sided condition cuts it." in rep.mining_note()
    assert detect_subgroups(X, np.tile([0, 1], 1000), np.tile([0, 1], 1000), discovery="patterns",
                            n_permutations=19, thresholds=None).mining_note() == ""


@pytest.mark.parametrize(("value", "error", "match"), [
    (1, ValueError, ">= 2"), (2.5, TypeError, "int"), (True, TypeError, "int"),
    (5000, ValueError, "finer than the 2,000 rows"),
])
def test_bad_thresholds(value, error, match):
    with pytest.raises(error, match=match):
        check_thresholds(value, 2000)
    X = _ages()
    with pytest.raises(error, match="thresholds"):
        detect_subgroups(X, np.zeros(len(X), int), np.zeros(len(X), int), discovery="patterns", thresholds=value)


def _planted(seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """2,000 rows; errors 0.45 in ``colour=g AND age ≥ 50`` (250 rows), 0.1 elsewhere."""
    rng = np.random.default_rng(seed)
    X = _ages().assign(colour=np.tile(list("rgby"), 500), other=rng.choice(list("xyz"), 2000))
    X = X.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    s = (X["colour"].to_numpy() == "g") & (X["age"].to_numpy() >= 50)
    t = rng.integers(0, 2, len(X))
    p = np.where(rng.random(len(X)) < np.where(s, 0.45, 0.1), 1 - t, t)
    return X, t, p, s


@pytest.mark.parametrize("seed", [0, 1])
def test_the_slice_is_the_first_finding(seed):
    X, t, p, s = _planted(seed)
    rep = detect_subgroups(X, t, p, discovery="patterns", random_state=0)
    found = rep.findings()
    err = found[(found["metric"] == "accuracy_error") & (found["direction"] == "disadvantaged")]
    assert err["description"].iloc[0] == "age ≥ 50 AND colour=g"
    np.testing.assert_array_equal(rep.members(err["kind"].iloc[0], err["id"].iloc[0]), s)
    # its diluted parent is significant too, but comes after it and is left out by the redundancy filter (its
    # other rows are treated like everyone else)
    every = rep.findings(keep_redundant=True)
    every = every[(every["metric"] == "accuracy_error") & (every["direction"] == "disadvantaged")]
    assert every["description"].tolist().index("colour=g") > 0
    assert "colour=g" not in err["description"].tolist()


def test_without_thresholds_the_slice_cannot_be_written():
    X, t, p, s = _planted(0)
    rep = detect_subgroups(X, t, p, discovery="patterns", random_state=0, thresholds=None)
    found = rep.findings()
    assert "age ≥ 50 AND colour=g" not in found["description"].tolist()


def _task_outcome(task: str, s: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Errors much larger in the slice ``s``: regression noise x 3, multi-class errors 0.1 -> 0.6, ordinal ratings
    one off 0.1 -> 0.7."""
    rng = np.random.default_rng(seed)
    n = len(s)
    if task == "regression":
        y = rng.normal(size=n)
        return y, y + np.where(s, 3.0, 1.0) * rng.normal(size=n)
    if task == "multiclass":
        y = rng.integers(0, 3, n)
        wrong = rng.random(n) < np.where(s, 0.6, 0.1)
        names = np.array(["cat", "dog", "fox"])
        return names[y], names[np.where(wrong, (y + rng.integers(1, 3, n)) % 3, y)]
    y = rng.integers(2, 5, n)  # 2..4 on a 1..5 scale: one off either way stays on it
    off = rng.random(n) < np.where(s, 0.7, 0.1)
    return y, np.where(off, y + np.where(rng.random(n) < 0.5, -1, 1), y)


@pytest.mark.parametrize(("task", "metric"), [("regression", "mean_absolute_error"),
                                              ("multiclass", "accuracy_error"),
                                              ("ordinal", "mean_absolute_error")])
@pytest.mark.parametrize("grouped", [False, True])
def test_every_task_finds_the_slice_first(task, metric, grouped):
    X, _, _, s = _planted(0)
    y, yh = _task_outcome(task, s, 1)
    groups = np.arange(len(X)) // 2 if grouped else None  # pairs of rows as clusters: permuted and resampled whole
    rep = detect_subgroups(X, y, yh, task=task, discovery="patterns", random_state=0, groups=groups)
    found = rep.findings()
    err = found[(found["metric"] == metric) & (found["direction"] == "disadvantaged")]
    assert err["description"].iloc[0] == "age ≥ 50 AND colour=g"
    np.testing.assert_array_equal(rep.members(err["kind"].iloc[0], err["id"].iloc[0]), s)


def test_the_answer_says_how_findings_tied_at_the_floor_are_ordered():
    from aif360_subjective.report.answer import subgroup_answer

    X, t, p, _ = _planted(0)
    rep = detect_subgroups(X, t, p, discovery="patterns", random_state=0)
    floor = 1 / (rep.options.n_permutations + 1)
    n_tied = int(np.isclose(rep.findings()["p_adjusted"], floor).sum())
    assert n_tied > 1
    text = " ".join(subgroup_answer(rep).lines)
    assert f"{n_tied:,} findings share that floor" in text and "listed by the max-T statistic" in text
