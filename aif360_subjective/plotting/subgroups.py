"""The ASDF-Dashboard's charts for subgroup discovery, as matplotlib figures.

Every function takes a :class:`~aif360_subjective.detectors.SubgroupReport` or a
:class:`~aif360_subjective.metrics.SubgroupDiscoveryMetric` and returns the Axes it drew on (a new figure
unless ``ax`` is given). Nothing is shown or saved.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis"
    (Figures 2-4).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "plot_summary_radar",
    "plot_subgroup_sizes",
    "plot_pattern_table",
    "plot_subgroup_metrics",
    "plot_ranking",
]

_KIND_COLOURS = {"cluster": "tab:red", "entropy": "tab:blue"}
_LABELS = {
    "accuracy_error": "Accuracy error",
    "statistical_parity": "Statistical parity",
    "equal_opportunity": "Equal opportunity",
    "equalized_odds": "Equalized odds",
    "accuracy": "Accuracy",
}


def _report(obj):
    rep = getattr(obj, "report", obj)
    if not hasattr(rep, "subgroup_metrics") or not hasattr(rep, "summary"):
        raise TypeError(f"expected a SubgroupReport or SubgroupDiscoveryMetric, got {type(obj).__name__}")
    return rep


def _axes(ax, polar=False, figsize=(6, 4)):
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax
    fig = plt.figure(figsize=figsize)
    return fig.add_subplot(111, projection="polar" if polar else None)


def plot_summary_radar(report, ax=None):
    """Radar of the five summary values, cluster- (red) against entropy-based (blue) subgroups.

    Returns:
        matplotlib.axes.Axes: a polar Axes with one closed line per kind.
    """
    summary = _report(report).summary()
    ax = _axes(ax, polar=True, figsize=(5, 5))
    cols = list(summary.columns)
    angles = np.linspace(0, 2 * np.pi, len(cols), endpoint=False)
    closed = np.concatenate([angles, angles[:1]])
    for kind, row in summary.iterrows():
        vals = row.to_numpy(dtype=float)
        ax.plot(
            closed, np.concatenate([vals, vals[:1]]), color=_KIND_COLOURS.get(kind), label=f"{kind}-based"
        )
        ax.fill(closed, np.concatenate([vals, vals[:1]]), color=_KIND_COLOURS.get(kind), alpha=0.15)
    ax.set_xticks(angles)
    ax.set_xticklabels([_LABELS.get(c, c) for c in cols])
    ax.set_title("Subgroup fairness summary")
    ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.1))
    return ax


def plot_subgroup_sizes(report, ax=None):
    """Bars of the size of every cluster and of its entropy-based subgroup, side by side per id."""
    m = _report(report).subgroup_metrics(ci=None)
    ax = _axes(ax, figsize=(9, 4))
    ids = m.loc["cluster"].index.to_numpy()
    x = np.arange(len(ids))
    for off, kind in ((-0.2, "cluster"), (0.2, "entropy")):
        sizes = m.loc[kind, "size"].to_numpy(dtype=float, na_value=0.0)
        ax.bar(x + off, sizes, width=0.4, color=_KIND_COLOURS[kind], label=f"{kind}-based")
    ax.set_xticks(x)
    ax.set_xticklabels([str(i) for i in ids], fontsize=7)
    ax.set_xlabel("subgroup id")
    ax.set_ylabel("rows")
    ax.set_title("Subgroup sizes")
    ax.legend()
    return ax


def plot_pattern_table(report, ax=None, all_columns: bool = False):
    """The entropy patterns as a table figure (only attributes dominant somewhere, as the dashboard)."""
    rep = _report(report)
    pats = rep.patterns(all_columns=all_columns)
    ax = _axes(ax, figsize=(min(2 + 1.6 * pats.shape[1], 18), 0.6 + 0.25 * len(pats)))
    ax.axis("off")
    cells = [
        ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in row]
        for row in pats.itertuples(index=False)
    ]
    table = ax.table(
        cellText=cells, rowLabels=[str(i) for i in pats.index], colLabels=list(pats.columns), loc="center"
    )
    table.auto_set_font_size(False)
    table.set_fontsize(7)
    ax.set_title("Entropy-based patterns")
    return ax


def plot_subgroup_metrics(report, id, ax=None):
    """Bars of the five metrics of cluster ``id`` and of its entropy-based subgroup."""
    rep = _report(report)
    m = rep.subgroup_metrics(ci=None)
    ax = _axes(ax, figsize=(7, 4))
    cols = ["statistical_parity", "equal_opportunity", "equalized_odds", "accuracy", "accuracy_error"]
    x = np.arange(len(cols))
    for off, kind in ((-0.2, "cluster"), (0.2, "entropy")):
        if (kind, id) not in m.index:
            raise ValueError(f"unknown subgroup id {id!r}")
        vals = m.loc[(kind, id), cols].to_numpy(dtype=float)
        ax.bar(x + off, np.nan_to_num(vals), width=0.4, color=_KIND_COLOURS[kind], label=f"{kind} {id}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([_LABELS[c] for c in cols], rotation=20)
    ax.set_title(f"Fairness of subgroup {id}")
    ax.legend()
    return ax


def plot_ranking(
    report,
    metric: str = "statistical_parity",
    kind: str = "entropy",
    n: int = 5,
    ascending: bool = True,
    ax=None,
    *,
    direction: str | None = None,
    alpha: float | None = None,
    min_size: int = 1,
):
    """Horizontal bars of the top-``n`` subgroups by ``metric``.

    With ``direction`` (``"disadvantaged"`` or ``"favoured"``, see
    :data:`~aif360_subjective.detectors.DIRECTIONS`) the bars are ``ranking(metric, direction=..., alpha=...,
    min_size=...)``, with the confidence intervals as error bars when ``alpha`` is given. Without it, the
    seed's raw ranking sorted by increasing (``ascending=True``) or decreasing value.
    """
    from ..detectors.directions import sort_descending

    rep = _report(report)
    if direction is None:  # the raw ranking, as ascending= always gave it
        direction = "disadvantaged" if sort_descending(metric, "disadvantaged") != ascending else "favoured"
        alpha = None
    rk = rep.ranking(metric, kind=kind, n=n, direction=direction, alpha=alpha, min_size=min_size)
    ax = _axes(ax, figsize=(7, 0.5 + 0.5 * max(len(rk), 1)))
    y = np.arange(len(rk))[::-1]
    values = rk[metric].to_numpy(dtype=float, na_value=np.nan)
    xerr = None
    if metric + "_ci_low" in rk.columns:
        low, high = rk[metric + "_ci_low"].to_numpy(float), rk[metric + "_ci_high"].to_numpy(float)
        xerr = np.vstack([values - low, high - values])
    ax.barh(y, values, color=_KIND_COLOURS.get(kind), xerr=xerr, capsize=3 if xerr is not None else 0)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{kind[0]}{i}" for i in rk.index])
    ax.axvline(0, color="black", linewidth=0.8)
    title = f"Top {len(rk)} {direction} {kind}-based subgroups by {_LABELS.get(metric, metric)}"
    if alpha is not None:
        title += f" (q < {alpha:g})"
    ax.set_title(title)
    return ax
