"""The dashboard's state logic (no browser): re-cuts reuse the clustering, the history, the command exports."""

from __future__ import annotations

import dataclasses
import shlex
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.dashboard._recut import CachedClustering, SharedClustering
from aif360_subjective.dashboard.state import (
    OpinionSession,
    OpinionSettings,
    Source,
    SubgroupSession,
    SubgroupSettings,
    metric_choices,
    parse_bins,
)
from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.detectors import detect_subgroups


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["x", "y", "z"], size=n),
                      "c": rng.integers(0, 4, size=n)})
    y = rng.integers(0, 2, size=n)
    p = np.where(X["b"] == "x", 0, y)  # the model errs on b = x
    return X, y, p


@pytest.mark.slow
def test_recut_equals_a_fresh_run_and_does_not_recluster():
    X, y, p = _table()
    s = SubgroupSession(X, y, p, random_state=0)
    v = s.update(SubgroupSettings(n_clusters=4))
    assert (v.step, v.k, s.n_clusterings) == ("clustering", 4, 1)
    for k, tau in ((7, 0.65), (7, 0.3), (3, 0.9)):
        v = s.update(dataclasses.replace(v.settings, n_clusters=k, entropy_threshold=tau))
        assert v.step == "cut" and s.n_clusterings == 1
        fresh = detect_subgroups(X, y, p, n_clusters=k, entropy_threshold=tau, random_state=0)
        pd.testing.assert_frame_equal(v.report.subgroup_metrics(ci=0.95), fresh.subgroup_metrics(ci=0.95))
        pd.testing.assert_frame_equal(v.report.patterns(), fresh.patterns())
    # metric, direction, alpha: only the ranking
    v2 = s.update(dataclasses.replace(v.settings, metric="accuracy", direction="favoured", alpha=None))
    assert v2.step == "ranking" and v2.report is v.report and s.n_clusterings == 1
    pd.testing.assert_frame_equal(v2.ranking, v.report.ranking("accuracy", direction="favoured", alpha=None))
    # another clusterer: a new clustering
    v3 = s.update(dataclasses.replace(v2.settings, clustering="kmeans"))
    assert v3.step == "clustering" and s.n_clusterings == 2
    # a flat clusterer keeps its labels when only tau changes
    v4 = s.update(dataclasses.replace(v3.settings, entropy_threshold=0.5))
    assert v4.step == "cut" and s.n_clusterings == 2
    np.testing.assert_array_equal(v4.report.clusters.to_numpy(), v3.report.clusters.to_numpy())


@pytest.mark.slow
def test_recut_keeps_the_mined_patterns(monkeypatch):
    from aif360_subjective.detectors import detect as detect_module

    mined = []
    real_mine = detect_module.mine
    monkeypatch.setattr(detect_module, "mine", lambda *a: mined.append(1) or real_mine(*a))
    X, y, p = _table()
    s = SubgroupSession(X, y, p, random_state=0)
    v = s.update(SubgroupSettings(n_clusters=4, discovery="both"))
    assert len(mined) == 1 and "pattern" in v.report.kinds
    for k, tau in ((7, 0.65), (3, 0.3)):
        v = s.update(dataclasses.replace(v.settings, n_clusters=k, entropy_threshold=tau))
        assert v.step == "cut" and len(mined) == 1  # cut again, not mined again
        fresh = detect_subgroups(X, y, p, n_clusters=k, entropy_threshold=tau, random_state=0, discovery="both")
        assert len(mined) == 2  # the fresh run mines
        mined.pop()
        pd.testing.assert_frame_equal(v.report.subgroup_metrics(ci=0.95), fresh.subgroup_metrics(ci=0.95))
        pd.testing.assert_frame_equal(v.report.findings(), fresh.findings())
        pd.testing.assert_frame_equal(v.ranking, fresh.ranking("statistical_parity"))
    v = s.update(dataclasses.replace(v.settings, clustering="kmeans"))  # another clusterer: the same patterns
    assert v.step == "clustering" and len(mined) == 1
    v = s.update(dataclasses.replace(v.settings, categorical=("b",)))  # other categorical columns: other items
    assert v.step == "clustering" and len(mined) == 2


