"""sklearn."""
