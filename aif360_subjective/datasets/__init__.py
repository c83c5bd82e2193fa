"""datasets."""
