"""The class face takes the dataset's favourable label, the functional face ``pos_label=1`` by default (issue 33):
the difference is stated in both docstrings, and ``pos_label=dataset.favorable_label`` gives the class's figures."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.sklearn.metrics import opinion_exclusion


def test_hand_case_tie_goes_to_pos_label():
    # item 0 is a tie (a: 1, b: 0); item 1 is labelled 1 by both. With ties to 1, annotator b disagrees once
    # (ADR 1/2), a never; with ties to 0, a disagrees once. The prediction (1, 1) serves a on both items (accuracy
    # 1) and b on one (1/2): the ADR groups swap, and the unfairness follows the ADR bins.
    y, p = [1, 0, 1, 1], [1, 1, 1, 1]
    kw = dict(item_ids=[0, 0, 1, 1], annotator_ids=["a", "b", "a", "b"], bins=[0, 0.25, 1], warn_group_size=0)
    to_one = opinion_exclusion(y, p, pos_label=1, **kw)
    to_zero = opinion_exclusion(y, p, pos_label=0, **kw)
    assert to_one.disagreement_rates.to_dict() == {"a": 0.0, "b": 0.5}
    assert to_zero.disagreement_rates.to_dict() == {"a": 0.5, "b": 0.0}
    assert opinion_exclusion(y, p, **kw).disagreement_rates.equals(to_one.disagreement_rates)  # the default is 1


def test_both_docstrings_state_the_difference():
    fn_doc = opinion_exclusion.__doc__ or ""
    cls_doc = OpinionExclusionMetric.__init__.__doc__ or ""
    assert "class face" in fn_doc and "pos_label=0" in fn_doc and "favorable_label" in fn_doc
    assert "pos_label=1" in cls_doc and "pos_label=dataset.favorable_label" in cls_doc


@pytest.mark.data
def test_popquorn_class_equals_the_function_with_its_favourable_label(shared_data):
    from aif360_subjective.datasets import PopquornDataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ds = PopquornDataset(shared_data / "popquorn")
        pred = ds.with_predictions(ds.majority_labels())
        m = OpinionExclusionMetric(ds, pred)
        y, p = ds.labels.ravel(), pred.labels.ravel()
        kw = dict(item_ids=ds.item_ids, annotator_ids=ds.annotator_ids)
        same = opinion_exclusion(y, p, pos_label=ds.favorable_label, **kw)
        default = opinion_exclusion(y, p, **kw)
    assert ds.favorable_label == 0
    assert same.unfairness == pytest.approx(m.unfairness(), abs=1e-12)
    # the figures the docstrings quote
    assert round(m.unfairness(), 4) == 0.2008 and round(default.unfairness, 4) == 0.2025
    assert not np.isclose(default.unfairness, m.unfairness())
