"""What the one-sided numeric conditions (``thresholds=``, issue 38) cost and buy: candidates, time, first finding.

Tables: ``--rows`` rows of 4 categorical columns of 4 levels, ``colour`` (4 levels), an integer ``age`` (18-89) and
a float ``income`` (log-normal); the planted slice is ``colour = g AND age ≥ t`` with ``t`` at a random quantile
in [0.55, 0.75] of ``age`` (about 6-11 % of the rows), placed where no decile needs to fall. Outcomes per task:
``regression`` (noise doubled in the slice), ``multiclass`` (error 0.15 -> 0.35), ``binary`` (error 0.1 -> 0.3);
``--null`` tables draw the same outcomes without the slice.

For each ``thresholds`` in ``--grid`` (``none`` = ranges only, the miner before issue 38): mined candidates, the
seconds of ``detect_subgroups(discovery="patterns")`` plus its findings, the share of planted tables whose first
finding of the task's error metric (disadvantaged) has Jaccard >= 0.7 with the planted rows (and the median
Jaccard), and on null tables how many report anything (exact count out of ``--null``).

Usage: ``python benchmarks/threshold_conditions.py [--rows 5000] [--seeds 5] [--null 5] [--grid none,10,20]
[--tasks regression,multiclass,binary]``; ``--timing 20000,50000`` times one table per size only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.detectors import detect_subgroups  # noqa: E402

METRIC = {"regression": "mean_absolute_error", "multiclass": "accuracy_error", "binary": "accuracy_error"}


def table(seed: int, n: int, task: str, effect: bool = True):
    """(X, y_true, y_pred, planted rows)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"cat{j}": rng.choice(list("abcd"), n) for j in range(4)})
    X["colour"] = rng.choice(list("rgby"), n)
    X["age"] = rng.integers(18, 90, n)
    X["income"] = np.round(rng.lognormal(10, 0.5, n), 2)
    t = np.quantile(X["age"], rng.uniform(0.55, 0.75))
    s = (X["colour"].to_numpy() == "g") & (X["age"].to_numpy() >= t)
    s_eff = s & effect
    if task == "regression":
        y = rng.normal(size=n)
        return X, y, y + np.where(s_eff, 2.0, 1.0) * rng.normal(size=n), s
    if task == "multiclass":
        y = rng.integers(0, 3, n)
        wrong = rng.random(n) < np.where(s_eff, 0.35, 0.15)
        names = np.array(["cat", "dog", "fox"])
        return X, names[y], names[np.where(wrong, (y + rng.integers(1, 3, n)) % 3, y)], s
    y = rng.integers(0, 2, n)
    return X, y, np.where(rng.random(n) < np.where(s_eff, 0.3, 0.1), 1 - y, y), s


def run(X, y, yh, task: str, thresholds, seed: int):
    """(candidates, seconds, findings, the rows of the first error finding or None)."""
    t0 = time.perf_counter()
    rep = detect_subgroups(X, y, yh, task=task, discovery="patterns", random_state=seed, thresholds=thresholds)
    found = rep.findings(0.05)
    dt = time.perf_counter() - t0
    err = found[(found["metric"] == METRIC[task]) & (found["direction"] == "disadvantaged")]
    rows = np.asarray(rep.members(err["kind"].iloc[0], err["id"].iloc[0]), dtype=bool) if len(err) else None
    return rep.candidates.n_candidates, dt, found, rows


def jaccard(a, b) -> float:
    return 0.0 if a is None else float((a & b).sum() / max((a | b).sum(), 1))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--null", type=int, default=5)
    ap.add_argument("--grid", default="none,10,20")
    ap.add_argument("--tasks", default="regression,multiclass,binary")
    ap.add_argument("--timing", default="", help="comma-separated row counts: time one binary table per size")
    a = ap.parse_args(argv)
    grid = [None if g == "none" else int(g) for g in a.grid.split(",")]
    if a.timing:
        rows = []
        for n in (int(v) for v in a.timing.split(",")):
            X, y, yh, _ = table(0, n, "binary")
            for thr in grid:
                k, dt, _, _ = run(X, y, yh, "binary", thr, 0)
                rows.append({"rows": n, "thresholds": thr or "none", "candidates": k, "seconds": round(dt, 1)})
                print(rows[-1], flush=True)
        print(pd.DataFrame(rows).to_string(index=False))
        return
    out = []
    for task in a.tasks.split(","):
        for thr in grid:
            js, ks, ts, first = [], [], [], []
            for seed in range(a.seeds):
                X, y, yh, s = table(seed, a.rows, task)
                k, dt, found, rows = run(X, y, yh, task, thr, seed)
                err = found[(found["metric"] == METRIC[task]) & (found["direction"] == "disadvantaged")]
                js.append(jaccard(rows, s))
                ks.append(k)
                ts.append(dt)
                first.append(err["description"].iloc[0] if len(err) else "-")
            hits = sum(1 for seed in range(a.null)
                       if len(run(*table(1000 + seed, a.rows, task, effect=False)[:3], task, thr, seed)[2]))
            out.append({"task": task, "thresholds": thr or "none", "candidates": int(np.median(ks)),
                        "seconds": round(float(np.median(ts)), 1),
                        "first J>=0.7": f"{sum(j >= 0.7 for j in js)}/{len(js)}",
                        "median J": round(float(np.median(js)), 2), "null reports": f"{hits}/{a.null}",
                        "first (seed 0)": first[0]})
            print(out[-1], flush=True)
    print(pd.DataFrame(out).to_string(index=False))


if __name__ == "__main__":
    main()
