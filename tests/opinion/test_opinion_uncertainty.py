"""Opinion-exclusion intervals and thin-group warnings, through both faces."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.opinion.bootstrap import BootstrapInterval
from aif360_subjective.opinion.equal_service import UnfairnessInterval
from aif360_subjective.opinion.uncertainty import thin_groups
from aif360_subjective.sklearn.metrics import opinion_exclusion


def _consensus_model(ds: MultiAnnotatorDataset) -> MultiAnnotatorDataset:
    """Predict every item's generated consensus label (what a perfect majority-vote model would learn)."""
    return ds.with_predictions(ds.items["consensus_label"].reindex(ds.item_ids).to_numpy())


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return func(*args, **kwargs)


@pytest.fixture(scope="module")
def generated():
    ds = make_subjective_dataset(n_items=600, random_state=3)
    return ds, _consensus_model(ds)


def test_both_faces_give_the_same_intervals(generated):
    ds, pred = generated
    m = _quiet(OpinionExclusionMetric, ds, pred, bins="quantile:4")
    res = _quiet(opinion_exclusion, ds.labels.ravel(), pred.labels.ravel(), item_ids=ds.item_ids,
                 annotator_ids=ds.annotator_ids, pos_label=0.0, bins="quantile:4", ci=0.9, n_boot=300, random_state=5)
    u = m.unfairness_ci(ci=0.9, n_boot=300, random_state=5)
    assert isinstance(u, UnfairnessInterval) and tuple(u) == tuple(res.unfairness_ci)
    assert tuple(m.performance_ci(ci=0.9, n_boot=300, random_state=5)) == tuple(res.performance_ci)
    table = m.group_performance(ci=0.9, n_boot=300, random_state=5)
    pd.testing.assert_frame_equal(table, res.group_table)
    assert list(table.columns[-2:]) == ["ci_low", "ci_high"]


def test_intervals_contain_their_estimates(generated):
    ds, pred = generated
    m = _quiet(OpinionExclusionMetric, ds, pred, bins=5)
    u, p = m.unfairness_ci(random_state=0), m.performance_ci(random_state=0)
    assert u.low <= u.debiased <= m.unfairness() <= u.high and p.low <= m.performance() <= p.high
    assert u.estimate == m.unfairness() and u.method.startswith("noncentral")
    assert isinstance(p, BootstrapInterval) and p.n_boot == 1000 and p.n_valid == 1000
    t = m.group_performance(ci=0.95, random_state=0)
    assert ((t["ci_low"] <= t["performance"]) & (t["performance"] <= t["ci_high"])).all()
    # same options: the same replicates behind every figure; another seed: other replicates
    assert m.unfairness_ci(random_state=0) is u
    assert tuple(m.performance_ci(random_state=1)) != tuple(p)
    assert tuple(m.unfairness_ci(random_state=1)) == tuple(u)  # an inverted test: no replicates behind it


def test_no_interval_without_ci_and_the_paper_figures_unchanged(generated):
    ds, pred = generated
    plain = _quiet(opinion_exclusion, ds.labels.ravel(), pred.labels.ravel(), item_ids=ds.item_ids,
                   annotator_ids=ds.annotator_ids, pos_label=0.0)
    with_ci = _quiet(opinion_exclusion, ds.labels.ravel(), pred.labels.ravel(), item_ids=ds.item_ids,
                     annotator_ids=ds.annotator_ids, pos_label=0.0, ci=0.95, n_boot=200, random_state=0)
    assert plain.unfairness_ci is None and "ci_low" not in plain.group_table
    assert plain.unfairness == with_ci.unfairness and plain.performance == with_ci.performance
    pd.testing.assert_frame_equal(plain.group_table, with_ci.group_table.drop(columns=["ci_low", "ci_high"]))


def test_more_annotators_narrow_the_unfairness_interval():
    """4x the annotators and 4x the annotations per item (same annotations per annotator) narrow the interval by
    at least 30% (the issue's acceptance; quantile bins keep every group's share of annotators)."""
    widths = []
    for scale in (1, 4):
        ds = make_subjective_dataset(n_items=1000, n_annotators=100 * scale, annotations_per_item=5 * scale,
                                     random_state=11)
        m = _quiet(OpinionExclusionMetric, ds, _consensus_model(ds), bins="quantile:5")
        u = m.unfairness_ci(random_state=0)
        assert u.low <= m.unfairness() <= u.high
        widths.append(u.high - u.low)
    assert widths[1] <= 0.7 * widths[0], widths


