"""Matplotlib figures for the metrics (each function returns the Figure or Axes it drew)."""

from .subgroups import (
    plot_pattern_table,
    plot_ranking,
    plot_subgroup_metrics,
    plot_subgroup_sizes,
    plot_summary_radar,
)

__all__ = [
    "plot_pattern_table",
    "plot_ranking",
    "plot_subgroup_metrics",
    "plot_subgroup_sizes",
    "plot_summary_radar",
]
