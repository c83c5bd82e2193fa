"""algorithms/inprocessing."""
