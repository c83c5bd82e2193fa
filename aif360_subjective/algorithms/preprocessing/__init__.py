"""algorithms/preprocessing."""
