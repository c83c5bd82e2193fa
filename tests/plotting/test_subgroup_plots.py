"""The subgroup-discovery charts draw the right number of artists and values (Agg backend)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from aif360_subjective.detectors import METRICS, detect_subgroups  # noqa: E402
from aif360_subjective.plotting import (  # noqa: E402
    plot_pattern_table,
    plot_ranking,
    plot_subgroup_metrics,
    plot_subgroup_sizes,
    plot_summary_radar,
)


@pytest.fixture(scope="module")
def report():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(["u", "v", "w"], 300), "b": rng.choice(["x", "y"], 300)})
    y = rng.integers(0, 2, 300)
    return detect_subgroups(X, y, rng.integers(0, 2, 300), n_clusters=6, random_state=0, discovery="asdf")


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_radar(report):
    ax = plot_summary_radar(report)
    assert ax.name == "polar"
    lines = ax.get_lines()
    assert len(lines) == 2
    s = report.summary()
    # every axis scaled on its own: min(0, lowest) at the centre, the highest of the two kinds at the rim
    lo = np.minimum(s.min().to_numpy(), 0.0)
    hi = s.max().to_numpy()
    span = np.where(hi > lo, hi - lo, 1.0)  # an axis where every value is 0 stays at the centre
    np.testing.assert_allclose(lines[0].get_ydata()[:5], (s.loc["cluster"].to_numpy() - lo) / span)
    np.testing.assert_allclose(lines[1].get_ydata()[:5], (s.loc["entropy"].to_numpy() - lo) / span)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[0].startswith("Accuracy error\n(")
    # every axis label states its own range, centre to rim
    assert ticks[1] == f"Statistical parity\n(0 to {s['statistical_parity'].max():.3g})"
    # both lines visible where they coincide: different markers and line styles, semi-transparent
    assert lines[0].get_marker() != lines[1].get_marker() and lines[0].get_linestyle() != lines[1].get_linestyle()
    assert all(line.get_alpha() < 1 for line in lines)
    _assert_legend_clear(ax)


def _assert_legend_clear(ax):
    """The legend overlaps no axis label and no other text of the figure."""
    renderer = ax.figure.canvas.get_renderer()
    ax.figure.canvas.draw()
    legend_box = ax.get_legend().get_window_extent(renderer)
    for label in ax.get_xticklabels():
        assert not legend_box.overlaps(label.get_window_extent(renderer)), label.get_text()
    assert not legend_box.overlaps(ax.title.get_window_extent(renderer))


def test_radar_in_a_small_panel_keeps_labels_clear(report):
    fig = plt.figure(figsize=(13, 4.5))  # notebook 03's three-panel figure
    ax = plot_summary_radar(report, ax=fig.add_subplot(1, 3, 1, projection="polar"))
    fig.add_subplot(1, 3, 2)
    fig.tight_layout()
    _assert_legend_clear(ax)


@pytest.mark.slow
def test_sizes_with_many_ids_are_readable():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=400), "b": rng.normal(size=400)})
    rep = detect_subgroups(X, rng.integers(0, 2, 400), rng.integers(0, 2, 400), n_clusters=30, random_state=0,
                           discovery="asdf")
    ax = plot_subgroup_sizes(rep)
    ax.figure.canvas.draw()
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    assert len(labels) == 30 and all(t.get_rotation() == 90 for t in labels)
    boxes = [t.get_window_extent() for t in labels]
    assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:]))  # neighbouring ids do not overlap


def test_sizes(report):
    ax = plot_subgroup_sizes(report)
    bars = ax.patches
    assert len(bars) == 2 * report.n_clusters
    heights = [b.get_height() for b in bars]
    m = report.subgroup_metrics()
    np.testing.assert_array_equal(
        heights[: report.n_clusters], m.loc["cluster", "size"].to_numpy(dtype=float)
    )


def test_pattern_table(report):
    ax = plot_pattern_table(report)
    table = ax.tables[0]
    pats = report.patterns(all_columns=False)
    cells = table.get_celld()
    assert max(r for r, _ in cells) == len(pats)  # header row + one row per pattern


def test_metric_bars_and_ranking(report):
    ax = plot_subgroup_metrics(report, 0)
    assert len(ax.patches) == 2 * len(METRICS)  # the subgroup and the rest, per metric
    with pytest.raises(ValueError, match="unknown subgroup id"):
        plot_subgroup_metrics(report, 99)
    ax = plot_ranking(report, "equalized_odds", kind="cluster", n=4)
    rk = report.ranking("equalized_odds", kind="cluster", n=4, direction="favoured", alpha=None)
    np.testing.assert_allclose([b.get_width() for b in ax.patches], rk["equalized_odds"].to_numpy())


def test_wrong_object():
    with pytest.raises(TypeError, match="SubgroupReport"):
        plot_summary_radar(pd.DataFrame())


def test_ranking_title_names_the_filter_it_used(report):
    ax = plot_ranking(report, "statistical_parity", kind="cluster", n=4, direction="disadvantaged", alpha=0.05)
    assert ax.get_title().endswith("(adjusted p < 0.05)")  # max-T, the rankings' default


def test_an_empty_ranking_says_so_instead_of_top_0(report):
    empty = report.ranking("statistical_parity", kind="cluster", n=None, direction="favoured", alpha=None).iloc[:0]
    ax = plot_ranking(report, "statistical_parity", kind="cluster", n=4, direction="favoured", ranking=empty,
                      alpha=0.05)
    assert ax.get_title() == "No favoured cluster-based subgroup by Statistical parity (adjusted p < 0.05)"
    assert "Top 0" not in ax.get_title() and not ax.patches
    assert [t.get_text() for t in ax.texts] == ["no subgroup passes the ranking's filter"]


def test_ranking_given_is_drawn_as_it_is(report):
    """Issue 33: the report's table lists the rankings under the whole report's family; the figure beside it draws
    that table's rows, not a ranking of its own."""
    rk = report.ranking("statistical_parity", kind="cluster", n=None, direction="favoured", alpha=None)
    shown = rk.iloc[[2, 0]]  # any subset, in its own order
    ax = plot_ranking(report, "statistical_parity", kind="cluster", n=4, direction="favoured", ranking=shown)
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"c{i}" for i in shown.index]
    np.testing.assert_allclose([b.get_width() for b in ax.patches], shown["statistical_parity"].to_numpy())


def test_ranking_of_every_kind_labels_bars_by_kind_and_id():
    """Issue 33 item 10: a ranking of every kind (index (kind, id)) labels its bars c3, e3, p45, not a(kind, id)."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.choice(["u", "v", "w"], 300), "b": rng.choice(["x", "y"], 300)})
    rep = detect_subgroups(X, rng.integers(0, 2, 300), rng.integers(0, 2, 300), n_clusters=4, random_state=0,
                           discovery="both")
    ax = plot_ranking(rep, "statistical_parity", kind="all", n=6, direction="disadvantaged", alpha=None)
    rk = rep.ranking("statistical_parity", kind="all", n=6, direction="disadvantaged", alpha=None)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"{k[0]}{i}" for k, i in rk.index]
    assert not any("(" in t for t in labels)
