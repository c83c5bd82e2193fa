"""Matplotlib figures for the metrics (each function returns the Figure or Axes it drew)."""