def _tiny_dataset():
    # a0..a5 agree with the majority on every item; "odd" disagrees twice out of 4: an ADR group of its own
    rows = []
    for item in range(4):
        for a in range(6):
            rows.append((item, f"a{a}", 1))
        rows.append((item, "odd", 0 if item < 2 else 1))
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return MultiAnnotatorDataset(frame, favorable_label=1, unfavorable_label=0)


def test_a_one_annotator_group_is_warned_about_and_not_certain():
    ds = _tiny_dataset()
    pred = ds.with_predictions(np.ones(len(ds.labels)))
    with pytest.warns(UserWarning, match=r"1 of 2 groups holds fewer than 5 annotators: '0\.25.0\.50' "
                                         r"\(1 annotator, 50% of the unfairness\)"):
        m = OpinionExclusionMetric(ds, pred, bins=2)
    thin = m.thin_groups()
    assert len(thin) == 1 and thin["n_annotators"].iloc[0] == 1 and thin["share_of_unfairness"].iloc[0] == 0.5
    both = m.group_performance(ci=0.95, random_state=0)
    only = m.group_performance(ci=0.95, random_state=0, bootstrap_levels="annotators")
    g = thin.index[0]
    # one annotator: its interval would only describe that person's annotations, so none is given
    assert np.isnan(only.loc[g, ["ci_low", "ci_high"]].to_numpy(float)).all()
    assert np.isnan(both.loc[g, ["ci_low", "ci_high"]].to_numpy(float)).all()
    other = [h for h in both.index if h != g][0]
    assert both.loc[other, "ci_low"] <= both.loc[other, "performance"] <= both.loc[other, "ci_high"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OpinionExclusionMetric(ds, pred, bins=2, warn_group_size=0)
        OpinionExclusionMetric(ds, pred, bins=2, warn_group_size=1)


def test_thin_group_shares_follow_the_squared_deviations():
    ds = _tiny_dataset()
    res = _quiet(opinion_exclusion, ds.labels.ravel(), np.ones(len(ds.labels)), item_ids=ds.item_ids,
                 annotator_ids=ds.annotator_ids, bins=2)
    shares = thin_groups(res, 10)["share_of_unfairness"]
    assert shares.tolist() == [0.5, 0.5]  # two groups: each holds half the squared deviation
    assert len(thin_groups(res, 1)) == 0


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"ci": 1.0}, ValueError, "ci must be a confidence level strictly between 0 and 1"),
        ({"ci": True}, ValueError, "ci must be a confidence level"),
        ({"ci": 0.9, "n_boot": 10}, ValueError, "n_boot must be >= 100"),
        ({"ci": 0.9, "n_boot": 200.0}, TypeError, "n_boot must be an int"),
        ({"ci": 0.9, "bootstrap_levels": "items"}, ValueError, "bootstrap_levels must be one of"),
    ],
)
def test_bad_interval_options_raise_the_same_error_from_both_faces(generated, kwargs, exc, match):
    ds, pred = generated
    m = _quiet(OpinionExclusionMetric, ds, pred)
    with pytest.raises(exc, match=match) as from_class:
        m.unfairness_ci(**kwargs)
    with pytest.raises(exc, match=match) as from_function:
        opinion_exclusion(ds.labels.ravel(), pred.labels.ravel(), item_ids=ds.item_ids,
                          annotator_ids=ds.annotator_ids, pos_label=0.0, warn_group_size=0, **kwargs)
    assert str(from_class.value) == str(from_function.value)


def test_callable_performance_cannot_be_bootstrapped(generated):
    ds, pred = generated

    def acc(t, p):
        return float(np.mean(t == p))

    m = _quiet(OpinionExclusionMetric, ds, pred, performance=acc)
    with pytest.raises(ValueError, match=r"named performance measures .*\['acc'\]"):
        m.unfairness_ci()
    with pytest.raises(TypeError, match="warn_group_size must be an int"):
        OpinionExclusionMetric(ds, pred, warn_group_size=2.5)


