"""A cluster whose workers lack the package (or run another version) is refused up front, naming the workers."""

from __future__ import annotations

import sys

import dask
import dask.dataframe as dd
import pandas as pd
import pytest
from dask.distributed import Client, LocalCluster

import aif360_subjective
from aif360_subjective import _dask
from aif360_subjective._dask import active_client, check_workers
from aif360_subjective.quality import crowdtruth_scores
from aif360_subjective.sklearn.metrics import opinion_exclusion


@pytest.fixture
def fresh(monkeypatch):
    """Forget which clusters were probed (the probe is cached per set of workers)."""
    monkeypatch.setattr(_dask, "_CHECKED", set())


def _frame() -> dd.DataFrame:
    pdf = pd.DataFrame({"item": [0, 0, 0, 1, 1, 1], "annotator": ["a", "b", "c", "a", "b", "c"],
                        "label": [1, 1, 0, 0, 0, 1], "pred": [1, 1, 1, 0, 0, 0]})
    return dd.from_pandas(pdf, npartitions=2, sort=False)


def test_no_client_no_check(fresh):
    with dask.config.set(scheduler="sync"):
        assert active_client() is None
        check_workers()  # nothing to probe: the local scheduler runs here, where the package is


@pytest.mark.slow
def test_healthy_cluster_passes_once(fresh, cluster):
    with Client(cluster, set_as_default=True) as client:
        assert active_client() is client
        check_workers()
        assert len(_dask._CHECKED) == 1
        with dask.config.set(scheduler="sync"):  # a local scheduler wins over the client
            assert active_client() is None
    with Client(cluster, set_as_default=False) as client, dask.config.set(scheduler=client):
        assert active_client() is client


@pytest.mark.slow
def test_workers_with_another_version(fresh, cluster, monkeypatch):
    with Client(cluster, set_as_default=True):
        monkeypatch.setattr(aif360_subjective, "__version__", "9.9.9")
        with pytest.raises(RuntimeError, match=r"2 of 2 Dask worker\(s\) run another version of aif360_subjective "
                                               r"than the client \(9\.9\.9\): tcp://"):
            check_workers()


@pytest.mark.slow
def test_workers_without_the_package(fresh):
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      memory_limit="1GB", dashboard_address=":0") as c, Client(c, set_as_default=True) as client:
        # the worker process can no longer import the package (as on a node where it is not installed)
        client.run(lambda: sys.modules.__setitem__("aif360_subjective", None))
        (worker,) = client.scheduler_info()["workers"]
        match = (rf"1 of 1 Dask worker\(s\) cannot import aif360_subjective: {worker} \(ModuleNotFoundError: .*\); "
                 r"install the client's version")
        with pytest.raises(RuntimeError, match=match):
            check_workers()
        ddf = _frame()
        with pytest.raises(RuntimeError, match="cannot import aif360_subjective"):
            crowdtruth_scores(ddf, unit_col="item", worker_col="annotator", label_col="label")
        with pytest.raises(RuntimeError, match="cannot import aif360_subjective"):
            opinion_exclusion(ddf["label"], ddf["pred"], item_ids=ddf["item"], annotator_ids=ddf["annotator"])
