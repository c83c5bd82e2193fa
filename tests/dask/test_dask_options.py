"""The Dask path of detect_subgroups takes the options the in-memory path checks: one check, one refusal for both."""

from __future__ import annotations

import inspect

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from aif360_subjective._param_tables import SUBGROUP_PARAMS
from aif360_subjective.detectors import check_analysis_options, detect_subgroups
from aif360_subjective.detectors._dask.detect import detect_subgroups_dask


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(5)
    n = 40
    frame = pd.DataFrame({"cat": rng.choice(["a", "b", "c"], n), "num": rng.normal(size=n),
                          "t": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)})
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    return (frame[["cat", "num"]], frame["t"], frame["p"]), (ddf[["cat", "num"]], ddf["t"], ddf["p"])


def _refusal(args, **kw):
    """The exception type and message of a refused call (on the synchronous scheduler)."""
    kw = {"discovery": "patterns", "random_state": 0, **kw}
    with dask.config.set(scheduler="sync"), pytest.raises((ValueError, TypeError)) as err:
        detect_subgroups(*args, **kw)
    return type(err.value), str(err.value)


_DETECT = inspect.signature(detect_subgroups).parameters
#: every invalid value the table's constraints generate, for every table option detect_subgroups takes, and the
#: options outside the table (their names are checked as in memory)
_CASES = [(name, value) for name in SUBGROUP_PARAMS if name in _DETECT
          for value in SUBGROUP_PARAMS[name].invalid_values()] + [
    ("design", "nonsense"), ("design", None), ("permutation", "nonsense"), ("categorical_features", ["nope"]),
    ("random_state", "seed"), ("inclusive", True), ("n_clusters", 5), ("clustering", "kmeans")]


@pytest.mark.parametrize(("name", "value"), _CASES, ids=[f"{n}={v!r}" for n, v in _CASES])
def test_an_invalid_option_is_refused_identically_on_pandas_and_dask(frames, name, value):
    in_memory, on_dask = frames
    expected = _refusal(in_memory, **{name: value})
    assert name in expected[1], expected  # the message names the argument
    assert _refusal(on_dask, **{name: value}) == expected


def test_every_argument_reaches_the_dask_path():
    """detect_subgroups' arguments are the checked options' and the Dask path's run arguments, nothing dropped."""
    options = set(inspect.signature(check_analysis_options).parameters) - {"X"}
    run = set(inspect.signature(detect_subgroups_dask).parameters) - {"X", "y_true", "y_pred", "opts"}
    assert not options & run
    # progress: read by detect_subgroups' decorator (the reporter of the whole call), on every engine
    assert set(_DETECT) - {"X", "y_true", "y_pred", "progress"} == options | run


def test_what_the_dask_path_cannot_honour_is_refused_by_name_after_the_shared_check(frames):
    _, on_dask = frames
    # a valid in-memory value the Dask analysis does not do: refused naming the argument and Dask
    for kw in ({"discovery": "both"}, {"task": "regression"}, {"permutation": "classical"}):
        kind, message = _refusal(on_dask, **kw)
        name = next(iter(kw))
        assert kind is ValueError and message.startswith(f"{name}=") and "not available on Dask" in message
    # an unknown value gets the in-memory message, not the Dask refusal
    assert "not available on Dask" not in _refusal(on_dask, discovery="nonsense")[1]
