"""OpinionExclusionMetric (Balayn et al. 2019): hand-computed ADR, groups, unfairness, performance, the test
of equal service and the intervals. Shipped to AIF360 as tests/test_opinion_exclusion_metric.py."""
import itertools

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.metrics import OpinionExclusionMetric

# 4 items x 3 annotators, label 1 favourable.
#   item:   0  1  2  3
#   a:      1  1  1  0
#   b:      1  0  1  0
#   c:      0  0  1  1
#   MV:     1  0  1  0     ADR: a = 1/4, b = 0, c = 2/4
ITEMS = np.repeat([0, 1, 2, 3], 3)
ANNS = np.array(['a', 'b', 'c'] * 4, dtype=object)
TRUE = np.array([1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1])
MV = np.array([1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0])  # a model that predicts the majority vote
ANNOTATORS = pd.DataFrame({'gender': ['f', 'm', 'f']}, index=pd.Index(['a', 'b', 'c'], name='annotator'))


def _dataset(labels=TRUE, items=ITEMS, anns=ANNS, annotators=ANNOTATORS):
    df = pd.DataFrame({'item': items, 'annotator': anns, 'label': labels})
    return MultiAnnotatorDataset(df, annotators=annotators, favorable_label=1, unfavorable_label=0)


def _metric(pred, ds=None, **kwargs):
    ds = _dataset() if ds is None else ds
    kwargs.setdefault('warn_group_size', 0)  # hand-made cases have groups of one or two annotators
    return OpinionExclusionMetric(ds, ds.with_predictions(pred), **kwargs)


def test_disagreement_rates():
    assert _metric(MV).disagreement_rates().to_dict() == {'a': 0.25, 'b': 0.0, 'c': 0.5}


def test_per_annotator_accuracy_of_the_majority_vote_model():
    # predicting the majority vote, an annotator's accuracy is 1 - ADR
    acc = _metric(MV).annotator_performance()
    np.testing.assert_allclose(acc[['a', 'b', 'c']], [0.75, 1.0, 0.5])


def test_adr_groups_unfairness_and_performance():
    m = _metric(MV, bins=2)
    table = m.group_performance()
    # two equal-width bins over [0, 0.5]: {a, b} (ADR <= 0.25) and {c}
    assert table['n_annotators'].tolist() == [2, 1]
    np.testing.assert_allclose(table['performance'], [0.875, 0.5])
    # unfairness = std of the group means (population std), performance = their mean
    assert m.unfairness() == pytest.approx(np.std([0.875, 0.5]))
    assert m.performance() == pytest.approx(0.6875)


def test_demographic_grouping():
    m = _metric(MV, grouping='demographic', attributes=['gender'])
    perf = m.group_performance()['performance']
    # f = {a, c}: (0.75 + 0.5) / 2; m = {b}: 1.0
    assert perf.to_dict() == pytest.approx({'f': 0.625, 'm': 1.0})
    assert m.unfairness() == pytest.approx(np.std([0.625, 1.0]))


def test_grouping_by_series():
    groups = pd.Series({'a': 'g1', 'b': 'g2', 'c': 'g2'})
    perf = _metric(MV, grouping=groups).group_performance()['performance']
    assert perf.to_dict() == pytest.approx({'g1': 0.75, 'g2': 0.75})


def test_perfect_model_is_fair():
    m = _metric(TRUE, bins=2)
    assert m.unfairness() == 0.0
    assert m.performance() == 1.0


def test_exclusion_test_p_value_by_enumeration():
    # four annotators with accuracies 1.0, 0.8 | 0.5, 0.4 in groups A | B (10 items each, prediction 1)
    acc = {'a1': 10, 'a2': 8, 'a3': 5, 'a4': 4}
    y = np.concatenate([[1] * k + [0] * (10 - k) for k in acc.values()])
    anns = np.repeat(list(acc), 10).astype(object)
    items = np.tile(np.arange(10), 4)
    ds = _dataset(labels=y, items=items, anns=anns, annotators=None)
    groups = pd.Series({'a1': 'A', 'a2': 'A', 'a3': 'B', 'a4': 'B'})
    test = _metric(np.ones(40, dtype=int), ds=ds, grouping=groups).exclusion_test(
        n_permutations=99, random_state=0, statistic='between')
    # the between-group sum of squares over every assignment of the 4 values to two groups of 2
    values = np.array([1.0, 0.8, 0.5, 0.4])

    def between(order):
        g1, g2 = values[list(order[:2])], values[list(order[2:])]
        return 2 * (g1.mean() - values.mean()) ** 2 + 2 * (g2.mean() - values.mean()) ** 2

    stats = np.array([between(o) for o in itertools.permutations(range(4))])
    assert test.statistic == pytest.approx(between(range(4)))
    assert test.p_value == pytest.approx(np.mean(stats >= test.statistic - 1e-12))


def test_unfairness_interval_excludes_zero_when_a_group_is_served_worse():
    # annotators r1, r10, r11 flip 40% of the labels, the others 10%: ADR bins separate them
    rng = np.random.default_rng(0)
    n_items, n_ann = 40, 12
    items = np.repeat(np.arange(n_items), n_ann)
    anns = np.tile([f'r{i}' for i in range(n_ann)], n_items).astype(object)
    truth = rng.integers(0, 2, n_items)
    y = np.repeat(truth, n_ann)
    flip = rng.random(y.size) < np.where(np.char.startswith(anns.astype(str), 'r1'), 0.4, 0.1)
    y = np.where(flip, 1 - y, y)
    ds = _dataset(labels=y, items=items, anns=anns, annotators=None)
    m = _metric(np.repeat(truth, n_ann), ds=ds, bins=3, random_state=0)
    interval = m.unfairness_ci(ci=0.9, n_boot=200, random_state=0)
    low, high = interval
    assert interval.estimate == pytest.approx(m.unfairness())
    assert 0.0 < low <= interval.estimate <= high


def test_rows_must_match():
    ds = _dataset()
    other = _dataset(items=ITEMS[::-1].copy())
    with pytest.raises(ValueError):
        OpinionExclusionMetric(ds, other)


def test_unknown_grouping_is_named():
    with pytest.raises(ValueError, match='grouping'):
        _metric(MV, grouping='shoe size')
