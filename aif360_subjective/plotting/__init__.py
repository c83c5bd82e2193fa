"""Matplotlib figures for the metrics (each function returns the Figure or Axes it drew)."""

from .opinion import group_interval_tables, group_performance_table, plot_group_performance
from .subgroups import (
    plot_pattern_table,
    plot_ranking,
    plot_subgroup_metrics,
    plot_subgroup_sizes,
    plot_summary_radar,
)

__all__ = [
    "group_interval_tables",
    "group_performance_table",
    "plot_group_performance",
    "plot_pattern_table",
    "plot_ranking",
    "plot_subgroup_metrics",
    "plot_subgroup_sizes",
    "plot_summary_radar",
]
