"""A small table with one planted disadvantaged subgroup, shared by the report tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from aif360_subjective.detectors import detect_subgroups


def planted_subgroups(seed: int, n: int = 1200):
    """Features a, b, c; the model withholds the favourable label from 60% of the (a=x, b=u) rows; c is noise.

    Returns ``(X, y, pred, report)`` with the report of :func:`detect_subgroups` (12 clusters, seed 0).
    """
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["u", "v"], n),
                      "c": rng.choice(list("pqrs"), n)})
    y = rng.integers(0, 2, n)
    pred = np.where((X["a"] == "x") & (X["b"] == "u") & (rng.random(n) < 0.6), 0, y)
    return X, y, pred, detect_subgroups(X, y, pred, pos_label=1, n_clusters=12, random_state=0)
