"""Jury verdicts and per-group own-label performance: hand-computed cases and errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.metrics import jury_verdicts
from aif360_subjective.metrics.group_own_labels import GroupOwnLabelsMetric, group_own_label_performance
from aif360_subjective.metrics.jury import jury_seats

ANNOTATORS = pd.DataFrame({"gender": ["Woman", "Woman", "Woman", "Man", "Man", "Man", np.nan]},
                          index=pd.Index(["w1", "w2", "w3", "m1", "m2", "m3", "u1"], name="annotator"))


def _dataset(rows):
    ann = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return MultiAnnotatorDataset(ann, annotators=ANNOTATORS, favorable_label=0, unfavorable_label=1)


# X: women predict (1, 1), men (0, 0); Y: women (1, 1, 0), men (0, 0, 0); Z: women (1, 0), men (0, 0, 0)
ROWS = [("X", "w1", 1), ("X", "w2", 1), ("X", "m1", 0), ("X", "m2", 0),
        ("Y", "w1", 1), ("Y", "w2", 1), ("Y", "w3", 0), ("Y", "m1", 0), ("Y", "m2", 0), ("Y", "m3", 0),
        ("Z", "w1", 1), ("Z", "w2", 0), ("Z", "m1", 0), ("Z", "m2", 0), ("Z", "m3", 0), ("Z", "u1", 1)]


def test_jury_seats():
    assert jury_seats({"a": 0.5, "b": 0.5}, 12) == {"a": 6, "b": 6}
    # 4/3 each: floors 1, 1, 1; the one seat left goes to the first largest remainder
    assert jury_seats({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, 4) == {"a": 2, "b": 1, "c": 1}
    assert jury_seats({"a": 3, "b": 1}, 4) == {"a": 3, "b": 1}  # seat counts
    with pytest.raises(ValueError, match="must sum to 1"):
        jury_seats({"a": 0.5, "b": 0.4}, 4)


def test_balanced_jury_ties_follow_the_policy():
    ds = _dataset(ROWS)
    comp = {"gender": {"Woman": 0.5, "Man": 0.5}}
    res = jury_verdicts(ds, ds, comp, jury_size=2, n_juries=50, random_state=0)
    # X: every jury = one woman (1) + one man (0): a 1-1 tie -> favourable label 0 every time
    x = res.items.loc["X"]
    assert x["verdict_share"] == 0.0 and x["median_verdict"] == 0 and x["n_candidates"] == 4
    # plain majority of X's 4 predictions: 2-2 tie -> 0: unchanged
    assert x["majority_vote"] == 0 and not x["changed"]
    res_u = jury_verdicts(ds, ds, comp, jury_size=2, n_juries=50, random_state=0, tie="unfavorable")
    assert res_u.items.loc["X", "verdict_share"] == 1.0 and res_u.items.loc["X", "median_verdict"] == 1
    assert res.seats == {"Woman": 1, "Man": 1}


def test_women_only_jury_changes_the_verdict():
    ds = _dataset(ROWS)
    res = jury_verdicts(ds, ds, {"gender": {"Woman": 1.0}}, jury_size=3, n_juries=20, random_state=1,
                        on_shortfall="skip")
    # X and Z have 2 women for 3 seats: skipped and counted
    assert res.n_skipped == 2 and sorted(res.skipped) == ["X", "Z"]
    # Y: the jury is all three women, 2 of 3 say 1 -> verdict 1 every time; plain majority 2 of 6 -> 0
    y = res.items.loc["Y"]
    assert y["verdict_share"] == 1.0 and y["median_verdict"] == 1 and y["majority_vote"] == 0 and y["changed"]
    assert res.share_changed == 1.0 and res.share_changed_vs_labels == 1.0


def test_seats_are_drawn_without_replacement():
    ds = _dataset(ROWS)
    # Z has exactly two women (1, 0): both are always seated -> a 1-1 tie -> 0 in every jury; sampling
    # with replacement would sometimes seat (1, 1)
    res = jury_verdicts(ds, ds, {"gender": {"Woman": 1.0}}, jury_size=2, n_juries=200, random_state=2)
    assert res.items.loc["Z", "verdict_share"] == 0.0
    # Y: two of its three women: (1, 1) -> 1 with probability 1/3, else a tie -> 0
    assert res.items.loc["Y", "verdict_share"] == pytest.approx(1 / 3, abs=0.1)
    big = jury_verdicts(ds, ds, {"gender": {"Woman": 1.0}}, jury_size=2, n_juries=4000, random_state=3)
    assert big.items.loc["Y", "verdict_share"] == pytest.approx(1 / 3, abs=0.025)


def test_annotator_aware_predictions_widen_the_pool():
    # the annotators labelled X as two women and two men; a model predicting for every annotator adds w3
    # (prediction 1): three women for a women-only jury of 3 -> 3 of 3 say 1 in every jury
    ds = _dataset(ROWS[:4])
    rows = ROWS[:4] + [("X", "w3", 1), ("X", "m3", 0)]
    pred = _dataset(rows)
    res = jury_verdicts(ds, pred, {"gender": {"Woman": 1.0}}, jury_size=3, n_juries=10, random_state=0)
    x = res.items.loc["X"]
    assert x["n_candidates"] == 6 and x["verdict_share"] == 1.0
    # plain majority of the 6 predictions: 3-3 -> favourable 0; the annotators' own labels: 2-2 -> 0
    assert x["majority_vote"] == 0 and x["label_majority"] == 0 and x["changed"]


def test_jury_deterministic_and_errors():
    ds = _dataset(ROWS)
    comp = {"gender": {"Woman": 1.0}}
    a = jury_verdicts(ds, ds, comp, jury_size=2, n_juries=30, random_state=5)
    b = jury_verdicts(ds, ds, comp, jury_size=2, n_juries=30, random_state=np.random.default_rng(5))
    pd.testing.assert_frame_equal(a.items, b.items)
    with pytest.raises(ValueError, match=r"composition cannot be met: item 'X' has 2 candidate\(s\) with "
                                         r"gender='Woman' for 3 seat\(s\)"):
        jury_verdicts(ds, ds, comp, jury_size=3)
    with pytest.raises(ValueError, match=r"attribute 'age' is not an annotator attribute"):
        jury_verdicts(ds, ds, {"age": {"young": 1.0}})
    with pytest.raises(ValueError, match=r"values \['Other'\] of 'gender' do not occur"):
        jury_verdicts(ds, ds, {"gender": {"Other": 1.0}})
    with pytest.raises(ValueError, match="one annotator attribute"):
        jury_verdicts(ds, ds, {"gender": {"Woman": 1.0}, "x": {}})
    with pytest.raises(ValueError, match="jury_size must be a positive int"):
        jury_verdicts(ds, ds, comp, jury_size=0)
    with pytest.raises(TypeError, match="random_state"):
        jury_verdicts(ds, ds, comp, jury_size=2, random_state="seed")


# ---------------------------------------------------------------------------------- group own labels

#   i1: G = (1, 1), H = (0, 0, 1), prediction 1;  i2: G = (1, 0) tie, H = (0, 0, 0), prediction 0
Y_TRUE = [1, 1, 0, 0, 1, 1, 0, 0, 0, 0]
Y_PRED = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
ITEMS = ["i1"] * 5 + ["i2"] * 5
GROUPS = ["G", "G", "H", "H", "H"] * 2


def test_group_own_labels_majority_by_hand():
    res = group_own_label_performance(Y_TRUE, Y_PRED, item_ids=ITEMS, groups=GROUPS)
    # G: i1 majority 1 = prediction; i2 tied -> dropped: 1/1. H: i1 majority 0 != 1, i2 0 = 0: 1/2
    assert res.table["performance"].to_dict() == {"G": 1.0, "H": 0.5}
    assert res.table.loc["G", "n_ties"] == 1 and res.table.loc["G", "n_scored"] == 1
    assert (res.worst_group, res.best_group, res.gap) == ("H", "G", 0.5)
    unfav = group_own_label_performance(Y_TRUE, Y_PRED, item_ids=ITEMS, groups=GROUPS, tie="unfavorable")
    # G's tie on i2 -> 1 != prediction 0: 1/2
    assert unfav.table["performance"].to_dict() == {"G": 0.5, "H": 0.5} and unfav.gap == 0.0


def test_group_own_labels_annotations_by_hand():
    res = group_own_label_performance(Y_TRUE, Y_PRED, item_ids=ITEMS, groups=GROUPS, against="annotations")
    # G: i1 (1, 1) vs 1 -> 2 right, i2 (1, 0) vs 0 -> 1 right: 3/4; H: i1 1 right, i2 3 right: 4/6
    assert res.table["performance"].to_dict() == pytest.approx({"G": 0.75, "H": 4 / 6})
    assert res.gap == pytest.approx(0.75 - 4 / 6)


def test_group_own_labels_errors_and_missing_groups():
    groups = list(GROUPS)
    groups[2] = None
    res = group_own_label_performance(Y_TRUE, Y_PRED, item_ids=ITEMS, groups=groups, against="annotations")
    assert res.table.attrs["n_ungrouped"] == 1 and res.table.loc["H", "n_annotations"] == 5
    with pytest.raises(ValueError, match="one label per item; item 'i1'"):
        group_own_label_performance(Y_TRUE, [0] + Y_PRED[1:], item_ids=ITEMS, groups=GROUPS)
    with pytest.raises(ValueError, match=r"y_true has 1 value\(s\) outside"):
        group_own_label_performance([2] + Y_TRUE[1:], Y_PRED, item_ids=ITEMS, groups=GROUPS)
    with pytest.raises(ValueError, match=r"against must be one of \['majority', 'annotations'\], got 'pooled'"):
        group_own_label_performance(Y_TRUE, Y_PRED, item_ids=ITEMS, groups=GROUPS, against="pooled")


def test_group_own_labels_metric_class():
    ds = _dataset(ROWS)
    item_pred = pd.Series({"X": 1, "Y": 0, "Z": 0})
    m = GroupOwnLabelsMetric(ds, ds.with_predictions(item_pred), "gender", against="annotations")
    table = m.group_performance()
    # women: X (1, 1) vs 1: 2; Y (1, 1, 0) vs 0: 1; Z (1, 0) vs 0: 1 -> 4/7; men: X 0/2, Y 3/3, Z 3/3 -> 6/8
    assert table["performance"].to_dict() == pytest.approx({"Woman": 4 / 7, "Man": 6 / 8})
    assert m.worst_group() == "Woman" and m.worst_group_gap() == pytest.approx(6 / 8 - 4 / 7)
    assert table.attrs["n_ungrouped"] == 1  # u1 has no gender


def test_dataset_and_tie_checks_are_the_shared_ones():
    ds = _dataset(ROWS)
    comp = {"gender": {"Woman": 0.5, "Man": 0.5}}

    class LooksLikeOne:  # duck typing does not pass
        item_ids = annotator_ids = np.array(["X"])
        annotators = ANNOTATORS

    with pytest.raises(TypeError, match="classified_dataset must be a MultiAnnotatorDataset .*got LooksLikeOne"):
        jury_verdicts(ds, LooksLikeOne(), comp, jury_size=2)
    with pytest.raises(ValueError, match=r"tie must be one of \['favorable', 'unfavorable'\], got 'drop'"):
        jury_verdicts(ds, ds, comp, jury_size=2, tie="drop")
    with pytest.raises(ValueError, match=r"on_shortfall must be one of \['error', 'skip'\], got 'pad'"):
        jury_verdicts(ds, ds, comp, jury_size=2, on_shortfall="pad")
    with pytest.raises(TypeError, match="classified_dataset must be a MultiAnnotatorDataset"):
        GroupOwnLabelsMetric(ds, LooksLikeOne(), "gender")
    with pytest.raises(ValueError, match=r"tie must be one of \['favorable', 'unfavorable', 'drop'\], got 'coin'"):
        group_own_label_performance([0], [0], item_ids=["X"], groups=["a"], tie="coin")
    with pytest.raises(ValueError, match=r"against must be one of \['majority', 'annotations'\], got 'x'"):
        group_own_label_performance([0], [0], item_ids=["X"], groups=["a"], against="x")
