"""The report's builders accept the function face's ``OpinionExclusionResult`` as they accept the class face's
``OpinionExclusionMetric``: the same analysis gives the same report."""

from __future__ import annotations

import numpy as np
import pytest

from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.opinion import ResultAudit
from aif360_subjective.report import Report
from aif360_subjective.report.answer import as_models, opinion_answer
from aif360_subjective.report.opinion_sections import opinion_sections
from aif360_subjective.sklearn.metrics import opinion_exclusion


@pytest.fixture(scope="module")
def faces():
    ds = make_subjective_dataset(n_items=150, random_state=1)
    _, test = ds.split([0.5], shuffle=True, seed=0)
    pred = test.copy()
    rng = np.random.default_rng(0)
    flip = rng.random(len(pred.labels)) < 0.2
    pred.labels = pred.labels.copy()
    pred.labels[flip] = 1 - pred.labels[flip]
    metric = OpinionExclusionMetric(test, pred, random_state=0)
    result = opinion_exclusion(test.labels.ravel(), pred.labels.ravel(), item_ids=test.item_ids,
                               annotator_ids=test.annotator_ids, pos_label=test.favorable_label, random_state=0,
                               ci=0.95, n_boot=200)
    return metric, result


def _html(models, **kw):
    report = Report("audit")
    report.extend(opinion_sections(models, n_boot=200, random_state=0, **kw))
    return report.render()


def test_result_is_read_as_the_metric(faces):
    metric, result = faces
    view = as_models(result)["model"]
    assert isinstance(view, ResultAudit)
    assert view.unfairness() == pytest.approx(metric.unfairness())
    assert view.performance() == pytest.approx(metric.performance())
    assert view.group_performance().equals(metric.group_performance())
    # the intervals are redrawn from the result's own counts, with the metric's function and seed
    assert tuple(view.unfairness_ci(n_boot=200, random_state=0)) == pytest.approx(
        tuple(metric.unfairness_ci(n_boot=200, random_state=0)))
    assert view.group_performance(ci=0.9, n_boot=200, random_state=3).equals(
        metric.group_performance(ci=0.9, n_boot=200, random_state=3))


@pytest.mark.slow
def test_report_from_the_function_face_equals_the_class_face(faces):
    metric, result = faces
    # the figures and intervals agree; the verdict's test was run by each face with its own permutations, so the
    # sections are compared without the verdicts
    assert _html({"m": result}, answer=False, verdicts=False) == _html({"m": metric}, answer=False, verdicts=False)
    answer = opinion_answer({"m": result}, n_boot=200, random_state=0)
    assert "Test of equal service" in answer.text()


def test_a_result_without_a_test_says_how_to_get_one(faces):
    metric, _ = faces
    ds = metric.dataset
    bare = opinion_exclusion(ds.labels.ravel(), ds.labels.ravel(), item_ids=ds.item_ids,
                             annotator_ids=ds.annotator_ids, random_state=0)
    with pytest.raises(ValueError, match=r"carries no test of equal service: call opinion_exclusion\(\.\.\., ci="):
        as_models(bare)["model"].verdict()


def test_other_objects_are_refused():
    with pytest.raises(TypeError, match=r"metrics\['x'\] must be an OpinionExclusionMetric or an "
                                        r"OpinionExclusionResult, got str"):
        as_models({"x": "not an analysis"})
    with pytest.raises(TypeError, match="result must be an OpinionExclusionResult, got int"):
        ResultAudit(3)
