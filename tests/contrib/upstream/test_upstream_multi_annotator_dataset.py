"""MultiAnnotatorDataset: one row per annotation, ids that follow the rows, majority vote, split by item.

Written against the plugin's public names; contrib/make_aif360_patches.py rewrites the imports and ships it to
AIF360 as tests/test_multi_annotator_dataset.py (it must pass there with AIF360 alone).
"""
import numpy as np
import pandas as pd
import pytest
from aif360.datasets import BinaryLabelDataset

from aif360_subjective.datasets import MultiAnnotatorDataset

# 4 items x 3 annotators; label 1 = toxic (unfavourable).
#   item:  i0  i1  i2  i3
#   a:      1   1   1   0
#   b:      1   0   1   0
#   c:      0   0   1   1      majority vote: 1 0 1 0
ANNOTATIONS = pd.DataFrame({
    'item': np.repeat(['i0', 'i1', 'i2', 'i3'], 3),
    'annotator': ['a', 'b', 'c'] * 4,
    'label': [1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1],
})
ANNOTATORS = pd.DataFrame({'gender': ['f', 'm', 'f']}, index=pd.Index(['a', 'b', 'c'], name='annotator'))


def _dataset():
    return MultiAnnotatorDataset(ANNOTATIONS, annotators=ANNOTATORS, favorable_label=0, unfavorable_label=1)


def test_is_a_binary_label_dataset_with_one_row_per_annotation():
    ds = _dataset()
    assert isinstance(ds, BinaryLabelDataset)
    assert ds.labels.shape == (12, 1)
    assert ds.item_ids.tolist() == ANNOTATIONS['item'].tolist()
    assert ds.annotator_ids.tolist() == ANNOTATIONS['annotator'].tolist()
    assert ds.favorable_label == 0 and ds.unfavorable_label == 1
    assert ds.labels.ravel().tolist() == ANNOTATIONS['label'].tolist()


def test_annotator_attributes_are_protected_attributes_with_maps():
    ds = _dataset()
    assert 'gender' in ds.protected_attribute_names
    col = ds.protected_attributes[:, ds.protected_attribute_names.index('gender')]
    maps = ds.metadata['protected_attribute_maps'][ds.protected_attribute_names.index('gender')]
    decoded = [maps[c] for c in col]
    assert decoded == ['f', 'm', 'f'] * 4


def test_majority_vote_is_one_row_per_item():
    mv = _dataset().majority_vote()
    assert isinstance(mv, BinaryLabelDataset)
    assert list(mv.instance_names) == ['i0', 'i1', 'i2', 'i3']
    assert mv.labels.ravel().tolist() == [1, 0, 1, 0]


def test_split_by_item_keeps_ids_with_their_rows():
    ds = _dataset()
    train, test = ds.split([0.5], shuffle=True, seed=0)
    assert len(train.item_ids) + len(test.item_ids) == 12
    assert not set(train.item_ids) & set(test.item_ids)
    # every row keeps its own (item, annotator, label)
    rows = set(zip(ANNOTATIONS['item'], ANNOTATIONS['annotator'], ANNOTATIONS['label']))
    for part in (train, test):
        assert set(zip(part.item_ids, part.annotator_ids, part.labels.ravel().astype(int))) <= rows


def test_copy_and_equality_carry_the_ids():
    ds = _dataset()
    twin = ds.copy(deepcopy=True)
    assert twin == ds
    assert twin.annotator_ids.tolist() == ds.annotator_ids.tolist()


def test_missing_column_is_named():
    bad = ANNOTATIONS.drop(columns='annotator')
    with pytest.raises(ValueError, match='annotator'):
        MultiAnnotatorDataset(bad, favorable_label=0, unfavorable_label=1)
