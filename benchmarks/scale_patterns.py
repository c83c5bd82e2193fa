"""How mined-pattern discovery scales in memory: 50k / 200k / 2M rows x 10 columns beside DivExplorer and SliceLine.

One table per size: :func:`aif360_subjective.datasets.make_planted_slice` with 8 categorical columns of 4 levels
and 2 numeric columns (uniform on [0, 1]), a planted 2-condition slice of 5 % of the rows whose
favourable-prediction rate is 0.2 lower, ``random_state=0``. Every method runs in a child process of its own (so
that its peak resident memory is its own), with a wall-clock limit (``--timeout``); a method past it is
reported as such, not waited for. The methods and their settings are those of ``benchmarks/slice_finders.py``:

* **ours**: ``detect_subgroups(X, y_true, y_pred, discovery="patterns", random_state=0)`` (mining, counts,
  max-T with its default permutations, the report), then the first subgroup of ``ranking("statistical_parity",
  kind="all", n=1)``;
* **DivExplorer** (``min_support=0.01``, outcome the favourable prediction, t >= 2) and **SliceLine**
  (``alpha=0.99, k=1, max_l=3``) on the table discretised as there (numeric columns in 5 quantile bins);
  discretisation is timed with them.

Printed per (size, method): seconds, peak resident memory of the child (MB, ``ru_maxrss``; it includes the
interpreter, the imports and the generated table), whether the first reported subgroup is the planted slice
(Jaccard >= 0.5); then per method the scaling exponent ``b`` of ``seconds ~ rows^b`` between consecutive sizes.

Run: ``python benchmarks/scale_patterns.py`` (all three sizes, 300 s limit per run); ``--sizes 50000 200000`` for
the quick run. DivExplorer and SliceLine are optional (``pip install divexplorer sliceline``); a missing one is
reported as missing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

METHODS = ("ours", "DivExplorer", "SliceLine")
_MODULE = {"DivExplorer": "divexplorer", "SliceLine": "sliceline"}


def table(n: int, seed: int = 0):
    from aif360_subjective.datasets import make_planted_slice

    return make_planted_slice(n, n_conditions=2, planted_share=0.05, effect=0.2, n_categorical=8, n_numeric=2,
                              random_state=seed)


def child(method: str, n: int) -> dict:
    """One run in this process: seconds, peak memory, whether the planted slice came first."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import slice_finders as sf

    b = table(n)
    if method == "ours":
        run = sf.run_ours(b.X, b.y_true, b.y_pred, "SP", "patterns", 0)
        seconds = run.seconds
    else:
        t0 = time.perf_counter()
        D = sf.discretise(b.X)
        prep = time.perf_counter() - t0
        fn = sf.run_divexplorer if method == "DivExplorer" else sf.run_sliceline
        run = fn(D, b.y_true, b.y_pred, "SP")
        seconds = prep + run.seconds
    hit = False
    if run.found is not None:
        inter = np.logical_and(run.found, b.planted).sum()
        union = np.logical_or(run.found, b.planted).sum()
        hit = bool(union and inter / union >= 0.5)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kB on Linux
    return {"seconds": seconds, "peak_mb": peak_mb, "hit": hit}


def run_one(method: str, n: int, timeout: float) -> dict:
    if method in _MODULE and importlib.util.find_spec(_MODULE[method]) is None:
        return {"status": "not installed"}
    cmd = [sys.executable, __file__, "--child", method, str(n)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"status": f"> {timeout:g} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": f"failed: {last[:60]}"}
    return {"status": "ok", **json.loads(out.stdout.strip().splitlines()[-1])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[50_000, 200_000, 2_000_000])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run (default 300)")
    ap.add_argument("--child", nargs=2, metavar=("METHOD", "ROWS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return
    print(f"{'rows':>10}  {'method':<12} {'seconds':>9} {'peak MB':>8}  planted first")
    results: dict[str, list[tuple[int, float]]] = {m: [] for m in args.methods}
    for n in args.sizes:
        for m in args.methods:
            r = run_one(m, n, args.timeout)
            if r["status"] != "ok":
                print(f"{n:>10,}  {m:<12} {r['status']:>9}")
                continue
            results[m].append((n, r["seconds"]))
            print(f"{n:>10,}  {m:<12} {r['seconds']:>9.2f} {r['peak_mb']:>8.0f}  {'yes' if r['hit'] else 'no'}",
                  flush=True)
    print("\nscaling exponent b (seconds ~ rows^b) between consecutive sizes:")
    for m, pts in results.items():
        parts = [f"{a:,}->{c:,}: b = {math.log(tc / ta) / math.log(c / a):.2f} (x{tc / ta:.1f})"
                 for (a, ta), (c, tc) in zip(pts, pts[1:], strict=False)]
        print(f"  {m:<12} {'; '.join(parts) if parts else 'fewer than two sizes finished'}")


if __name__ == "__main__":
    main()
