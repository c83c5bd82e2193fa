"""Subgroup discovery on annotation rows: the (annotator x item) subgroups whose opinions a model misses."""

from __future__ import annotations

import numpy as np
import pytest
from aif360.metrics import ClassificationMetric

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.metrics import SubgroupDiscoveryMetric
from aif360_subjective.metrics.subgroup_discovery import MISSING_LABEL


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.slow
def test_majority_vote_model_misses_the_young_minority(seed):
    ds = make_subjective_dataset(n_items=800, n_annotators=80, minority_fraction=0.2, spammer_fraction=0,
                                 random_state=seed)
    pred = ds.with_predictions(ds.majority_labels())  # a traditional model: the majority opinion
    sdm = SubgroupDiscoveryMetric(ds, pred, n_clusters=12, random_state=0,
                                  attributes=["gender", "age_group", "education"])
    # the raw ranking: at this size the young subgroups are not significant after the BH adjustment
    worst = sdm.ranking("accuracy", kind="entropy", n=1, alpha=None)
    assert "age_group=18-30" in worst["subgroup"].iloc[0]
    patterns = sdm.patterns()
    acc = sdm.subgroup_metrics().xs("entropy")["accuracy"]
    young = patterns["age_group"].eq("18-30")
    assert acc[young[young].index].mean() < acc[young[~young].index].mean() - 0.03


def test_missing_demographics_are_a_category_and_export_round_trips():
    ds = make_subjective_dataset(n_items=300, n_annotators=40, missing_demographics=0.3, random_state=4)
    pred = ds.with_predictions(ds.majority_labels())
    sdm = SubgroupDiscoveryMetric(ds, pred, n_clusters=8, random_state=0,
                                  attributes=["gender", "age_group", "education"])
    patterns = sdm.patterns()
    assert (patterns["gender"] == MISSING_LABEL).any()
    gid = int(patterns.index[(patterns["gender"] == MISSING_LABEL).to_numpy()][0])
    sub, rest = sdm.aif360_groups("entropy", gid)
    assert sub[0]["gender"] == -1.0
    true_ds, pred_ds = sdm.subgroup_datasets("entropy")
    cm = ClassificationMetric(true_ds, pred_ds, privileged_groups=sub, unprivileged_groups=rest)
    ours = sdm.subgroup_metrics().loc[("entropy", gid)]
    if not np.isnan(float(ours["accuracy"])):
        assert cm.accuracy(privileged=True) == pytest.approx(float(ours["accuracy"]), abs=1e-12)
        assert cm.num_instances(privileged=True) == float(ours["size"])
