"""A discovery worker imports the functions of one partition, not the analysis: no scipy.stats, no report.

A Dask or Spark worker imports the module of every function it unpickles (and its parent packages). The passes'
functions live in ``detectors._dask.passes`` and ``detectors._dask.summary``; the ``detectors`` package names its
public functions lazily, so a worker does not import the analysis (the report, the candidates, the clustering,
scipy.stats), which cost each worker process about a second of CPU (``benchmarks``: see the Spark guide).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What no discovery worker needs.
ANALYSIS = ("scipy.stats", "sklearn", "matplotlib", "aif360_subjective.detectors.detect",
            "aif360_subjective.detectors.report", "aif360_subjective.detectors.candidates",
            "aif360_subjective.detectors._dask.detect", "aif360_subjective.detectors.asdf.clustering")
#: The modules of what the passes send: their functions, the items, the keyed scheme, the Spark task's helpers.
WORKER_SIDE = ("aif360_subjective.detectors._dask.passes", "aif360_subjective.detectors._dask.summary",
               "aif360_subjective.detectors.mining.pattern_mining", "aif360_subjective.detectors.error_control.maxt",
               "aif360_subjective._dask.parts", "aif360_subjective._spark.partitions")


def test_the_worker_side_modules_import_no_analysis():
    probe = (f"import importlib, json, sys\nfor m in {WORKER_SIDE!r}: importlib.import_module(m)\n"
             f"print(json.dumps([m for m in {ANALYSIS!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_the_public_names_still_import_on_first_use():
    import aif360_subjective.detectors as det
    from aif360_subjective.detectors.detect import detect_subgroups

    assert det.detect_subgroups is detect_subgroups and "detect_subgroups" in dir(det)
    assert all(getattr(det, name) is not None for name in det.__all__)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = det.nope


@pytest.mark.slow
def test_a_worker_of_a_whole_analysis_imports_no_analysis():
    # a fresh one-worker cluster runs every pass of a small analysis (the max-T and the redundancy filter included)
    from dask.distributed import Client, LocalCluster

    from aif360_subjective.datasets import make_planted_slice

    dd = pytest.importorskip("dask.dataframe")
    b = make_planted_slice(3000, n_categorical=3, n_numeric=1, planted_share=0.1, effect=0.4, random_state=1)
    frame = b.X.assign(t=np.asarray(b.y_true), p=np.asarray(b.y_pred))
    ddf = dd.from_pandas(frame, npartitions=2)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="1GB") as cluster, Client(cluster, set_as_default=True) as client:
        report = detect_subgroups_on(ddf, list(b.X.columns))
        assert len(report.findings()) > 0
        loaded = client.run(lambda: [m for m in ANALYSIS if m in sys.modules])
    assert list(loaded.values()) == [[]]


def detect_subgroups_on(ddf, features):
    from aif360_subjective.detectors import detect_subgroups

    return detect_subgroups(ddf[features], ddf["t"], ddf["p"], discovery="patterns", random_state=0,
                            n_permutations=99)
