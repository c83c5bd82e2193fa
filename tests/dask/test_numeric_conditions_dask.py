"""One-sided numeric conditions on Dask: the in-memory items (exact quantile edges, readable cuts) and findings."""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors._dask import summary as ds


@pytest.fixture
def small_counts(monkeypatch):
    """Force the histogram passes of the exact quantiles."""
    monkeypatch.setattr(ds, "MAX_VALUE_COUNTS", 40)
    monkeypatch.setattr(ds, "HISTOGRAM_BINS", 32)
    monkeypatch.setattr(ds, "MAX_BIN_ROWS", 50)


def _table(seed: int = 0, n: int = 3000):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"colour": rng.choice(list("rgby"), n), "age": rng.integers(18, 90, n),
                      "income": np.round(rng.lognormal(10, 0.6, n), 2), "k": np.full(n, 2.0)})
    s = (X["colour"].to_numpy() == "g") & (X["age"].to_numpy() >= 57)
    t = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(s, 0.45, 0.1), 1 - t, t)
    return X, t, p


@pytest.mark.parametrize("npartitions", [1, 3])
def test_thresholds_on_dask_are_the_in_memory_ones(small_counts, npartitions):
    X, t, p = _table()
    frame = X.assign(t=t, p=p)
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    with dask.config.set(scheduler="sync"):
        rd = detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns", random_state=0,
                              thresholds=20)
    rp = detect_subgroups(X, t, p, discovery="patterns", random_state=0, permutation="keyed", thresholds=20)
    fd, fp = rd.candidates.family("pattern"), rp.candidates.family("pattern")
    assert any("≥" in lab for lab in fp.items.labels)
    assert fd.items.labels == fp.items.labels and fd.items.values == fp.items.values
    assert fd.items.notes == fp.items.notes and any("'k' holds one value" in n for n in fp.items.notes)
    for a, b in zip(fd.items.edges, fp.items.edges, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)
    assert fd.patterns == fp.patterns
    np.testing.assert_array_equal(fd.support, fp.support)
    np.testing.assert_array_equal(rd.significance.max_t().p_global, rp.significance.max_t().p_global)
    found = rd.findings()
    assert len(found) and found["description"].str.contains("age ≥").any()
    pd.testing.assert_frame_equal(found, rp.findings())


def test_thresholds_finer_than_the_rows_refused_on_dask():
    X, t, p = _table(n=40)
    ddf = dd.from_pandas(X.assign(t=t, p=p), npartitions=2, sort=False)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="finer than the 40 rows"):
        detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns", thresholds=50)
