"""The memory estimate of a pattern analysis and its refusal (a tiny budget set through the environment)."""

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.cost_estimate import (
    BYTES_PER_CANDIDATE,
    MEMORY_LIMIT_ENV,
    Cost,
    available_memory,
    check_cost,
    estimate_cost,
)


def test_the_estimate_by_hand():
    # 1,000 rows x 2 columns, 3,000 item entries, 16 items, 10 patterns, B = 20, 3 sets, batch 50, 2 workers:
    # per row 4 * 2 + 16 / 8 + 4 * 50 * 3 / 8 = 85 bytes (the permuted columns packed: one bit each)
    cost = estimate_cost(1000, 2, 3000, 16, 10, 20, 3, batch=50, workers=2)
    assert cost.memory == pytest.approx(1000 * 85 + 5 * 3000 + 10 * BYTES_PER_CANDIDATE)
    assert cost.seconds == pytest.approx(20 * (1000 * 3 * 1.2e-9 + 10 * 4e-7))


def test_the_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "2e9")
    assert available_memory() == 2e9
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "lots")
    with pytest.raises(ValueError, match="AIF360_SUBJECTIVE_MEMORY_LIMIT must be a positive number.*'lots'"):
        available_memory()
    monkeypatch.delenv(MEMORY_LIMIT_ENV)
    machine = available_memory()
    assert machine is None or machine > 0


def test_check_cost_passes_within_and_refuses_beyond(monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "1000")
    check_cost(Cost(1000.0, 1.0), "x")  # exactly the budget: runs
    with pytest.raises(ValueError, match="max_patterns.*min_support.*n_bins.*Dask"):
        check_cost(Cost(1001.0, 1.0), "x")


def _table(n=400):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("uv"), n), "c": rng.random(n)})
    return X, (rng.random(n) < 0.5).astype(int), (rng.random(n) < 0.5).astype(int)


def test_detect_subgroups_refuses_before_running_with_a_tiny_budget(monkeypatch):
    X, t, p = _table()
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "1000")
    with pytest.raises(ValueError, match=r"400 rows and 0 patterns needs about .* GB.*lower max_patterns"):
        detect_subgroups(X, t, p, discovery="patterns", random_state=0, n_permutations=19)
    # a budget above the rows' part but below the patterns': refused after mining, naming the patterns found
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "5e5")
    with pytest.raises(ValueError, match=r"400 rows and [1-9][0-9,]* patterns needs"):
        detect_subgroups(X, t, p, discovery="patterns", random_state=0, n_permutations=19)
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "1e12")
    detect_subgroups(X, t, p, discovery="patterns", random_state=0, n_permutations=19)
