"""The shared label concepts (aif360_subjective._labels) and boundary checks (aif360_subjective._validation)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective._labels import (
    FN,
    FP,
    TN,
    TP,
    binary_entropy,
    cell_codes,
    confusion_counts,
    majority_vote,
    ratio,
    vote_counts,
)
from aif360_subjective._validation import (
    check_choice,
    check_columns,
    check_fraction,
    check_int,
    check_random_state,
    is_number,
)
from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.datasets.multi_annotator import check_multi_annotator_dataset, is_multi_annotator_dataset
from aif360_subjective.opinion.annotations import encode_annotations, item_vote_counts


# ------------------------------------------------------------------------------------------------ labels
def test_vote_counts_and_majority_vote_hand_computed():
    # items 0..3 with labels: [1, 1, 0] -> 2 of 3; [1, 0] -> tie; [0, 0] -> 0 of 2; [1] -> 1 of 1
    codes = np.array([0, 0, 0, 1, 1, 2, 2, 3])
    pos = np.array([1, 1, 0, 1, 0, 0, 0, 1], dtype=bool)
    n, n_pos = vote_counts(codes, pos, 4)
    np.testing.assert_array_equal(n, [3, 2, 2, 1])
    np.testing.assert_array_equal(n_pos, [2, 1, 0, 1])
    np.testing.assert_array_equal(majority_vote(n, n_pos, "favorable"), [1.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(majority_vote(n, n_pos, "unfavorable"), [1.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(majority_vote(n, n_pos, "drop"), [1.0, np.nan, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"tie must be one of \['favorable', 'unfavorable', 'drop'\], got 'coin'"):
        majority_vote(n, n_pos, "coin")


@pytest.mark.parametrize("tie", ["favorable", "unfavorable", "drop"])
def test_one_majority_vote_for_the_dataset_and_the_opinion_core(tie):
    """MultiAnnotatorDataset.majority_labels and the opinion core's vote are the same definition."""
    rng = np.random.default_rng(0)
    items = rng.integers(0, 40, 400)
    anns = rng.integers(0, 30, 400)
    df = pd.DataFrame({"item": items, "annotator": anns}).drop_duplicates().reset_index(drop=True)
    df["label"] = rng.integers(0, 2, len(df))
    ds = MultiAnnotatorDataset(df, favorable_label=0, unfavorable_label=1)
    enc = encode_annotations(df["label"], df["label"], df["item"], df["annotator"], pos_label=0)
    core = majority_vote(*item_vote_counts(enc), tie)[enc.item_codes]  # 1.0 = favourable (0)
    dataset = ds.majority_labels(tie)
    expected = np.where(core == 1.0, 0.0, np.where(core == 0.0, 1.0, np.nan))
    np.testing.assert_array_equal(dataset, expected)


def test_binary_entropy_hand_computed():
    h = binary_entropy(np.array([0.0, 0.5, 1.0, 0.25]))
    np.testing.assert_allclose(h, [0.0, 1.0, 0.0, -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75))])
    assert not np.signbit(h[[0, 2]]).any()  # no -0.0


def test_confusion_counts_hand_computed():
    t = np.array([1, 1, 0, 0, 1, 0], dtype=bool)
    p = np.array([1, 0, 1, 0, 1, 1], dtype=bool)
    cells = cell_codes(t, p)
    np.testing.assert_array_equal(cells, [TP, FN, FP, TN, TP, FP])
    counts = confusion_counts(np.array([0, 0, 0, 1, 1, 1]), 2, cells)
    # unit 0: TP 1, FN 1, FP 1; unit 1: TN 1, TP 1, FP 1 -- columns TN, FP, FN, TP
    np.testing.assert_array_equal(counts, [[0, 1, 1, 1], [1, 1, 0, 1]])
    weighted = confusion_counts(np.zeros(6, dtype=int), 1, cells, weights=np.arange(1.0, 7.0))
    np.testing.assert_array_equal(weighted, [[4, 3 + 6, 2, 1 + 5]])


def test_ratio_undefined_is_fill():
    np.testing.assert_array_equal(ratio([1.0, 2.0, 0.0], [2.0, 0.0, 0.0]), [0.5, np.nan, np.nan])
    np.testing.assert_array_equal(ratio([1.0, 2.0], [0.0, 4.0], fill=1.0), [1.0, 0.5])


