"""Figure 3 (heatmap) and the bar/line variant."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from aif360_subjective.datasets import make_subjective_dataset  # noqa: E402
from aif360_subjective.metrics import OpinionExclusionMetric  # noqa: E402
from aif360_subjective.plotting import group_performance_table, plot_group_performance  # noqa: E402


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