def test_automatic_k_then_recut_at_the_same_k():
    X, y, p = _table()
    s = SubgroupSession(X, y, p, random_state=0)
    v = s.update(SubgroupSettings())
    cli = detect_subgroups(X, y, p, random_state=0)  # what the subgroups command computes
    assert v.k == cli.n_clusters
    pd.testing.assert_frame_equal(v.report.subgroup_metrics(ci=None), cli.subgroup_metrics(ci=None))
    v = s.update(dataclasses.replace(v.settings, entropy_threshold=0.4))
    assert v.step == "cut" and v.k == cli.n_clusters and s.n_clusterings == 1


def test_bad_k_keeps_the_previous_view():
    X, y, p = _table(n=50)
    s = SubgroupSession(X, y, p)
    v = s.update(SubgroupSettings(n_clusters=3))
    with pytest.raises(ValueError, match=r"between 2 and the number of rows \(50\), got 51"):
        s.update(dataclasses.replace(v.settings, n_clusters=51))
    assert s.view is v


def test_cached_clustering_refuses_other_rows():
    Z = np.arange(12.0).reshape(6, 2)
    shared = SharedClustering(Z, labels=np.array([0, 0, 1, 1, 2, 2]))
    est = CachedClustering(shared)
    np.testing.assert_array_equal(est.fit(Z).labels_, [0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="fitted on other rows"):
        est.fit(Z[:5])
    import copy

    assert copy.deepcopy(shared) is shared  # clones share the cached fit
    with pytest.raises(ValueError, match="exactly one"):
        SharedClustering(Z)


@pytest.mark.slow
def test_subgroup_detail_and_command():
    X, y, p = _table()
    s = SubgroupSession(X, y, p, random_state=3, source=Source("t.csv", ("--label-col", "y", "--prediction-col", "p")))
    v = s.update(SubgroupSettings(n_clusters=5, entropy_threshold=0.5, categorical=("b",), alpha=None))
    d = s.subgroup_detail("entropy", v.ranking.index[0])
    row = v.report.subgroup_metrics(ci=0.95).loc[("entropy", v.ranking.index[0])]
    assert d.loc["statistical_parity", "value"] == row["statistical_parity"]
    assert d.loc["accuracy", "ci_low"] == row["accuracy_ci_low"]
    assert d.loc["equal_opportunity", "p_adjusted"] == row["equal_opportunity_p_adjusted"]
    assert 0 < d.loc["statistical_parity", "p_adjusted"] <= 1
    # the detail's heading names the subgroup in words, as the ranking does
    assert d.attrs["description"] == v.ranking.loc[v.ranking.index[0], "subgroup"]
    with pytest.raises(ValueError, match="no subgroup"):
        s.subgroup_detail("entropy", 999)
    cmd = s.command()
    assert shlex.split(cmd) == [
        "aif360-subjective", "subgroups", "t.csv", "--label-col", "y", "--prediction-col", "p", "--clustering",
        "slink", "--entropy-threshold", "0.5", "--n-clusters", "5", "--categorical", "b", "--alpha", "none",
        "--min-size", "1", "--ci", "0.95", "--top", "5", "--seed", "3", "--out", "report.html"]
    html = s.report().render()
    assert "Subgroup fairness summary" in html


@pytest.mark.slow
def test_the_command_runs_and_matches(tmp_path):
    """The exported command, run, reports the same number of clusters."""
    X, y, p = _table()
    df = X.assign(y=y, p=p)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    s = SubgroupSession(X, y == 0, p == 0, source=Source(str(path), ("--label-col", "y", "--prediction-col", "p")))
    s.update(SubgroupSettings(n_clusters=6, entropy_threshold=0.5))
    args = shlex.split(s.command())[1:]
    args[args.index("--out") + 1] = str(tmp_path / "r.html")
    out = subprocess.run([sys.executable, "-m", "aif360_subjective", *args], capture_output=True, text=True,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    # the command's report and the dashboard's export state the same number of clusters
    fact = '<div class="fact-value">6</div><div class="fact-label">clusters</div>'
    assert fact in html
    assert fact in s.report().render()


@pytest.fixture(scope="module")
def opinion():
    return OpinionSession(make_subjective_dataset(n_items=400, n_annotators=40, random_state=0), seed=0)


@pytest.mark.slow
def test_opinion_views_and_history(opinion):
    s = OpinionSettings(ci=None)
    table = opinion.summary(s, intervals=False)
    assert list(table.index) == ["Model 1 (majority vote)", "Model 2 (annotator-aware)"]
    m = opinion.metrics(s)["Model 1 (majority vote)"]
    assert table.loc["Model 1 (majority vote)", "unfairness"] == m.unfairness()
    assert opinion.metrics(s) is opinion.metrics(dataclasses.replace(s, ci=0.9))  # same grouping: cached
    s95 = OpinionSettings(ci=0.95, n_boot=200)
    assert not opinion.has_intervals(s95)
    with_ci = opinion.summary(s95)
    assert opinion.has_intervals(s95)
    low, high = m.unfairness_ci(ci=0.95, n_boot=200, random_state=0)
    assert (with_ci.loc["Model 1 (majority vote)", "unfairness_ci_low"], with_ci.loc["Model 1 (majority vote)",
            "unfairness_ci_high"]) == (low, high)
    # with intervals: the metric's own verdict sentence; without: worst and best group of the raw table
    assert opinion.answer(s95, "Model 1 (majority vote)") == (
        f"Model 1 (majority vote): {m.verdict(ci=0.95, n_boot=200, random_state=0)}.")
    text = opinion.answer(s95, "Model 1 (majority vote)", intervals=False)
    groups = m.group_performance()
    worst = m.worst_group()
    assert "the group served worst is" in text and f"{groups.loc[worst, 'performance']:.3f})" in text
    assert text.endswith("(Intervals not computed yet.)")
    n = len(opinion.history)
    before_after = opinion.mitigate("reweighting", s95)
    assert list(before_after.index) == ["before", "after"]
    assert before_after.loc["before", "unfairness"] == m.unfairness()
    hist = opinion.history_frame()
    assert len(hist) == n + 1 and hist.index[-1] == n + 1
    assert hist.iloc[-1]["unfairness before"].startswith(f"{m.unfairness():.3f} [")
    # Model 2 as a mitigation of Model 1: the same model as the tab's Model 2 (same data, same seed)
    m1, m2 = (opinion.models[k] for k in ("Model 1 (majority vote)", "Model 2 (annotator-aware)"))
    aware = opinion.mitigate("annotator_aware", s95)
    assert aware.loc["after", "unfairness"] == opinion.metrics(s95)["Model 2 (annotator-aware)"].unfairness()
    assert aware.attrs["changed"] == int((m1.labels.ravel() != m2.labels.ravel()).sum())
    assert f"{aware.attrs['changed']:,} of {len(m1.labels):,} held-out predictions" in opinion.history[-1]["setting"]
    n += 1
    with pytest.raises(ValueError, match="mitigation must be one of"):
        opinion.mitigate("nothing", s95)
    with pytest.raises(ValueError, match="threshold"):
        opinion.mitigate("crowdtruth", s95, threshold=1.5)
    assert len(opinion.history_frame()) == n + 1  # a failed try is not recorded


@pytest.mark.slow
def test_opinion_command_and_report(opinion):
    s = OpinionSettings(grouping="demographic", bins="quantile:4", min_group_size=2, ci=0.9, n_boot=200)
    cmd = shlex.split(opinion.command(s))
    assert cmd[:3] == ["aif360-subjective", "audit", "DATA.csv"]
    assert cmd[cmd.index("--grouping") + 1] == "demographic" and cmd[cmd.index("--bins") + 1] == "quantile:4"
    assert cmd[cmd.index("--ci") + 1] == "0.9" and cmd[cmd.index("--model") + 1] == "majority"
    html = opinion.report(s).render()
    assert "Opinion-exclusion unfairness" in html


@pytest.mark.slow
def test_opinion_excluded_groups_view(opinion):
    s = OpinionSettings(ci=None)
    ex = opinion.excluded("Model 1 (majority vote)", s, adjust="items")
    m = opinion.metrics(s)["Model 1 (majority vote)"]
    pd.testing.assert_frame_equal(ex.candidates(), m.excluded_groups(adjust="items", random_state=0).candidates())
    assert opinion.excluded("Model 1 (majority vote)", s, adjust="items") is ex  # cached
    cmd = shlex.split(opinion.discover_command(s, adjust="items", max_conditions=3))
    assert cmd[:2] == ["aif360-subjective", "audit"] and "--discover" in cmd
    assert cmd[cmd.index("--adjust") + 1] == "items" and cmd[cmd.index("--max-conditions") + 1] == "3"
    with pytest.raises(ValueError, match="not a mean of per-annotation scores"):
        opinion.excluded("Model 1 (majority vote)", OpinionSettings(ci=None, performance="f1"))
    # the export holds the search of the view's measure, and only of it
    html = opinion.report(s).render()
    assert "Whose opinions are excluded" in html and ex.sentence().split(":")[0] in html
    other = OpinionSettings(ci=None, performance="false_positive_rate")
    assert "Whose opinions are excluded" not in opinion.report(other).render()


def test_opinion_excluded_groups_balance(opinion):
    from aif360_subjective.opinion import excluded_groups

    s = OpinionSettings(ci=None)
    name = "Model 1 (majority vote)"
    plain = opinion.excluded(name, s, balance="none")
    m = opinion.metrics(s)[name]
    d, c = m.dataset, m.classified_dataset
    func = excluded_groups(d.labels.ravel(), c.labels.ravel(), item_ids=d.item_ids, annotator_ids=d.annotator_ids,
                           annotators=d.annotators, balance="none", random_state=opinion.seed)
    pd.testing.assert_frame_equal(plain.candidates(), func.candidates())
    assert plain.balance == "none" and "balance='none'" in plain.summary()
    # the cache tells the balances apart: the default's thresholds differ (one per number of conditions)
    balanced = opinion.excluded(name, s)
    assert balanced is not plain and balanced.balance == "conditions"
    assert not np.allclose(balanced.candidates()["threshold"], plain.candidates()["threshold"])
    cmd = shlex.split(opinion.discover_command(s, balance="none"))
    assert cmd[cmd.index("--balance") + 1] == "none"
    with pytest.raises(ValueError, match="balance"):
        opinion.excluded(name, s, balance="classes")


def test_opinion_excluded_groups_step_down(opinion):
    s = OpinionSettings(ci=None)
    name = "Model 1 (majority vote)"
    sd = opinion.excluded(name, s, step_down=True)
    single = opinion.excluded(name, s)
    assert sd is not single and sd.step_down and not single.step_down  # the cache tells them apart
    m = opinion.metrics(s)[name]
    pd.testing.assert_frame_equal(sd.candidates(), m.excluded_groups(step_down=True, random_state=0).candidates())
    assert (sd.candidates()["p_adjusted"] <= single.candidates()["p_adjusted"] + 1e-12).all()
    assert "--step-down" in shlex.split(opinion.discover_command(s, step_down=True))
    assert "--step-down" not in shlex.split(opinion.discover_command(s))
    with pytest.raises(TypeError, match="step_down must be True or False"):
        opinion.excluded(name, s, step_down="yes")


def test_parse_bins():
    assert parse_bins("5") == 5
    assert parse_bins("quantile:3") == "quantile:3"
    assert parse_bins("0,0.2,1") == [0.0, 0.2, 1.0]
    with pytest.raises(ValueError, match="bins 'x'"):
        parse_bins("x")


def test_no_panel_at_import_and_cli_help():
    # what the package itself imports (aif360 and its dependencies) is the same for every command
    code = ("import sys, aif360_subjective; before = set(sys.modules);"
            " import aif360_subjective.dashboard, aif360_subjective.cli.dashboard;"
            " from aif360_subjective.cli import build_parser; build_parser();"
            " new = set(sys.modules) - before;"
            " print(sorted({m.split('.')[0] for m in new} & {'panel', 'bokeh', 'sklearn', 'matplotlib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("clustering, steps", [
    ("slink", [(None, 0.65), (None, 0.4), (6, 0.4), (4, 0.3)]),
    ("kmeans", [(5, 0.65), (5, 0.4), (None, 0.4), (None, 0.3)]),
    ("birch", [(4, 0.65), (4, 0.4)]),
])
@pytest.mark.slow
def test_every_view_has_the_adjusted_p_of_its_command(clustering, steps):
    """Issue 33 item 13: the page (and so its report) gives the adjusted p-values of the equivalent command, also
    after a re-cut: the re-cut takes the command's random draws, settings it cannot mimic are clustered again."""
    X, y, p = _table(n=240, seed=4)
    s = SubgroupSession(X, y, p, random_state=1)
    settings = SubgroupSettings(clustering=clustering, alpha=None)
    for k, tau in steps:
        settings = dataclasses.replace(settings, n_clusters=k, entropy_threshold=tau)
        v = s.update(settings)
        fresh = detect_subgroups(X, y, p, clustering=clustering, n_clusters=k, entropy_threshold=tau,
                                 random_state=1)
        pd.testing.assert_frame_equal(v.report.subgroup_metrics(ci=0.95), fresh.subgroup_metrics(ci=0.95))
        pd.testing.assert_series_equal(v.report.validity, fresh.validity)
        exported = s.report()
        assert "CachedClustering" not in exported.render()
    assert s.n_clusterings < len(steps) or clustering == "birch"  # some steps were re-cuts


# ------------------------------------------------------------------------------------------------ tasks (issue 30)
def _outcomes(task: str, n: int = 300, seed: int = 0):
    """Attributes and (truth, prediction) of one task; the model errs on b = x."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["x", "y", "z"], size=n)})
    x = (X["b"] == "x").to_numpy()
    if task == "regression":
        y = rng.normal(size=n)
        return X, y, y + 1.5 * x + rng.normal(0, 0.3, n)
    if task == "ordinal":
        y = rng.integers(1, 6, n)
        return X, y, np.clip(y + 2 * x, 1, 5)
    y = rng.choice(["cat", "dog", "owl"], n)
    return X, y, np.where(x, "owl", y)


@pytest.mark.parametrize(("task", "metric", "label", "direction", "names"), [
    ("regression", "mean_absolute_error", None, "disadvantaged", ["mean_absolute_error", "mean_error",
                                                                  "mean_prediction"]),
    # over-predicted: favoured by its bias (a negative mean error is the disadvantaged side)
    ("ordinal", "mean_error", None, "favoured", ["mean_absolute_error", "mean_error", "mean_prediction",
                                                 "accuracy_error"]),
    ("multiclass", "accuracy_error", None, "disadvantaged", ["accuracy_error", "statistical_parity[cat]",
                                                             "statistical_parity[dog]", "statistical_parity[owl]"]),
    # one class against the others (ranking(label=)): b = x predicted "owl" more than the rest
    ("multiclass", "statistical_parity[owl]", "owl", "favoured", None),
])
@pytest.mark.slow
def test_task_views_are_the_reports(task, metric, label, direction, names):
    """Each task's view: the task's metrics to choose from, its ranking (a class's parity through ``label=``),
    the clicked subgroup's metrics, the equivalent command with ``--task``; identical to detect_subgroups."""
    X, y, p = _outcomes(task)
    s = SubgroupSession(X, None, None, outcomes=(y, p), random_state=0,
                        source=Source("t.csv", ("--label-col", "y", "--prediction-col", "p")))
    settings = SubgroupSettings(task=task, metric=metric, n_clusters=4, discovery="both", kind="all",
                                direction=direction)
    v = s.update(settings)
    fresh = detect_subgroups(X, y, p, task=task, n_clusters=4, discovery="both", random_state=0)
    assert v.report.task == task and v.settings == settings and f"Task: task={task!r} (given)." in v.notes
    if names is not None:
        assert metric_choices(v.report) == [*names, "size"]
    base = "statistical_parity" if label is not None else metric
    expected = fresh.ranking(base, kind="all", label=label, direction=direction)
    assert f"mean |{fresh.candidate_metrics.names[0]} ({task})|" in repr(v.report)
    pd.testing.assert_frame_equal(v.ranking, expected)
    assert len(v.ranking) >= 1 and any("b=x" in str(d) for d in v.ranking["subgroup"])  # the planted subgroup
    kind, sid = v.ranking.index[0]
    detail = s.subgroup_detail(kind, sid)
    assert list(detail.index) == list(fresh.candidate_metrics.names)
    row = fresh.subgroup_metrics(ci=0.95).loc[(kind, sid)]
    assert detail.loc[metric, "value"] == row[metric] and detail.loc[metric, "p_adjusted"] == row[
        f"{metric}_p_adjusted"]
    command = shlex.split(s.command())
    assert command[command.index("--task") + 1] == task
    html = s.report().render()
    assert "Rankings by metric" in html and "statistical_parity[owl]" not in html.split("<body")[0]


@pytest.mark.slow
def test_task_change_reanalyses_and_a_metric_of_another_task_falls_back():
    X, y, p = _outcomes("ordinal")
    binary_true, binary_pred = (y >= 4).astype(int), (p >= 4).astype(int)
    s = SubgroupSession(X, binary_true, binary_pred, outcomes=(y, p), random_state=0)
    v = s.update(SubgroupSettings(n_clusters=4))
    assert v.report.task == "binary" and s.n_clusterings == 1
    v = s.update(dataclasses.replace(v.settings, task="ordinal"))  # statistical_parity: not an ordinal metric
    assert (v.step, v.report.task, v.settings.metric) == ("clustering", "ordinal", "mean_absolute_error")
    assert any(n.startswith("Ranked by mean_absolute_error: the ordinal task has no statistical_parity") for n in
               v.notes)
    pd.testing.assert_frame_equal(v.ranking, v.report.ranking("mean_absolute_error"))
    v2 = s.update(dataclasses.replace(v.settings, metric="mean_prediction"))  # a re-ranking only
    assert v2.step == "ranking" and v2.report is v.report
    v3 = s.update(dataclasses.replace(v2.settings, task="auto"))
    assert v3.report.task == "ordinal" and "Task: task='auto' chose 'ordinal'" in v3.notes[0]
    v4 = s.update(dataclasses.replace(v3.settings, task="binary", metric="equal_opportunity"))
    fresh = detect_subgroups(X, binary_true, binary_pred, n_clusters=4, random_state=0)
    pd.testing.assert_frame_equal(v4.report.subgroup_metrics(ci=0.95), fresh.subgroup_metrics(ci=0.95))


def test_auto_on_two_labels_analyses_the_binary_decisions():
    X, y, p = _table()
    yes_no = np.where(y == 1, "yes", "no"), np.where(p == 1, "yes", "no")
    s = SubgroupSession(X, y, p, outcomes=yes_no, random_state=0)
    v = s.update(SubgroupSettings(task="auto", n_clusters=4))
    assert v.report.task == "binary" and v.notes[0].startswith("Task: 'auto' chose 'binary'")
    fresh = detect_subgroups(X, y, p, n_clusters=4, random_state=0)
    pd.testing.assert_frame_equal(v.report.subgroup_metrics(ci=0.95), fresh.subgroup_metrics(ci=0.95))


def test_task_errors_keep_the_previous_view():
    X, y, p = _outcomes("regression")
    s = SubgroupSession(X, None, None, outcomes=(y, p), random_state=0)
    v = s.update(SubgroupSettings(task="regression", n_clusters=3))
    with pytest.raises(ValueError, match="the binary task needs binary decisions: choose a favourable label"):
        s.update(dataclasses.replace(v.settings, task="binary"))
    with pytest.raises(ValueError, match="task must be one of"):
        s.update(dataclasses.replace(v.settings, task="ratings"))
    assert s.view is v
    X3, y3, p3 = _outcomes("multiclass")
    with pytest.raises(ValueError, match="task='regression' needs numeric labels"):
        SubgroupSession(X3, None, None, outcomes=(y3, p3)).update(SubgroupSettings(task="regression", n_clusters=3))
    bad = y.copy()
    bad[3] = np.inf
    s2 = SubgroupSession(X, None, None, outcomes=(bad, p))
    with pytest.raises(ValueError, match="y_true contains 1 infinite value"):
        s2.update(SubgroupSettings(task="regression", n_clusters=3))
    with pytest.raises(ValueError, match="one value per row of X"):
        SubgroupSession(X, None, None, outcomes=(y[:-1], p))
    with pytest.raises(ValueError, match="give y_true and y_pred"):
        SubgroupSession(X, None, None)
    # two labels and no favourable one: "auto" chooses binary decisions, which need it
    yes_no = np.where(y > 0, "yes", "no"), np.where(p > 0, "yes", "no")
    with pytest.raises(ValueError, match=r"task='auto' chose 'binary'.*binary decisions need a favourable label"):
        SubgroupSession(X, None, None, outcomes=yes_no).update(SubgroupSettings(task="auto", n_clusters=3))


@pytest.mark.slow
def test_validated_clusterings_in_the_session_are_a_fresh_run():
    """Issue 40: the dashboard's clusterings control runs the validated clusterings, and a new k refits them."""
    X, y, p = _table()
    s = SubgroupSession(X, y, p, random_state=0)
    v = s.update(SubgroupSettings(clusterings="validated", n_clusters=4, discovery="asdf"))
    cv = v.report.cluster_validation()
    assert cv["selected"].sum() == 1 and cv["source"].iloc[0] == "seed" and cv["k"].iloc[0] == 4
    v = s.update(dataclasses.replace(v.settings, n_clusters=5))
    assert v.step == "clustering" and v.report.validated is not None
