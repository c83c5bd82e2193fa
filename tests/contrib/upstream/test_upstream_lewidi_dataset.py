"""LeWiDiDataset: the Learning-with-Disagreements JSON files, read in their published format.

The files are written by the test (a few items in the 2025 layout of MultiPICo/CSC and the 2023 layout of
HS-Brexit); no download. Shipped to AIF360 as tests/test_lewidi_dataset.py.
"""
import json

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import LeWiDiDataset, MultiAnnotatorDataset


def _item(annotations, text='a post'):
    return {'annotation task': 'irony detection', 'text': {'post': text, 'reply': 'a reply'},
            'annotators': ','.join(annotations), 'number of annotations': len(annotations),
            'annotations': annotations, 'soft_label': {}, 'split': 'dev', 'lang': 'en',
            'other_info': {'source': 'reddit', 'level': 1.0}}


def _write_2025(folder):
    dev = {'10': _item({'Ann0': '0', 'Ann1': '1', 'Ann2': '1'}),
           '11': _item({'Ann1': '0', 'Ann2': '0'})}
    meta = {'0': {'Gender': 'Female', 'Age': '19'},
            '1': {'Gender': 'DATA_EXPIRED', 'Age': '34'},
            '2': {'Gender': 'Male', 'Age': 'Prefer not to say'}}
    (folder / 'XY_dev.json').write_text(json.dumps(dev))
    (folder / 'XY_annotators_meta.json').write_text(json.dumps(meta))
    return folder


def test_2025_layout_rows_and_labels(tmp_path):
    ds = LeWiDiDataset(_write_2025(tmp_path))
    assert isinstance(ds, MultiAnnotatorDataset)
    assert ds.item_ids.tolist() == ['10', '10', '10', '11', '11']
    assert ds.annotator_ids.tolist() == ['Ann0', 'Ann1', 'Ann2', 'Ann1', 'Ann2']
    assert ds.labels.ravel().tolist() == [0, 1, 1, 0, 0]


def test_2025_layout_metadata_missing_values_are_nan(tmp_path):
    ds = LeWiDiDataset(_write_2025(tmp_path))
    ann = ds.annotators
    assert ann.loc['Ann0', 'Gender'] == 'Female'
    assert pd.isna(ann.loc['Ann1', 'Gender'])  # DATA_EXPIRED
    assert ann.loc['Ann1', 'Age'] == 34.0
    assert np.isnan(ann.loc['Ann2', 'Age'])  # Prefer not to say


def test_2023_layout_comma_separated_strings(tmp_path):
    data = {'1': {'text': 'a tweet', 'annotators': 'Ann1,Ann2,Ann3', 'annotations': '0,1,1',
                  'number of annotations': 3, 'annotation task': 'hate speech', 'lang': 'en',
                  'hard_label': '1', 'soft_label': {'0': 0.33, '1': 0.67}, 'split': 'dev',
                  'other_info': {'annotators group': 'group1,group2,group2'}}}
    (tmp_path / 'HS-Brexit_dev.json').write_text(json.dumps(data))
    ds = LeWiDiDataset(tmp_path, annotators_meta=False)
    assert ds.annotator_ids.tolist() == ['Ann1', 'Ann2', 'Ann3']
    assert ds.labels.ravel().tolist() == [0, 1, 1]
    # HS-Brexit's annotator groups (in the order of 'annotators') become an annotator attribute
    assert ds.annotators['group'].tolist() == ['group1', 'group2', 'group2']
    assert ds.protected_attribute_names == ['group']


def test_missing_folder_names_the_files_to_get(tmp_path):
    with pytest.raises(FileNotFoundError, match='Le-Wi-Di'):
        LeWiDiDataset(tmp_path / 'nowhere')
