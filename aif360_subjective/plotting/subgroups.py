"""The ASDF-Dashboard's charts for subgroup discovery, as matplotlib figures.

Every function takes a :class:`~aif360_subjective.detectors.SubgroupReport` or a
:class:`~aif360_subjective.metrics.SubgroupDiscoveryMetric` and returns the Axes it drew on (a new figure
unless ``ax`` is given). Nothing is shown or saved.

References:
    J. Schäfer and L. Wiese, "ASDF-Dashboard: Automated Subgroup Detection and Fairness Analysis"
    (Figures 2-4).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..detectors.subgroup_metrics import SUBGROUP_METRICS, metric_label
from ._text import literal

__all__ = [
    "plot_summary_radar",
    "plot_subgroup_sizes",
    "plot_pattern_table",
    "plot_subgroup_metrics",
    "plot_ranking",
]

_KIND_COLOURS = {"cluster": "tab:red", "entropy": "tab:blue"}
_LABELS = {name: m.label for name, m in SUBGROUP_METRICS.items()}


def _report(obj: Any) -> Any:
    rep = getattr(obj, "report", obj)
    if not hasattr(rep, "subgroup_metrics") or not hasattr(rep, "summary"):
        raise TypeError(f"expected a SubgroupReport or SubgroupDiscoveryMetric, got {type(obj).__name__}")
    return rep


def _axes(ax: Any, polar: bool = False, figsize: tuple[float, float] = (6, 4)) -> Any:
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax
    fig = plt.figure(figsize=figsize)
    return fig.add_subplot(111, projection="polar" if polar else None)


def plot_summary_radar(report: Any, ax: Any = None) -> Any:
    """Radar of the five summary values, cluster- (red, circles) against entropy-based (blue, squares) subgroups.

    Accuracy (around 0.7) and the fairness differences (often below 0.1) do not share a scale, so every axis
    is scaled on its own, from min(0, lowest value) at the centre to the highest value of the two kinds at
    the rim; each axis label states its range. Compare the two kinds along an axis, not areas.

    Returns:
        matplotlib.axes.Axes: a polar Axes with one closed line per kind.
    """
    summary = _report(report).summary()
    ax = _axes(ax, polar=True, figsize=(6, 6))
    cols = list(summary.columns)
    values = summary.to_numpy(dtype=float)
    finite = np.where(np.isfinite(values), values, np.nan)
    lo = np.minimum(np.nanmin(np.vstack([finite, np.zeros((1, len(cols)))]), axis=0), 0.0)
    hi = np.nanmax(np.vstack([finite, lo[None, :] + 1e-12]), axis=0)
    scaled = (values - lo) / np.where(hi > lo, hi - lo, 1.0)
    angles = np.linspace(0, 2 * np.pi, len(cols), endpoint=False)
    closed = np.concatenate([angles, angles[:1]])
    styles = {"cluster": ("o", "-"), "entropy": ("s", "--")}
    for kind, r in zip(summary.index, scaled, strict=True):
        marker, line = styles.get(kind, ("^", ":"))
        colour = _KIND_COLOURS.get(kind)
        ring = np.concatenate([r, r[:1]])
        ax.plot(closed, ring, color=colour, marker=marker, linestyle=line, linewidth=2, markersize=7,
                alpha=0.85, label=f"{kind}-based")
        ax.fill(closed, ring, color=colour, alpha=0.08)
    ax.set_xticks(angles)
    # each axis label states its own scale (centre to rim)
    names = [f"{_LABELS.get(c, c)}\n({_scale(a)} to {_scale(b)})" for c, a, b in zip(cols, lo, hi, strict=True)]
    ax.set_xticklabels(names, fontsize=9)
    ax.tick_params(axis="x", pad=16)
    ax.set_ylim(0, 1.1)
    ax.set_yticklabels([])
    ax.set_theta_offset(np.pi / 2)  # first axis at the top: no axis label sits at the bottom, under the legend
    ax.set_title("Subgroup fairness summary\n(each axis on its own scale)", pad=28)
    # below the axis labels: a legend inside the polar frame covers an axis label
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    return ax


def _scale(v: float) -> str:
    return "0" if v == 0 else f"{v:.3g}"


def plot_subgroup_sizes(report: Any, ax: Any = None) -> Any:
    """Bars of the size of every cluster and of its entropy-based subgroup, side by side per id.

    Many subgroups widen the figure and turn the id labels upright (every k-th id beyond 60), so that
    neighbouring ids never run together.
    """
    m = _report(report).subgroup_metrics(ci=None)
    ids = m.loc["cluster"].index.to_numpy()
    ax = _axes(ax, figsize=(min(max(9.0, 0.3 * len(ids)), 18.0), 4))
    x = np.arange(len(ids))
    for off, kind in ((-0.2, "cluster"), (0.2, "entropy")):
        sizes = m.loc[kind, "size"].to_numpy(dtype=float, na_value=0.0)
        ax.bar(x + off, sizes, width=0.4, color=_KIND_COLOURS[kind], label=f"{kind}-based")
    step = max(1, int(np.ceil(len(ids) / 60)))
    ax.set_xticks(x[::step])
    ax.set_xticklabels([str(i) for i in ids[::step]], fontsize=7, rotation=90 if len(ids) > 15 else 0)
    ax.set_xlim(-0.6, len(ids) - 0.4)
    ax.set_xlabel("subgroup id")
    ax.set_ylabel("rows")
    ax.set_title("Subgroup sizes")
    ax.legend()
    return ax


def plot_pattern_table(report: Any, ax: Any = None, all_columns: bool = False) -> Any:
    """The entropy patterns as a table figure (only attributes dominant somewhere, as the dashboard)."""
    rep = _report(report)
    pats = rep.patterns(all_columns=all_columns)
    ax = _axes(ax, figsize=(min(2 + 1.6 * pats.shape[1], 18), 0.6 + 0.25 * len(pats)))
    ax.axis("off")
    cells = [
        ["" if v is None or (isinstance(v, float) and np.isnan(v)) else literal(v) for v in row]
        for row in pats.itertuples(index=False)
    ]
    table = ax.table(
        cellText=cells, rowLabels=[literal(i) for i in pats.index], colLabels=[literal(c) for c in pats.columns],
        loc="center",
    )
    table.auto_set_font_size(False)
    table.set_fontsize(7)
    ax.set_title("Entropy-based patterns")
    return ax


def plot_subgroup_metrics(report: Any, id: Any, ax: Any = None) -> Any:
    """Bars of the metrics of cluster ``id`` and of its entropy-based subgroup (the report's task's metrics: a
    binary decision's, or those of a multi-class, ordinal or regression model)."""
    rep = _report(report)
    m = rep.subgroup_metrics(ci=None)
    ax = _axes(ax, figsize=(7, 4))
    cols = list(rep.candidate_metrics.names)
    x = np.arange(len(cols))
    for off, kind in ((-0.2, "cluster"), (0.2, "entropy")):
        if (kind, id) not in m.index:
            raise ValueError(f"unknown subgroup id {id!r}")
        vals = m.loc[(kind, id), cols].to_numpy(dtype=float)
        ax.bar(x + off, np.nan_to_num(vals), width=0.4, color=_KIND_COLOURS[kind], label=f"{kind} {id}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([metric_label(c) for c in cols], rotation=20)
    ax.set_title(f"Fairness of subgroup {id}")
    ax.legend()
    return ax


def plot_ranking(
    report: Any,
    metric: str = "statistical_parity",
    kind: str = "entropy",
    n: int = 5,
    ascending: bool = True,
    ax: Any = None,
    *,
    direction: str | None = None,
    alpha: float | None = None,
    min_size: int = 1,
    ranking: Any = None,
) -> Any:
    """Horizontal bars of the top-``n`` subgroups by ``metric``.

    With ``direction`` (``"disadvantaged"`` or ``"favoured"``, see
    :data:`~aif360_subjective.detectors.DIRECTIONS`) the bars are ``ranking(metric, direction=..., alpha=...,
    min_size=...)``, with the confidence intervals as error bars when ``alpha`` is given. Without it, the
    seed's raw ranking sorted by increasing (``ascending=True``) or decreasing value. ``ranking``: a ranking
    of ``metric`` already computed (e.g. restricted to the report's family, as the HTML report's table beside the
    figure), drawn as it is (its first ``n`` rows) instead of computing one.
    """
    from ..detectors.directions import sort_descending

    rep = _report(report)
    if direction is None:  # the raw ranking, as ascending= always gave it
        direction = "disadvantaged" if sort_descending(metric, "disadvantaged") != ascending else "favoured"
        alpha = None
    rk = (rep.ranking(metric, kind=kind, n=n, direction=direction, alpha=alpha, min_size=min_size) if ranking is None
          else ranking.head(n))
    ax = _axes(ax, figsize=(7, 0.5 + 0.5 * max(len(rk), 1)))
    y = np.arange(len(rk))[::-1]
    values = rk[metric].to_numpy(dtype=float, na_value=np.nan)
    xerr = None
    if metric + "_ci_low" in rk.columns:
        low, high = rk[metric + "_ci_low"].to_numpy(float), rk[metric + "_ci_high"].to_numpy(float)
        xerr = np.vstack([values - low, high - values])
    ax.barh(y, values, color=_KIND_COLOURS.get(kind), xerr=xerr, capsize=3 if xerr is not None else 0)
    ax.set_yticks(y)
    # a ranking of every kind is indexed by (kind, id): label its bars c3, e3, p45 as the one-kind rankings do
    ax.set_yticklabels([f"{i[0][0]}{i[1]}" if isinstance(i, tuple) else f"{kind[0]}{i}" for i in rk.index])
    ax.axvline(0, color="black", linewidth=0.8)
    what = f"{direction} {kind}-based subgroups by {_LABELS.get(metric, metric)}"
    test = ""
    if alpha is not None:  # the ranking's filter: max-T adjusted p-values by default, q-values under control="fdr"
        test = f" ({'q' if rk.attrs.get('control') == 'fdr' else 'adjusted p'} < {alpha:g})"
    if len(rk):
        ax.set_title(f"Top {len(rk)} {what}{test}")
    else:  # an empty ranking says so instead of drawing an empty "Top 0" chart
        ax.set_title(f"No {what.replace('subgroups', 'subgroup', 1)}{test}")
        ax.text(0.5, 0.5, "no subgroup passes the ranking's filter" if alpha is not None else "no subgroup",
                ha="center", va="center", transform=ax.transAxes)
        ax.set_yticks([])
    return ax