@pytest.mark.parametrize("performance", ["f1", ["accuracy", "true_positive_rate"]])
def test_four_cell_performances_and_pooled_groups(generated, performance):
    ds, pred = generated
    for grouping in ("adr", "ambiguity"):
        m = _quiet(OpinionExclusionMetric, ds, pred, grouping=grouping, performance=performance, bins=3)
        u = m.unfairness_ci(n_boot=200, random_state=0)
        t = m.group_performance(ci=0.95, n_boot=200, random_state=0)
        assert u.low <= m.unfairness() <= u.high
        assert t[["ci_low", "ci_high"]].notna().all().all()


# ------------------------------------------------------------------------------------ rating measures
def _rated(n_items: int = 300, seed: int = 0, float_pred: bool = False):
    """Ratings 1-5 by 12 annotators; the model predicts the item's rounded mean (or its raw mean)."""
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), 4)
    annotators = np.concatenate([rng.choice(12, 4, replace=False) for _ in range(n_items)])
    base = rng.integers(1, 6, n_items)
    ratings = np.clip(base[items] + rng.integers(-1, 2, len(items)) + (annotators < 3) * 2, 1, 5)
    frame = pd.DataFrame({"item": items, "annotator": annotators, "rating": ratings})
    mean = frame.groupby("item")["rating"].transform("mean").to_numpy()
    pred = mean + rng.normal(0, 0.01, len(mean)) if float_pred else np.round(mean)
    return frame, pred


@pytest.mark.parametrize("performance", ["mae", "within_one"])
def test_rating_measures_get_intervals_from_error_histograms(performance):
    frame, pred = _rated()
    kw = dict(item_ids=frame["item"], annotator_ids=frame["annotator"], positive_from=3, pos_label=0,
              performance=performance, bins=3, warn_group_size=0)
    res = opinion_exclusion(frame["rating"].to_numpy(), pred, ci=0.95, n_boot=400, random_state=0, **kw)
    assert res.unit_cells is not None and set(res.unit_cells) <= {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0}
    assert res.unit_counts.sum() == len(frame)  # every annotation in one error cell
    lo, hi = res.unfairness_ci
    assert lo <= res.unfairness <= hi and hi > lo
    t = res.group_table
    several = t["n_annotators"] > 1  # one-annotator groups get no interval
    assert t.loc[~several, ["ci_low", "ci_high"]].isna().all().all()
    assert ((t["ci_low"] <= t["performance"]) & (t["performance"] <= t["ci_high"]))[several].all()


def test_one_annotators_mae_interval_has_the_sampling_variance_of_its_errors():
    # one annotator, errors 0 (x6) and 2 (x4): MAE 0.8; redrawn MAE has variance var(errors)/n = 0.96/10
    frame = pd.DataFrame({"item": np.arange(10), "annotator": "a", "rating": [3] * 6 + [5] * 4})
    pred = np.full(10, 3.0)
    m = opinion_exclusion(frame["rating"], pred, item_ids=frame["item"], annotator_ids=frame["annotator"],
                          positive_from=3, pos_label=0, performance="mae", warn_group_size=0)
    assert m.group_table["performance"].iloc[0] == pytest.approx(0.8)
    from aif360_subjective.opinion.bootstrap import bootstrap_group_values
    from aif360_subjective.opinion.uncertainty import _count_score

    cells, score = _count_score(m)
    v = bootstrap_group_values(np.zeros(1, int), cells(m.unit_counts), 1, score, n_boot=20000,
                               rng=np.random.default_rng(0))
    assert v.mean() == pytest.approx(0.8, abs=0.01)
    assert v.var() == pytest.approx(0.96 / 10, rel=0.05)


def test_raw_float_predictions_say_why_they_have_no_interval():
    frame, pred = _rated(float_pred=True)
    with pytest.raises(ValueError, match=r"need a discrete rating scale: the absolute errors .* more than 64"):
        opinion_exclusion(frame["rating"].to_numpy(), pred, item_ids=frame["item"], annotator_ids=frame["annotator"],
                          positive_from=3, pos_label=0, performance="mae", ci=0.95, warn_group_size=0)
