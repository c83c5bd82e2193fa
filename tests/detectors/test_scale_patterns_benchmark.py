"""The resident-memory helpers of ``benchmarks/scale_patterns.py`` (``--profile ROWS --resident``) on small cases."""

import types

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _benchmark_module import benchmark_module


@pytest.fixture(scope="module")
def bench():
    yield from benchmark_module("scale_patterns")


def test_holders_count_each_buffer_once_at_its_shortest_path(bench):
    big = np.zeros(1000, dtype=np.float64)  # 8,000 bytes
    inner = types.SimpleNamespace(view=big[10:], other=np.ones(10, dtype=np.uint8))
    outer = types.SimpleNamespace(data=big, inner=inner, frame=pd.DataFrame({"a": np.zeros(50)}),
                                  sparse=sp.csc_matrix(np.eye(3)), items=[np.zeros(4, dtype=np.int32)],
                                  fn=lambda: big)
    ranked, total = bench._holders({"r": outer})
    paths = dict(ranked)
    assert paths["r.data"] == 8000 and "r.inner.view" not in paths  # the view is the same buffer, counted once
    assert paths["r.inner.other"] == 10 and paths["r.items[0]"] == 16
    assert paths["r.frame"] == 50 * 8 + outer.frame.index.memory_usage()  # its column and its index
    assert paths["r.sparse"] == 3 * 8 + 3 * 4 + 4 * 4  # data, indices, indptr
    assert total == sum(paths.values())
    assert ranked[0][0] == "r.data"


def test_holders_stop_at_the_depth(bench):
    deep = types.SimpleNamespace(a=types.SimpleNamespace(b=np.zeros(8)))
    assert bench._holders({"r": deep}, depth=2) == ([], 0)
    assert bench._holders({"r": deep}, depth=3)[1] == 64
