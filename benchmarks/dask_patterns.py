"""Mined patterns counted on a Dask LocalCluster: time, peak worker memory, and whether the planted slice comes
first by its z.

Data: :func:`aif360_subjective.datasets.make_planted_slice` (``--rows``, 8 categorical columns of 4 levels, 2
numeric ones, a planted 2-condition slice of 5 % of the rows whose favourable-prediction rate is 0.2 lower,
``random_state=0``), written as Parquet in ``--files`` parts. Cluster: ``LocalCluster(processes=True)`` with
``--workers`` workers of one thread and ``--memory-limit`` each.

Steps: (1) items and patterns mined in memory from a seeded sample of ``--sample`` rows (levels and quantile
edges of the sample; ``min_support`` 1 % of the sample, up to 3 conditions); (2)
:func:`aif360_subjective.detectors.dask_counts.count_patterns` counts every pattern's rows and favourable
predictions over all rows, per partition, summed on the client; (3) each pattern's statistical-parity z (the
max-T's standardised count, hypergeometric sd) from those counts. Printed: the seconds of (2), the peak resident
memory of every worker and of the client, the pattern with the largest z and the planted conditions. This is the
distributed counting alone: no max-T, no report (``detect_subgroups`` does not take Dask collections).

Run: ``python benchmarks/dask_patterns.py`` (2M rows, 2 workers x 2 GB); ``--rows 20000000 --files 40`` for 20M.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def main() -> None:
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster

    from aif360_subjective.datasets import make_planted_slice
    from aif360_subjective.detectors.dask_counts import count_patterns
    from aif360_subjective.detectors.maxt import _sd
    from aif360_subjective.detectors.pattern_mining import build_items, mine_patterns

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--sample", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="2GB")
    ap.add_argument("--out", type=Path, default=None, help="Parquet folder (default: a temporary one)")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="aif360s-patterns-"))
    t0 = time.perf_counter()
    b = make_planted_slice(args.rows, n_conditions=2, planted_share=0.05, effect=0.2, n_categorical=8,
                           n_numeric=2, random_state=0)
    frame = b.X.assign(pred=np.asarray(b.y_pred, dtype=np.int64), one=1)
    out.mkdir(parents=True, exist_ok=True)
    for k, part in enumerate(np.array_split(np.arange(len(frame)), args.files)):
        frame.iloc[part].to_parquet(out / f"part-{k:03d}.parquet", index=False)
    sample = frame.sample(n=min(args.sample, len(frame)), random_state=1)
    cols = list(b.X.columns)
    items = build_items(sample[cols], [c for c in cols if c.startswith("cat")], 5, 3)
    mined = mine_patterns(items, max(1, len(sample) // 100), 3)
    planted, n_rows = b.conditions, len(frame)
    del b, frame, sample
    print(f"{n_rows:,} rows in {args.files} Parquet files; {len(mined.patterns):,} patterns mined from the sample "
          f"({time.perf_counter() - t0:.0f} s to generate, write and mine)", flush=True)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, memory_limit=args.memory_limit,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        ddf = dd.read_parquet(str(out))
        t0 = time.perf_counter()
        counts = count_patterns(ddf[cols], ddf[["one", "pred"]], mined)
        seconds = time.perf_counter() - t0
        N, P = (float(v) for v in ddf[["one", "pred"]].sum().compute())  # the table's rows and favourable ones
        workers = client.run(_peak_mb)
    n_s, fav = counts[:, 0], counts[:, 1]
    sd = _sd(n_s, P, N)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 1e-12, (n_s * P / N - fav) / sd, np.nan)
    top = int(np.nanargmax(z))
    labels = [mined.items.labels[j] for j in mined.patterns[top]]
    print(f"counting on {args.workers} workers x {args.memory_limit}: {seconds:.1f} s; peak worker memory "
          f"{', '.join(f'{v:,.0f} MB' for v in workers.values())}; client {_peak_mb():,.0f} MB")
    print(f"largest z: {z[top]:.1f} for {' & '.join(labels)} ({int(n_s[top]):,} rows)")
    print(f"planted: {planted}")


if __name__ == "__main__":
    main()