# ------------------------------------------------------------------------------------------------ validation
def test_check_choice_one_argument_order():
    assert check_choice("a", "mode", ("a", "b")) == "a"
    with pytest.raises(ValueError, match=r"^mode must be one of \['a', 'b'\], got 'c'$"):
        check_choice("c", "mode", ("a", "b"))
    with pytest.raises(ValueError, match=r"got 3$"):
        check_choice(np.int64(3), "mode", ("a", "b"))  # plain value, not np.int64(3)


def test_numbers_and_booleans():
    assert is_number(1) and is_number(1.5) and is_number(np.float32(2)) and is_number(np.int8(1))
    assert not is_number(True) and not is_number(np.bool_(False)) and not is_number("1")
    assert check_int(np.int64(3), "k", low=1) == 3
    with pytest.raises(TypeError, match=r"k must be an int >= 1, got 1.5"):
        check_int(1.5, "k", low=1)
    with pytest.raises(TypeError, match=r"k must be an int"):
        check_int(True, "k")
    with pytest.raises(ValueError, match=r"k must be >= 1, got 0"):
        check_int(0, "k", low=1)
    with pytest.raises(ValueError, match=r"k must be <= 5, got 6"):
        check_int(6, "k", high=5)


def test_check_fraction():
    assert check_fraction(0, "f") == 0.0 and check_fraction(np.float64(1.0), "f") == 1.0
    with pytest.raises(TypeError, match=r"f must be a number in \[0, 1\], got 'x'"):
        check_fraction("x", "f")
    with pytest.raises(TypeError, match=r"got True"):
        check_fraction(True, "f")
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"f must be in \[0, 1\]"):
            check_fraction(bad, "f")


def test_check_random_state_never_global_and_rejects_bools():
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    assert check_random_state(5).integers(0, 1000) == np.random.default_rng(5).integers(0, 1000)
    assert isinstance(check_random_state(None), np.random.Generator)
    for bad in (True, 1.5, "0", np.random.RandomState(0)):
        with pytest.raises(TypeError, match=r"seed must be None, an int or a numpy Generator"):
            check_random_state(bad, "seed")


def test_dataset_type_by_isinstance():
    ds = MultiAnnotatorDataset(pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": [0, 1]}))
    assert is_multi_annotator_dataset(ds)

    class LooksLikeOne:  # duck typing no longer passes
        item_ids = annotator_ids = np.array([1])

    assert not is_multi_annotator_dataset(LooksLikeOne())
    with pytest.raises(TypeError, match=r"train must be a MultiAnnotatorDataset .*got LooksLikeOne"):
        check_multi_annotator_dataset(LooksLikeOne(), "train")


def test_check_columns():
    frame = pd.DataFrame(columns=["a", "b"])
    assert check_columns("a", frame, "attributes") == ["a"]
    with pytest.raises(ValueError, match=r"attributes: unknown column\(s\) \['c'\]"):
        check_columns(["a", "c"], frame, "attributes")


def test_tie_policies_declared_once():
    from aif360_subjective._labels import DECIDING_TIE_POLICIES, TIE_POLICIES, check_tie

    assert TIE_POLICIES == ("favorable", "unfavorable", "drop")
    assert DECIDING_TIE_POLICIES == ("favorable", "unfavorable")
    assert check_tie("drop") == "drop"
    with pytest.raises(ValueError, match=r"tie must be one of \['favorable', 'unfavorable'\], got 'drop'"):
        check_tie("drop", allow_drop=False)
    with pytest.raises(ValueError, match=r"policy must be one of .*, got 1"):
        check_tie(1, "policy")


def test_validation_imports_nothing_of_the_package():
    import ast
    from pathlib import Path

    import aif360_subjective._validation as v

    tree = ast.parse(Path(v.__file__).read_text())
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
                 for a in n.names if a.name.startswith("aif360_subjective")]
    assert imported == []


def test_check_positive():
    from aif360_subjective._validation import check_positive

    assert check_positive(np.float64(0.5), "max_delta") == 0.5 and check_positive(3, "auto_k") == 3.0
    for bad in (0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match=r"auto_k must be a finite number > 0, got"):
            check_positive(bad, "auto_k")
    for bad in (True, "1", None):
        with pytest.raises(TypeError, match=r"max_delta must be a finite number > 0, got"):
            check_positive(bad, "max_delta")
