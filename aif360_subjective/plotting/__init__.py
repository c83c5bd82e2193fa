"""Matplotlib figures for the metrics (each function returns the Figure or Axes it drew)."""

from .opinion import group_performance_table, plot_group_performance  # noqa: F401
