"""OutcomeMetrics: the metric table, intervals and max-T of a non-binary task over stacked candidates."""

import numpy as np
import pandas as pd
import scipy.sparse as sp

from aif360_subjective.detectors.error_control.counters import MemberCounter
from aif360_subjective.detectors.error_control.resampling import Sampling, sampling_of
from aif360_subjective.detectors.outcome_metrics import outcome_metrics
from aif360_subjective.detectors.tasks import outcome_columns, resolve_task


def _setup(groups=None):
    rng = np.random.default_rng(0)
    n = 300
    a = rng.integers(0, 3, n)
    y = rng.integers(1, 6, n).astype(float)
    yhat = np.clip(y + rng.integers(-1, 2, n) + 2 * (a == 0), 1, 5)  # over-predicted where a == 0
    masks = np.column_stack([a == 0, a == 1, a == 2, np.zeros(n, bool)])
    index = pd.MultiIndex.from_arrays([["pattern"] * 4, [0, 1, 2, 3]], names=["kind", "id"])
    task = resolve_task(y, yhat)
    cols = outcome_columns(task, y, yhat)
    sampling = Sampling() if groups is None else sampling_of([np.arange(n)], groups)
    m = outcome_metrics(MemberCounter(sp.csc_matrix(masks)), index, masks.sum(axis=0), masks.sum(axis=0) > 0, task,
                        cols, sampling, 5)
    return m, y, yhat, masks


def test_table_values_by_hand():
    m, y, yhat, masks = _setup()
    assert m.task.name == "ordinal" and m.names == ("mean_absolute_error", "mean_error", "mean_prediction",
                                                     "accuracy_error")
    s = masks[:, 0]
    err = np.abs(yhat - y)
    np.testing.assert_allclose(m.table.loc[("pattern", 0), "mean_absolute_error"], err[s].mean() - err[~s].mean())
    acc = (yhat == y)
    np.testing.assert_allclose(m.table.loc[("pattern", 0), "accuracy_error"], acc[s].mean() - acc.mean())
    assert np.isnan(m.table.loc[("pattern", 3), "mean_error"])  # an empty candidate has no value
    assert list(m.table.columns) == ["size", *m.names]


def test_inference_and_max_t_shapes_and_signal():
    m, *_ = _setup()
    inf = m.kind_inference(np.arange(4), 0.95)
    assert list(inf.columns[:3]) == ["mean_absolute_error_ci_low", "mean_absolute_error_ci_high",
                                     "mean_absolute_error_p"]
    assert inf["mean_error_ci_low"][0] > 0 and inf["mean_error_p"][0] < 1e-6
    mt = m.run_max_t(None, False, 39)
    assert mt.z.shape == (4, 4) and mt.p_global.shape == (4, 4, 2)
    # over-predicted: mean error larger in S, which is the favoured side of mean_error ("smaller" disadvantaged)
    assert mt.p_adjusted[0, m.metric_test["mean_error"], 1] == 1 / 40


def test_clusters_give_bootstrap_intervals_and_no_row_p_values():
    groups = np.repeat(np.arange(100), 3)
    m, *_ = _setup(groups)
    inf = m.kind_inference(np.arange(3), 0.95)
    assert inf["mean_error_p"].isna().all() and inf["mean_error_ci_low"].notna().all()
    assert m.sampling.unit.startswith("100 clusters of rows by id")
