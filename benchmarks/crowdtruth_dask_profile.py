"""Where CrowdTruth on Dask spends its time: the in-memory engine and the Dask path (synchronous scheduler, under
cProfile) on the same 2M annotations, a fixed number of iterations.

Data: ``write_synthetic_parquet(200,000 units, 2,000 workers, 10 per unit, 20,000 units per file,
random_state=2026)`` in ``--data`` (written when missing). Printed: seconds of each path, their ratio, and the
Dask path's profile (cumulative time, the first ``--top`` lines). The phases of the block path (single-choice
labels, at most 2^24 pair keys): ``_build_block`` (each partition encoded once), ``_block_step`` (one per block
and iteration) with ``unit_step`` (UQS, WWA, WUA) and ``_add_pair_sums`` (AQS's pair sums), and
``_dense_label_sums`` (AQS's sums per label, once per iteration). On the general path (multiple choice, more
keys): ``_with_pair_layout``, ``_step``, ``_bucket`` and ``_bucket_layout``.

Run: ``python benchmarks/crowdtruth_dask_profile.py`` (5 iterations; a few minutes here).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    import dask
    import dask.dataframe as dd
    import pandas as pd

    from aif360_subjective.datasets import write_synthetic_parquet
    from aif360_subjective.quality import crowdtruth_scores

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("/tmp/aif360s-ct2m"))
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    if not args.data.exists():
        write_synthetic_parquet(args.data, 200_000, 2000, 10, items_per_file=20_000, random_state=2026)
    files = sorted(str(p) for p in (args.data / "annotations").glob("*.parquet"))
    kw = dict(unit_col="item", worker_col="annotator", label_col="label", max_iter=args.iterations)
    warnings.simplefilter("ignore", RuntimeWarning)  # "did not converge" after the fixed iterations
    pdf = pd.read_parquet(files, columns=["item", "annotator", "label"])
    t0 = time.perf_counter()
    r0 = crowdtruth_scores(pdf, **kw)
    t_mem = time.perf_counter() - t0
    ddf = dd.read_parquet(files, columns=["item", "annotator", "label"])
    with dask.config.set(scheduler="sync"):
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        r1 = crowdtruth_scores(ddf, **kw)
        prof.disable()
        t_dask = time.perf_counter() - t0
    wqs = float((r0.workers["wqs"] - r1.workers["wqs"]).abs().max())
    print(f"{len(pdf):,} annotations, {args.iterations} iterations, {ddf.npartitions} partitions")
    print(f"in memory: {t_mem:.1f} s; Dask (sync scheduler): {t_dask:.1f} s; ratio {t_dask / t_mem:.2f}; "
          f"largest WQS difference {wqs:.1e}")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
