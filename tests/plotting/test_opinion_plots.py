"""Figure 3 (heatmap) and the bar/line variant."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from aif360_subjective.datasets import make_subjective_dataset  # noqa: E402
from aif360_subjective.metrics import OpinionExclusionMetric  # noqa: E402
from aif360_subjective.plotting import (  # noqa: E402
    group_interval_tables,
    group_performance_table,
    plot_group_performance,
)


@pytest.fixture(scope="module")
def metrics():
    ds = make_subjective_dataset(n_items=300, n_annotators=40, random_state=2)
    mv = ds.with_predictions(ds.majority_labels())
    return {
        "Model 1": OpinionExclusionMetric(ds, mv, bins=4),
        "Model 3": OpinionExclusionMetric(ds, ds.copy(), bins=4),
    }


def test_table(metrics):
    t = group_performance_table(metrics)
    assert list(t.index) == ["Model 1", "Model 3"]
    assert list(t.columns) == list(metrics["Model 1"].group_performance().index)
    np.testing.assert_allclose(t.loc["Model 3"], 1.0)
    np.testing.assert_allclose(t.loc["Model 1"], metrics["Model 1"].group_performance()["performance"])


def test_heatmap(metrics):
    ax = plot_group_performance(metrics)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("1.00") >= len(metrics["Model 3"].group_performance())
    assert len(texts) == 2 * len(metrics["Model 1"].group_performance())
    assert "unfairness 0.00, performance 1.00" in ax.get_yticklabels()[1].get_text()
    assert ax.images[0].get_array().shape == (2, len(metrics["Model 1"].group_performance()))
    plt.close(ax.figure)


def test_bars_with_group_sizes(metrics):
    ax = plot_group_performance(metrics, kind="bars")
    n_groups = len(metrics["Model 1"].group_performance())
    assert len(ax.patches) == 2 * n_groups
    sizes = ax.sizes_ax.lines[0].get_ydata()
    np.testing.assert_array_equal(sizes, metrics["Model 1"].group_performance()["n_annotators"])
    plt.close(ax.figure)


def test_errors(metrics):
    with pytest.raises(ValueError, match="kind"):
        plot_group_performance(metrics, kind="pie")
    with pytest.raises(ValueError, match="non-empty dict"):
        plot_group_performance({})
    with pytest.raises(TypeError, match="OpinionExclusionMetric"):
        plot_group_performance({"x": 1})


def test_heatmap_with_intervals(metrics):
    from aif360_subjective.opinion.groups import group_label

    low, high = group_interval_tables(metrics, ci=0.9, n_boot=200, random_state=3)
    want = metrics["Model 1"].group_performance(ci=0.9, n_boot=200, random_state=3)
    np.testing.assert_allclose(low.loc["Model 1"], want["ci_low"])
    np.testing.assert_allclose(high.loc["Model 1"], want["ci_high"])
    ax = plot_group_performance(metrics, ci=0.9, n_boot=200, random_state=3)
    texts = [t.get_text() for t in ax.texts]
    table = group_performance_table(metrics)
    for j, g in enumerate(table.columns):
        v, a, b = table.loc["Model 1", g], low.loc["Model 1", g], high.loc["Model 1", g]
        # a group of one annotator has no interval: a dash, not "nan"
        assert (f"{v:.2f}\n[{a:.2f}, {b:.2f}]" if np.isfinite(a) else f"{v:.2f}\n[\u2013]") in texts
        n = int(want.loc[g, "n_annotators"])
        assert ax.get_xticklabels()[j].get_text() == f"{group_label(g)}\n{n} annotator{'' if n == 1 else 's'}"
    u = metrics["Model 1"].unfairness_ci(ci=0.9, n_boot=200, random_state=3)
    assert f"unfairness {metrics['Model 1'].unfairness():.2f} [{u[0]:.2f}, {u[1]:.2f}]" in \
        ax.get_yticklabels()[0].get_text()
    plt.close(ax.figure)


def test_bars_with_error_bars(metrics):
    ax = plot_group_performance(metrics, kind="bars", ci=0.95, n_boot=200)
    low, _ = group_interval_tables(metrics, ci=0.95, n_boot=200, random_state=0)
    bars = [c for c in ax.containers if hasattr(c, "errorbar") and c.errorbar is not None]
    assert len(bars) == 2
    # the lower cap of each Model 1 bar sits at the interval's lower bound (at the value: no bar without one)
    segments = bars[0].errorbar.lines[2][0].get_segments()
    values = group_performance_table(metrics).loc["Model 1"].to_numpy(float)
    want = np.where(np.isfinite(low.loc["Model 1"].to_numpy(float)), low.loc["Model 1"].to_numpy(float), values)
    np.testing.assert_allclose([s[0][1] for s in segments], want)
    assert "95% intervals" in ax.get_title()
    plt.close(ax.figure)


def test_dot_plot_orders_worst_first_with_intervals(named_groups_metric):


    m = named_groups_metric(lambda i: f"a very long group name that goes on and on {i % 15:02d}",
                            n_annotators=30)
    ax = plot_group_performance({"M": m}, kind="dots", ci=0.95, n_boot=200)
    perf = m.group_performance()
    n = perf["n_annotators"]
    order = perf["performance"].sort_values(kind="stable").index  # accuracy: the lowest is the worst
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 15
    # worst served first (at the top), each with its number of annotators; names shortened to 42 characters
    assert labels[0].startswith(order[0][:41]) and labels[0].endswith(f"({int(n[order[0]])})")
    assert all(len(lab.rsplit(" (", 1)[0]) <= 42 for lab in labels) and "…" in labels[0]
    dots = ax.lines[0].get_xdata()
    np.testing.assert_allclose(dots, perf["performance"].reindex(order).to_numpy())
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="'heatmap', 'bars' or 'dots'"):
        plot_group_performance({"M": m}, kind="pie")


@pytest.mark.parametrize("kind", ["bars", "heatmap"])
def test_a_huge_group_name_is_cut_not_drawn_whole(named_groups_metric, kind):
    """Issue 33: a 100,000-character group name made the tick label, and with bbox_inches="tight" the canvas,
    100,000 characters wide: Agg's std::bad_alloc, reported by the command line as out of memory."""
    from aif360_subjective.plotting._text import MAX_TEXT

    huge = "x" * 100_000
    m = named_groups_metric(lambda i: huge if i % 2 else "short", n_annotators=20)
    ax = plot_group_performance({"M": m}, kind=kind, ci=None)
    labels = [t.get_text() for t in (ax.get_xticklabels() + ax.get_yticklabels())]
    cut = [lab for lab in labels if lab.startswith("xxx")]
    assert cut and all(len(lab) == MAX_TEXT and lab.endswith("…") for lab in cut)
    import io

    buf = io.BytesIO()
    ax.figure.savefig(buf, format="png", dpi=50, bbox_inches="tight")  # std::bad_alloc before the cut
    plt.close(ax.figure)
