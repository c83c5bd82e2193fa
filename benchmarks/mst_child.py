"""Single linkage's exact MST beside x-means: mlpack's ``emst`` in this process (it holds the GIL) against in a
child process (what ``detectors.mst`` does from ``EMST_CHILD_ROWS`` distinct rows), in one run.

On Adult (48,842 rows, the analysis's one-hot encoding) when the data folder holds it, else on a generated
table of 30,000 rows: x-means alone, the MST alone, and the two at the same time as ``detect_subgroups`` runs
them (x-means in a thread beside the tree), once with the MST in this process and once in the child. The edges
of both MSTs are checked equal before anything is timed.

Usage: ``python benchmarks/mst_child.py [--data DIR]`` (needs the ``[fast]`` extra, mlpack).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slice_finders import _git_commit, load_adult_with_predictions  # noqa: E402

from aif360_subjective.detectors.asdf import mst  # noqa: E402
from aif360_subjective.detectors.asdf.clustering import choose_n_clusters, default_kmax  # noqa: E402
from aif360_subjective.detectors.encoding import detect_categorical, encode_for_clustering  # noqa: E402


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def side_by_side(Z: np.ndarray, U: np.ndarray, child_rows: int) -> float:
    """x-means in a thread while this thread computes the MST (``mst.EMST_CHILD_ROWS = child_rows``)."""
    saved = mst.EMST_CHILD_ROWS
    mst.EMST_CHILD_ROWS = child_rows
    try:
        t0 = time.perf_counter()
        th = threading.Thread(target=choose_n_clusters, args=(Z, default_kmax(len(Z)), np.random.default_rng(1)))
        th.start()
        mst.euclidean_mst(U)
        th.join()
        return time.perf_counter() - t0
    finally:
        mst.EMST_CHILD_ROWS = saved


def mst_alone(U: np.ndarray, child_rows: int) -> None:
    saved = mst.EMST_CHILD_ROWS
    mst.EMST_CHILD_ROWS = child_rows
    try:
        mst.euclidean_mst(U)
    finally:
        mst.EMST_CHILD_ROWS = saved


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve()
    ap.add_argument("--data", type=Path,
                    default=Path(os.environ.get("AIF360_SUBJECTIVE_DATA", here.parents[2] / "shared" / "data")))
    args = ap.parse_args(argv)
    if not mst.mlpack_available():
        print("mlpack is not installed (pip install 'aif360-subjective[fast]'): nothing to compare")
        return
    if (args.data / "adult" / "adult.data").exists():
        X, _, _ = load_adult_with_predictions(args.data)
        name = "Adult"
    else:
        rng = np.random.default_rng(0)
        X = pd.DataFrame({f"c{i}": rng.choice(list("abcdef"), 30_000) for i in range(6)}
                         | {f"x{i}": rng.normal(size=30_000) for i in range(4)})
        name = "generated"
    Z, _ = encode_for_clustering(X, detect_categorical(X))
    U = np.unique(Z, axis=0)
    print(f"# MST beside x-means (commit {_git_commit()}; {os.cpu_count()} cores; {name}: {len(Z):,} rows, "
          f"{len(U):,} distinct, {Z.shape[1]} columns)")
    saved = mst.EMST_CHILD_ROWS
    try:
        mst.EMST_CHILD_ROWS = 10**12
        here_edges = mst.euclidean_mst(U)
        mst.EMST_CHILD_ROWS = 2
        child_edges = mst.euclidean_mst(U)
    finally:
        mst.EMST_CHILD_ROWS = saved
    assert all(np.array_equal(a, b) for a, b in zip(here_edges, child_edges, strict=True))
    rows = [
        ("x-means alone", timed(lambda: choose_n_clusters(Z, default_kmax(len(Z)), np.random.default_rng(1)))),
        ("MST alone, in this process", timed(lambda: mst_alone(U, 10**12))),
        ("MST alone, in a child process", timed(lambda: mst_alone(U, 2))),
        ("both at once, MST in this process (holds the GIL)", side_by_side(Z, U, 10**12)),
        ("both at once, MST in a child process", side_by_side(Z, U, 2)),
    ]
    print(pd.DataFrame(rows, columns=["what", "seconds"]).to_string(index=False, float_format=lambda v: f"{v:.1f}"))


if __name__ == "__main__":
    main()
