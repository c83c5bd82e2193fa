"""CrowdTruth in memory against CrowdTruth on Dask (threaded scheduler; LocalCluster of 2 workers x 2 GB).

Data: ``write_synthetic_parquet(n / 10 units, 2,000 workers, 10 per unit, 100,000 units per file,
random_state=2026)`` in ``--data/ct<n>`` (written when missing): 1M annotations per Parquet file, sorted
by unit (no shuffle needed). Every path runs in a fresh subprocess, so that its peak memory (``VmHWM``, the
resident high-water mark) is its own:

* ``memory``: ``pd.read_parquet`` then :func:`crowdtruth_scores` on the pandas table (time = read + scores,
  and the scores alone);
* ``threads``: ``dd.read_parquet`` then :func:`crowdtruth_scores` on Dask's threaded scheduler in one
  process (the time includes reading);
* ``cluster``: the same on a ``LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="2GB")``
  (``--memory-limit``) started (and warmed up) before timing; peaks of the client and of both worker processes.

All run to convergence (``max_delta=0.001``). The Dask results are compared with the in-memory ones where
that ran (largest absolute difference of UQS, WQS and AQS). The in-memory path is skipped above
``--memory-max`` annotations (about 0.8 GB per million annotations here).

Run: ``python benchmarks/crowdtruth_dask.py`` (1.6M, 5M, 20M annotations; about 15 minutes here), or
``--sizes 1600000`` for one size.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

KW = {"unit_col": "item", "worker_col": "annotator", "label_col": "label"}


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _data(root: Path, n: int) -> list[str]:
    from aif360_subjective.datasets import write_synthetic_parquet

    path = root / f"ct{n}"
    if not (path / "annotations").exists():
        write_synthetic_parquet(path, n // 10, 2000, 10, items_per_file=100_000, random_state=2026)
    return sorted(str(p) for p in (path / "annotations").glob("*.parquet"))


def _save(res, out: str) -> None:
    import pandas as pd

    units = res.units.compute() if hasattr(res.units, "compute") else res.units
    pd.DataFrame({"uqs": units["uqs"]}).to_parquet(f"{out}/units.parquet")
    res.workers[["wqs"]].to_parquet(f"{out}/workers.parquet")
    res.annotations[["aqs"]].rename(index=str).to_parquet(f"{out}/annotations.parquet")


def run_path(path: str, files: list[str], out: str, max_iter: int, memory_limit: str = "2GB") -> dict:
    """One path in this (fresh) process."""
    import pandas as pd

    from aif360_subjective.quality import crowdtruth_scores

    warnings.simplefilter("ignore", RuntimeWarning)
    rec: dict = {"path": path}
    if path == "memory":
        t0 = time.perf_counter()
        df = pd.read_parquet(files, columns=["item", "annotator", "label"])
        t1 = time.perf_counter()
        res = crowdtruth_scores(df, **KW, max_iter=max_iter)
        rec.update(seconds=time.perf_counter() - t0, score_seconds=time.perf_counter() - t1, peak_mb=_peak_mb())
    else:
        import dask
        import dask.dataframe as dd

        if path == "threads":
            with dask.config.set(scheduler="threads"):
                t0 = time.perf_counter()
                res = crowdtruth_scores(dd.read_parquet(files, columns=["item", "annotator", "label"]), **KW,
                                        max_iter=max_iter)
                rec.update(seconds=time.perf_counter() - t0, peak_mb=_peak_mb())
        else:
            from dask.distributed import Client, LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                client.run(lambda: __import__("aif360_subjective.quality"))  # warm-up: imports, not timed
                t0 = time.perf_counter()
                res = crowdtruth_scores(dd.read_parquet(files, columns=["item", "annotator", "label"]), **KW,
                                        max_iter=max_iter)
                rec.update(seconds=time.perf_counter() - t0, peak_mb=_peak_mb(),
                           worker_peak_mb=sorted(client.run(_peak_mb).values()))
                _save(res, out)
    if path != "cluster":
        _save(res, out)
    rec.update(n_rows=res.n_rows, iterations=res.n_iterations, converged=res.converged)
    return rec


def _max_diff(a: str, b: str) -> float:
    import numpy as np
    import pandas as pd

    out = 0.0
    for name in ("units", "workers", "annotations"):
        x, y = pd.read_parquet(f"{a}/{name}.parquet"), pd.read_parquet(f"{b}/{name}.parquet")
        out = max(out, float(np.abs(x.iloc[:, 0] - y.iloc[:, 0].reindex(x.index)).max()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1600000,5000000,20000000")
    ap.add_argument("--data", type=Path, default=Path("/tmp/aif360s-ctdask"))
    ap.add_argument("--paths", default="memory,threads,cluster")
    ap.add_argument("--memory-max", type=int, default=5_000_000)
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--memory-limit", default="2GB", help="cluster: memory limit per worker")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # path, files (json), out
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_path(args.one[0], json.loads(args.one[1]), args.one[2], args.max_iter,
                                  args.memory_limit)))
        return
    head = (f"{'annotations':>11} {'path':>8} {'iter':>4} {'time s':>7} {'scores s':>8} {'vs memory':>9} "
            f"{'peak MB':>8} {'worker peaks MB':>16} {'max |diff|':>10}")
    print(head)
    print("-" * len(head))
    for n in (int(s) for s in args.sizes.split(",")):
        files = _data(args.data, n)
        with tempfile.TemporaryDirectory() as tmp:
            t_mem = None
            for path in args.paths.split(","):
                if path == "memory" and n > args.memory_max:
                    print(f"{n:>11,} {path:>8} {'not run (above --memory-max)':>40}", flush=True)
                    continue
                out = Path(tmp) / path
                out.mkdir()
                proc = subprocess.run([sys.executable, __file__, "--max-iter", str(args.max_iter), "--memory-limit",
                                       args.memory_limit, "--one", path, json.dumps(files), str(out)],
                                      capture_output=True, text=True)
                if proc.returncode != 0:
                    msg = (proc.stderr.strip().splitlines() or ["?"])[-1][:100]
                    print(f"{n:>11,} {path:>8} failed: {msg}", flush=True)
                    continue
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                if path == "memory":
                    t_mem = r["seconds"]
                diff = _max_diff(str(Path(tmp) / "memory"), str(out)) if t_mem is not None and path != "memory" \
                    else float("nan")
                ratio = f"{r['seconds'] / t_mem:.2f}x" if t_mem else "--"
                peaks = ", ".join(f"{p:,.0f}" for p in r.get("worker_peak_mb", [])) or "--"
                scores = f"{r['score_seconds']:.1f}" if "score_seconds" in r else "--"
                print(f"{r['n_rows']:>11,} {path:>8} {r['iterations']:>4} {r['seconds']:>7.1f} {scores:>8} "
                      f"{ratio:>9} {r['peak_mb']:>8,.0f} {peaks:>16} {diff:>10.1e}", flush=True)
    print(f"\ncluster: 2 workers x {args.memory_limit}, one thread each.\n"
          "time: read + scores (memory: also the scores alone); vs memory: time / in-memory time on the same "
          "rows;\npeak: the process's resident high-water mark (cluster: the client; worker peaks: each worker "
          "process).\nMachine: 2 cores, shared with other jobs.")


if __name__ == "__main__":
    main()
