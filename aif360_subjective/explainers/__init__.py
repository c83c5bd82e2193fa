"""explainers."""
