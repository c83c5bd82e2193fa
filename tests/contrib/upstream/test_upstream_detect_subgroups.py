"""detect_subgroups (ASDF clusters and entropy patterns, mined patterns with max-T) and SubgroupDiscoveryMetric.

Shipped to AIF360 as tests/test_detect_subgroups.py."""
import numpy as np
import pandas as pd
import pytest
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import ClassificationMetric

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import SubgroupDiscoveryMetric

# Two well separated groups of rows: red (x near 0) and blue (x near 10).
X = pd.DataFrame({'x': [0, 0, 1, 1, 10, 10, 11, 11], 'color': ['red'] * 4 + ['blue'] * 4})
Y = np.array([1, 1, 0, 0, 1, 1, 0, 0])
P = np.array([1, 1, 0, 1, 0, 0, 0, 0])
BLUE = np.arange(8) >= 4


def _report(**kwargs):
    return detect_subgroups(X, Y, P, pos_label=1, n_clusters=2, discovery='asdf',
                            categorical_features=['color'], **kwargs)


def _blue_id(rep, kind='cluster'):
    ids = [i for i in rep.patterns().index if np.array_equal(rep.members(kind, i), BLUE)]
    assert len(ids) == 1
    return ids[0]


def test_clusters_and_entropy_patterns():
    rep = _report()
    patterns = rep.patterns()
    # colour is constant in each cluster (entropy 0 < 0.65): dominant; x takes two values (entropy 1): not
    assert sorted(patterns['color']) == ['blue', 'red']
    assert patterns['x'].isna().all()
    blue = _blue_id(rep)
    assert np.array_equal(rep.members('entropy', blue), BLUE)


def test_subgroup_metrics_by_hand():
    rep = _report()
    row = rep.subgroup_metrics(ci=None).loc[('cluster', _blue_id(rep))]
    # blue S vs red R (rest minus subgroup), favourable prediction 1:
    # P(yhat=1 | R) = 3/4, P(yhat=1 | S) = 0            -> statistical parity 0.75
    # TPR_R = 2/2, TPR_S = 0/2                           -> equal opportunity 1.0
    # FPR_R = 1/2, FPR_S = 0/2                           -> equalized odds (0.5 + 1.0) / 2 = 0.75
    # accuracy(S) = 2/4, accuracy(all) = 5/8             -> accuracy error -0.125
    assert row['size'] == 4
    assert row['statistical_parity'] == pytest.approx(0.75)
    assert row['equal_opportunity'] == pytest.approx(1.0)
    assert row['equalized_odds'] == pytest.approx(0.75)
    assert row['accuracy'] == pytest.approx(0.5)
    assert row['accuracy_error'] == pytest.approx(-0.125)


def test_summary_is_the_mean_of_absolute_values():
    rep = _report()
    summary = rep.summary()
    assert summary.loc['cluster', 'statistical_parity'] == pytest.approx(0.75)
    assert summary.loc['cluster', 'accuracy_error'] == pytest.approx(0.0)  # signed: -0.125 and +0.125


def test_metric_face_groups_reproduce_aif360_classification_metric():
    df = X.assign(color=(X['color'] == 'blue').astype(float), label=Y)
    truth = BinaryLabelDataset(df=df, label_names=['label'], protected_attribute_names=['color'])
    pred = truth.copy(deepcopy=True)
    pred.labels = P.reshape(-1, 1).astype(float)
    sdm = SubgroupDiscoveryMetric(truth, pred, n_clusters=2, discovery='asdf')
    rows = sdm.subgroup_metrics(ci=None).loc['entropy']
    assert len(rows) == 2
    for cid in rows.index:
        # the entropy pattern {color: c} as AIF360 groups: the subgroup is 'privileged', the rest 'unprivileged'
        subgroup, rest = sdm.aif360_groups('entropy', cid)
        assert list(subgroup[0]) == ['color']
        cm = ClassificationMetric(truth, pred, privileged_groups=subgroup, unprivileged_groups=rest)
        assert cm.statistical_parity_difference() == pytest.approx(rows.loc[cid, 'statistical_parity'])
        assert cm.equal_opportunity_difference() == pytest.approx(rows.loc[cid, 'equal_opportunity'])


def test_automatic_number_of_clusters_runs_without_pyclustering():
    rng = np.random.default_rng(0)
    blobs = pd.DataFrame({'u': np.r_[rng.normal(0, 0.1, 50), rng.normal(5, 0.1, 50)],
                          'v': np.r_[rng.normal(0, 0.1, 50), rng.normal(5, 0.1, 50)]})
    y = rng.integers(0, 2, 100)
    rep = detect_subgroups(blobs, y, y, clustering='kmeans', n_clusters=None, discovery='asdf', random_state=0)
    assert 2 <= len(rep.patterns()) <= 7  # kmax = floor(sqrt(100 / 2)) = 7


def test_xmeans_clustering_picks_its_own_number_of_clusters():
    rng = np.random.default_rng(1)
    centres = np.repeat([[0, 0], [4, 0], [0, 4]], 40, axis=0)
    blobs = pd.DataFrame(centres + rng.normal(0, 0.2, (120, 2)), columns=['u', 'v'])
    y = rng.integers(0, 2, 120)
    rep = detect_subgroups(blobs, y, y, clustering='xmeans', discovery='asdf', random_state=0)
    sizes = rep.subgroup_metrics(ci=None).loc['cluster', 'size']
    assert sizes.sum() == 120
    assert 3 <= len(sizes) <= 7  # at least the three blobs, at most kmax = floor(sqrt(120 / 2)) = 7


def _planted(seed=0, n=800, effect=True):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({'a': rng.choice(['p', 'q', 'r'], n), 'b': rng.choice(['x', 'y'], n),
                         'c': rng.normal(size=n)})
    y = rng.integers(0, 2, n)
    planted = ((data['a'] == 'r') & (data['b'] == 'y')).to_numpy()
    err = rng.random(n) < np.where(planted & effect, 0.5, 0.1)
    return data, y, np.where(err, 1 - y, y), planted


def test_mined_patterns_find_the_planted_subgroup_under_max_t():
    data, y, p, planted = _planted()
    rep = detect_subgroups(data, y, p, discovery='patterns', random_state=0, n_permutations=200)
    top = rep.ranking('accuracy_error', kind='pattern', n=1, direction='disadvantaged', alpha=0.05)
    assert len(top) == 1
    assert np.array_equal(rep.members('pattern', top.index[0]), planted)
    assert top['accuracy_error_p_adjusted'].iloc[0] < 0.05


def test_no_significant_pattern_on_pure_noise():
    data, y, p, _ = _planted(seed=1, effect=False)
    rep = detect_subgroups(data, y, p, discovery='patterns', random_state=0, n_permutations=200)
    assert len(rep.ranking('accuracy_error', kind='pattern', direction='disadvantaged', alpha=0.05)) == 0


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match='entropy_threshold'):
        detect_subgroups(X, Y, P, entropy_threshold=2.0)
    with pytest.raises(ValueError, match='y_pred'):
        detect_subgroups(X, Y, P[:5])
