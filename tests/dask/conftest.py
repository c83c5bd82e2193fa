"""Dask fixtures: every Dask test runs on the synchronous scheduler and on a 2-worker process cluster.

One ``LocalCluster(processes=True)`` per test module (starting one costs a few seconds); the
``scheduler`` fixture makes it the default for a test, or switches to the synchronous scheduler.
"""

from __future__ import annotations

import dask
import pytest
from dask.distributed import Client, LocalCluster


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="2GB") as c:
        yield c


@pytest.fixture(params=["sync", pytest.param("distributed", marks=pytest.mark.slow)])
def scheduler(request):
    """Run the test on the named scheduler (the process cluster's runs are marked slow)."""
    if request.param == "sync":
        with dask.config.set(scheduler="sync"):
            yield "sync"
    else:
        with Client(request.getfixturevalue("cluster"), set_as_default=True):
            yield "distributed"
