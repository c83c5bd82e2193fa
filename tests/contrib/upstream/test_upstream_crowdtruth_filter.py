"""CrowdTruth 2.0 scores and CrowdTruthFilter. Shipped to AIF360 as tests/test_crowdtruth_filter.py."""
import numpy as np
import pandas as pd
import pytest

from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.quality import crowdtruth_scores


def _crowd(n_items=60, n_regular=8, n_spammers=2, seed=0):
    """Every annotator labels every item: regular annotators give the true label 90% of the time, spammers
    answer at random."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    rows = []
    for a in range(n_regular + n_spammers):
        regular = a < n_regular
        labels = np.where(rng.random(n_items) < 0.9, truth, 1 - truth) if regular else rng.integers(0, 2, n_items)
        rows.append(pd.DataFrame({'item': np.arange(n_items), 'annotator': f'w{a}', 'label': labels}))
    return pd.concat(rows, ignore_index=True)


def test_unanimous_judgments_score_one():
    # every worker gives the same label on every unit: all cosines are 1, so UQS = WQS = 1 at the start
    df = pd.DataFrame({'unit': np.repeat(['u1', 'u2'], 3), 'worker': ['a', 'b', 'c'] * 2,
                       'label': ['yes', 'yes', 'yes', 'no', 'no', 'no']})
    res = crowdtruth_scores(df, unit_col='unit', worker_col='worker', label_col='label')
    np.testing.assert_allclose(res.units['uqs'], 1.0)
    np.testing.assert_allclose(res.workers['wqs'], 1.0)


def test_unit_with_one_worker_has_zero_quality():
    # as in the reference implementation: no pair of workers, UQS = 0
    df = pd.DataFrame({'unit': ['u1', 'u1', 'u2'], 'worker': ['a', 'b', 'a'], 'label': [1, 1, 0]})
    res = crowdtruth_scores(df, unit_col='unit', worker_col='worker', label_col='label')
    assert res.units.loc['u2', 'uqs'] == 0.0
    assert res.units.loc['u1', 'uqs'] == pytest.approx(1.0)


def test_two_opposite_workers_score_zero_agreement():
    # worker b always disagrees with a on a single-choice task: their cosine is 0 on every unit
    df = pd.DataFrame({'unit': np.repeat(['u1', 'u2'], 2), 'worker': ['a', 'b'] * 2, 'label': [1, 0, 0, 1]})
    res = crowdtruth_scores(df, unit_col='unit', worker_col='worker', label_col='label')
    np.testing.assert_allclose(res.units['uqs'], 0.0, atol=1e-12)


def test_filter_removes_the_spammers_and_reports_them():
    ds = MultiAnnotatorDataset(_crowd(), favorable_label=0, unfavorable_label=1)
    f = CrowdTruthFilter().fit(ds)
    assert set(f.removed_annotators_.index) == {'w8', 'w9'}
    assert 'wqs' in f.removed_annotators_.columns
    clean = f.transform(ds)
    assert set(clean.annotator_ids) == {f'w{a}' for a in range(8)}
    assert len(clean.labels) == 8 * 60
    # the input dataset is not changed
    assert len(ds.labels) == 10 * 60


def test_filter_keeps_every_annotator_at_threshold_zero():
    ds = MultiAnnotatorDataset(_crowd(seed=1), favorable_label=0, unfavorable_label=1)
    f = CrowdTruthFilter(threshold=0.0).fit(ds)
    assert len(f.removed_annotators_) == 0
    assert len(f.transform(ds).labels) == len(ds.labels)


def test_filter_rejects_bad_threshold():
    with pytest.raises(ValueError, match='threshold'):
        CrowdTruthFilter(threshold='high')
