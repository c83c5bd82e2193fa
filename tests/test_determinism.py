"""Determinism: equal seeds give identical results; no global random state is touched.

numpy's global state is checked around every test by the autouse fixture in ``conftest.py``; Python's
``random`` module (which pyclustering reseeds) is checked here around the calls that reach pyclustering.
"""

from __future__ import annotations

import importlib
import os
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import SGDClassifier

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier
from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.detectors import compare_clusterings, detect_subgroups
from aif360_subjective.metrics import OpinionExclusionMetric

PACKAGE = Path(__file__).resolve().parents[1] / "aif360_subjective"


@pytest.fixture(scope="module")
def ds():
    return make_subjective_dataset(n_items=80, n_annotators=15, annotations_per_item=3, random_state=11)


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(3)
    n = 150
    X = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "h": rng.choice(["u", "v"], n), "x": rng.normal(size=n)})
    y = rng.integers(0, 2, n)
    yp = np.where(rng.random(n) < 0.7, y, 1 - y)
    return X, y, yp


def test_no_legacy_or_global_random_calls_in_the_library():
    legacy = re.compile(r"np\.random\.(?!default_rng\b|Generator\b)\w+|numpy\.random\.(?!default_rng\b|Generator\b)\w+"
                        r"|\brandom\.(seed|random|randint|choice|shuffle|sample|uniform)\(")
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if legacy.search(code):
                offenders.append(f"{path.relative_to(PACKAGE)}:{no}: {line.strip()}")
    assert not offenders, offenders


def test_generator(ds):
    again = make_subjective_dataset(n_items=80, n_annotators=15, annotations_per_item=3, random_state=11)
    assert again == ds
    other = make_subjective_dataset(n_items=80, n_annotators=15, annotations_per_item=3, random_state=12)
    assert not np.array_equal(other.labels, ds.labels)
    g1 = make_subjective_dataset(n_items=20, random_state=np.random.default_rng(5))
    g2 = make_subjective_dataset(n_items=20, random_state=np.random.default_rng(5))
    assert np.array_equal(g1.labels, g2.labels) and np.array_equal(g1.annotator_ids, g2.annotator_ids)


@pytest.mark.parametrize("by", ["item", "annotator", "annotation"])
def test_split(ds, by):
    a = ds.split([0.5, 0.8], shuffle=True, seed=4, by=by)
    b = ds.split([0.5, 0.8], shuffle=True, seed=4, by=by)
    for pa, pb in zip(a, b, strict=True):
        assert np.array_equal(pa.item_ids, pb.item_ids) and np.array_equal(pa.annotator_ids, pb.annotator_ids)
    c = ds.split([0.5, 0.8], shuffle=True, seed=5, by=by)
    assert any(not np.array_equal(pa.item_ids, pc.item_ids) for pa, pc in zip(a, c, strict=True))


def _same_report(a, b) -> None:
    pd.testing.assert_series_equal(a.clusters, b.clusters)
    pd.testing.assert_frame_equal(a.subgroup_metrics(), b.subgroup_metrics())
    pd.testing.assert_frame_equal(a.patterns(), b.patterns())
    pd.testing.assert_series_equal(a.validity, b.validity)
    if a.model_selection is not None:
        cols = [c for c in a.model_selection.columns if c != "seconds"]
        pd.testing.assert_frame_equal(a.model_selection[cols], b.model_selection[cols])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "options",
    [
        {"clustering": "slink"},  # k by x-means
        {"clustering": "ward"},
        {"clustering": "kmeans", "n_clusters": 4},
        {"clustering": "kmeans"},
        {"clustering": "xmeans"},
        {"clustering": "birch", "n_clusters": 3},
        {"clustering": "dbscan"},
        {"clustering": "optics"},
        {"clustering": "slink", "n_clusters": [2, 3, 5]},  # fairness-aware choice
        {"clustering": "kmeans", "n_clusters": 3, "silhouette_sample_size": 40},  # sampled silhouette
    ],
    ids=lambda o: "-".join(str(v) for v in o.values()),
)
@pytest.mark.slow
def test_detect_subgroups(table, options):
    X, y, yp = table
    state = random.getstate()
    a = detect_subgroups(X, y, yp, random_state=7, **options)
    b = detect_subgroups(X, y, yp, random_state=7, **options)
    assert random.getstate() == state  # pyclustering reseeds Python's random: it is given back
    _same_report(a, b)
    g = detect_subgroups(X, y, yp, random_state=np.random.default_rng(7), **options)
    h = detect_subgroups(X, y, yp, random_state=np.random.default_rng(7), **options)
    _same_report(g, h)


@pytest.mark.slow
def test_compare_clusterings(table):
    X, y, yp = table
    cand = {"kmeans": [2, 3], "xmeans": [None], "slink": [3]}
    a = compare_clusterings(X, y, yp, cand, random_state=1, silhouette_sample_size=50)
    b = compare_clusterings(X, y, yp, cand, random_state=1, silhouette_sample_size=50)
    cols = [c for c in a.columns if c != "seconds"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_opinion_exclusion_discovered_grouping(ds):
    pred = ds.with_predictions(ds.majority_labels())
    a = OpinionExclusionMetric(ds, pred, grouping="discovered", random_state=3).group_performance()
    b = OpinionExclusionMetric(ds, pred, grouping="discovered", random_state=3).group_performance()
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("estimator", [None, SGDClassifier(max_iter=50, tol=None)], ids=["logistic", "sgd"])
def test_annotator_aware_classifier(ds, estimator):
    train, test = ds.split([0.6], shuffle=True, seed=0)
    runs = [AnnotatorAwareClassifier(estimator=estimator, random_state=9).fit(train).predict(test)
            for _ in range(2)]
    assert np.array_equal(runs[0].labels, runs[1].labels)
    assert np.array_equal(runs[0].scores, runs[1].scores)


def _crowdtruth_filter():
    try:
        return importlib.import_module("aif360_subjective.algorithms.preprocessing").CrowdTruthFilter
    except AttributeError:
        msg = "aif360_subjective.algorithms.preprocessing.CrowdTruthFilter is not available"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)


def test_crowdtruth_filter(ds):
    CrowdTruthFilter = _crowdtruth_filter()
    a = CrowdTruthFilter().fit(ds)
    b = CrowdTruthFilter().fit(ds)
    pd.testing.assert_frame_equal(a.removed_annotators_, b.removed_annotators_)
    assert a.transform(ds) == b.transform(ds)
