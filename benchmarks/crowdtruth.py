"""Benchmark: crowdtruth_scores against the authors' package (crowdtruth 2.1).

Generated jobs shaped like the Wikipedia Talk toxicity annotations: ~10 annotations per unit,
binary labels, workers with a heavy-tailed (log-normal) number of annotations, 10% spammers. At
1.6M annotations: 160,000 units and ~4,300 workers; smaller jobs scale units linearly and workers
with the square root of the size.

Each size runs in a fresh subprocess, so that its peak memory (max RSS) is its own. The reference
runs where it can (by default up to 100k annotations) in its own venv
(``/work/venv-bench-crowdtruth``: crowdtruth==2.1, pandas 1.5.3, numpy 1.26), through
``benchmarks/_crowdtruth_reference.py``; its scores are compared with ours.

Measured on this project's 2-core machine (shared with other jobs at the time):

    annotations   units workers iter  ours s  peak RSS MB | crowdtruth 2.1 s  max |diff|
         10,000   1,000     319    8    0.10          195 |             60.7     9.7e-15
        100,000  10,000   1,060    7    0.53          267 |           1326.6     8.5e-15
      1,600,000 159,985   4,295    7   14.66         1235 |          not run

Usage:
    python benchmarks/crowdtruth.py [--sizes 10000,100000,1600000] [--reference-max 100000]
        [--reference-timeout 1800] [--reference-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

DEFAULT_REFERENCE_PYTHON = "/work/venv-bench-crowdtruth/bin/python"


def make_job(n_annotations: int, seed: int = 0) -> pd.DataFrame:
    """A generated binary job: unit, worker, label (ints), ~10 annotations per unit."""
    rng = np.random.default_rng(seed)
    n_units = max(n_annotations // 10, 2)
    n_workers = max(int(round(4300 * np.sqrt(n_annotations / 1_600_000))), 5)
    activity = rng.lognormal(mean=0.0, sigma=1.5, size=n_workers)  # heavy-tailed annotation counts
    activity /= activity.sum()
    # Draw with replacement, drop repeated (unit, worker) pairs, keep the first n_annotations.
    draws = int(n_annotations * 1.5)
    unit = rng.integers(0, n_units, size=draws)
    worker = rng.choice(n_workers, size=draws, p=activity)
    df = pd.DataFrame({"unit": unit, "worker": worker}).drop_duplicates().iloc[:n_annotations]
    truth = rng.random(n_units) < 0.3
    accuracy = rng.uniform(0.6, 0.97, size=n_workers)
    spammer = rng.random(n_workers) < 0.1
    u, w = df["unit"].to_numpy(), df["worker"].to_numpy()
    correct = rng.random(len(df)) < accuracy[w]
    label = np.where(correct, truth[u], ~truth[u])
    label = np.where(spammer[w], rng.random(len(df)) < 0.5, label)
    return df.assign(label=label.astype(np.int64)).reset_index(drop=True)


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_one(n: int, out_dir: str | None) -> dict:
    """Generate, score and measure one size (run inside a fresh process)."""
    from aif360_subjective.quality import crowdtruth_scores

    df = make_job(n)
    if out_dir:
        df.to_csv(Path(out_dir) / "input.csv", index=False)
    base = _rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    res = crowdtruth_scores(df)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if out_dir:
        res.units.to_csv(Path(out_dir) / "units.csv")
        res.workers.to_csv(Path(out_dir) / "workers.csv")
        res.annotations.to_csv(Path(out_dir) / "annotations.csv")
    return {
        "annotations": len(df),
        "units": int(df["unit"].nunique()),
        "workers": int(df["worker"].nunique()),
        "max_per_worker": int(df["worker"].value_counts().max()),
        "iterations": res.n_iterations,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "peak_rss_mb": peak,
        "rss_before_mb": base,
    }


def run_reference(python: str, work: Path, timeout: float) -> dict:
    cmd = [python, str(HERE / "_crowdtruth_reference.py"), str(work / "input.csv"), str(work / "ref")]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": f"timeout > {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"status": "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]}
    meta = json.loads((work / "ref" / "meta.json").read_text())
    diff = 0.0
    for name in ("units", "workers", "annotations"):
        ref = pd.read_csv(work / "ref" / f"{name}.csv", index_col=0).rename(columns={"wsa": "wua"})
        ours = pd.read_csv(work / f"{name}.csv", index_col=0)
        cols = [c for c in ("uqs", "wqs", "wwa", "wua", "aqs") if c in ref.columns]
        diff = max(diff, float(np.abs(ours.loc[ref.index, cols].to_numpy() - ref[cols].to_numpy()).max()))
    same_iter = meta["iterations"]
    return {"status": "ok", "seconds": meta["seconds"], "iterations": same_iter, "max_abs_diff": diff}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="10000,100000,1600000")
    p.add_argument("--reference-max", type=int, default=100_000)
    p.add_argument("--reference-timeout", type=float, default=1800)
    p.add_argument("--reference-python", default=DEFAULT_REFERENCE_PYTHON)
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.one:
        print(json.dumps(run_one(a.one, a.out)))
        return

    have_ref = Path(a.reference_python).exists()
    if have_ref:
        check = subprocess.run([a.reference_python, "-c", "import crowdtruth"], capture_output=True)
        have_ref = check.returncode == 0
    if not have_ref:
        print(
            f"reference not available: {a.reference_python} cannot import crowdtruth (make it with\n"
            "  python3 -m venv /work/venv-bench-crowdtruth && /work/venv-bench-crowdtruth/bin/pip install "
            "crowdtruth==2.1 pandas==1.5.3 numpy==1.26.4)\n"
        )
    header = (
        f"{'annotations':>11} {'units':>7} {'workers':>7} {'max/wkr':>7} {'iter':>4} "
        f"{'ours s':>7} {'cpu s':>6} "
        f"{'peak RSS MB':>11} {'+RSS MB':>7} | {'crowdtruth 2.1 s':>16} {'iter':>4} {'max |diff|':>10}"
    )
    print(header)
    print("-" * len(header))
    for n in (int(s) for s in a.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            want_ref = have_ref and n <= a.reference_max
            cmd = [sys.executable, __file__, "--one", str(n)] + (["--out", tmp] if want_ref else [])
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            ref = run_reference(a.reference_python, Path(tmp), a.reference_timeout) if want_ref else None
        if ref is None:
            ref_cols = f"{'not run' if have_ref else 'unavailable':>16} {'':>4} {'':>10}"
        elif ref["status"] != "ok":
            ref_cols = f"{ref['status']:>16} {'':>4} {'':>10}"
        else:
            ref_cols = f"{ref['seconds']:>16.1f} {ref['iterations']:>4} {ref['max_abs_diff']:>10.1e}"
        print(
            f"{r['annotations']:>11,} {r['units']:>7,} {r['workers']:>7,} {r['max_per_worker']:>7,} "
            f"{r['iterations']:>4} {r['seconds']:>7.2f} {r['cpu_seconds']:>6.2f} {r['peak_rss_mb']:>11.0f} "
            f"{r['peak_rss_mb'] - r['rss_before_mb']:>7.0f} | {ref_cols}",
            flush=True,
        )
    print(
        "\nours s: wall time of crowdtruth_scores (validation + all iterations + result tables); cpu s: "
        "its CPU time; "
        "peak RSS: whole process\n(python, pandas, generated data included); +RSS: peak minus RSS "
        "before the call. Machine: 2 cores."
    )


if __name__ == "__main__":
    main()
