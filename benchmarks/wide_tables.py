"""Cost of the default subgroup discovery on wide tables: where the time goes, by rows and columns.

Tables: :func:`~aif360_subjective.datasets.make_planted_slice` with ``c`` columns, four fifths categorical (4
levels) and one fifth numeric (uniform), a planted 5 % slice of statistical parity 0.2 (the effect does not change
the cost). Each cell runs ``detect_subgroups(X, y_true, y_pred, random_state=0)`` with the default options
(``discovery="both"``: the seed's clustering with x-means' k, its entropy patterns, mined patterns, max-T over
all of them) and ``findings()``, in a child process of its own (so that its peak memory is its own), and prints
the phases:

* clustering: encoding, single linkage (Prim up to 10,000 rows), x-means' k, the cut and, on a table of more
  than ``cluster_sample`` (10,000) rows, the nearest-sampled-row rule for the other rows
  (:mod:`~aif360_subjective.detectors.asdf.cluster_sample`);
* mining: the mined patterns (at most ``max_patterns`` = 200,000; the column says how many and up to how many
  conditions);
* ``detect_subgroups``: the whole call (clustering and mining overlap in two threads; the rest is the candidates'
  metrics);
* max-T: ``findings()``, which runs the permutation max-T over every candidate (200 permutations);
* peak memory of the child process (resident set size).

``--counted-whole`` adds, per cell, the mining alone (the best of two runs, alternated, in the same process): as it runs
(a level is counted a block of patterns at a time, and the count of a left-out length stops once its patterns
pass ``max_patterns``), and with every extension of the left-out length counted before the bound is checked (the
miner before that change; its same patterns are checked).

``--before`` adds, per cell, what the same table cost before issue 30's bounds: the clustering of every row with
the back end ``mst="auto"`` chose then (mlpack's dual-tree Borůvka whenever n^2 d > 10^9), and the number of mined
patterns without ``max_patterns`` (mining only; ``--before-full`` also runs that unbounded analysis end to end,
which took 10 minutes and 13 GB on 5,000 rows x 30 columns).

Usage: ``python benchmarks/wide_tables.py`` (5,000 and 20,000 rows x 10 and 30 columns, about 30 s on two
free cores); ``--full`` for 5,000 / 20,000 / 50,000 rows x 10 / 30 / 60 columns; ``--rows`` and ``--columns`` to
choose; ``--before`` for the old cost beside it; ``--counted-whole`` for the mining with and without the early
stop.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.datasets import make_planted_slice  # noqa: E402
from aif360_subjective.detectors import detect as detect_module  # noqa: E402
from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.detectors.asdf import mst as mst_module  # noqa: E402

DEFAULT_ROWS, DEFAULT_COLUMNS = (5_000, 20_000), (10, 30)
FULL_ROWS, FULL_COLUMNS = (5_000, 20_000, 50_000), (10, 30, 60)
# the rule of mst="auto" before issue 30: Prim while n^2 d <= 10^9, mlpack above
OLD_AUTO_PRIM_WORK = 10**9


def table(n: int, columns: int, seed: int = 0):
    """(X, y_true, y_pred) of ``columns`` columns: four fifths categorical, one fifth numeric."""
    numeric = columns // 5
    b = make_planted_slice(n_samples=n, n_categorical=columns - numeric, n_numeric=numeric, planted_share=0.05,
                           random_state=seed)
    return b.X, b.y_true, b.y_pred


def _timed(phases: dict, name: str, fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        phases[name] = time.perf_counter() - t0
        return out

    return wrapper


def _counted_whole(X, rep) -> dict:
    """The mining alone (options of ``rep``), as it runs and with the left-out length counted whole: seconds."""
    from aif360_subjective.detectors.mining import pattern_mining
    from aif360_subjective.detectors.options import check_analysis_options

    opts = check_analysis_options(X, max_patterns=rep.settings()["max_patterns"])
    blocked = pattern_mining._frequent_extensions

    def whole(level, bits, item_bits, col, min_support, room):
        pi, ii, sup, _ = blocked(level, bits, item_bits, col, min_support, None)  # every block, then the bound
        return pi, ii, sup, True

    times: dict = {"stopped": [], "whole": []}
    try:
        for variant in ("stopped", "whole") * 2:  # alternated, the best of two each
            pattern_mining._frequent_extensions = blocked if variant == "stopped" else whole
            t0 = time.perf_counter()
            mined = detect_module.mine(X, opts)
            times[variant].append(time.perf_counter() - t0)
            if variant == "stopped":
                stopped = mined
            else:
                counted = mined
    finally:
        pattern_mining._frequent_extensions = blocked
    if counted.patterns != stopped.patterns or counted.skipped_length != stopped.skipped_length:
        raise AssertionError("the early stop changed the mined patterns")
    return {"mining_stopped": min(times["stopped"]), "mining_whole": min(times["whole"]),
            "whole_skipped": counted.skipped_count}


def cell(n: int, columns: int, before: bool, before_full: bool, counted_whole: bool = False) -> dict:
    """One table's phases (run in the child process)."""
    X, y, yhat = table(n, columns)
    phases: dict = {}
    # time the two phases inside the one default call (they run in two threads there)
    detect_module.cluster = _timed(phases, "clustering", detect_module.cluster)
    detect_module.mine = _timed(phases, "mining", detect_module.mine)
    t0 = time.perf_counter()
    rep = detect_subgroups(X, y, yhat, random_state=0)
    phases["detect"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = rep.findings()
    phases["max_t"] = time.perf_counter() - t0
    mined = next(f for f in rep.candidates.families if f.kind == "pattern")
    from aif360_subjective.detectors.encoding import encode_for_clustering

    Z, _ = encode_for_clustering(X, rep.categorical_features)
    out = {"rows": n, "columns": columns, "encoded": int(Z.shape[1]), "k": rep.n_clusters,
           "clustered": rep.cluster_sample or n, "patterns": len(mined.ids), "length": mined.mined_length,
           "skipped": mined.skipped_count, "skipped_lower": mined.skipped_count_is_lower_bound,
           "findings": len(found), **phases, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if counted_whole:
        out.update(_counted_whole(X, rep))
    if before:
        old = "mlpack" if n * n * Z.shape[1] > OLD_AUTO_PRIM_WORK and mst_module.mlpack_available() else "sklearn"
        t0 = time.perf_counter()
        mst_module.single_linkage(Z, old)
        out["before_tree"] = time.perf_counter() - t0
        out["before_mst"] = old
        from aif360_subjective.detectors.options import check_analysis_options

        t0 = time.perf_counter()
        unbounded = detect_module.mine(X, check_analysis_options(X, max_patterns=None))
        out["before_mining"] = time.perf_counter() - t0
        out["before_patterns"] = len(unbounded.ids)
        del unbounded
    if before_full:
        t0 = time.perf_counter()
        rep = detect_subgroups(X, y, yhat, random_state=0, cluster_sample=None, max_patterns=None,
                               mst=out.get("before_mst", "auto"))
        rep.findings()
        out["before_total"] = time.perf_counter() - t0
        out["before_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="5k/20k/50k rows x 10/30/60 columns")
    ap.add_argument("--rows", default="", help="comma-separated row counts")
    ap.add_argument("--columns", default="", help="comma-separated column counts")
    ap.add_argument("--before", action="store_true", help="add the old clustering back end and unbounded mining")
    ap.add_argument("--before-full", action="store_true", help="also run the old, unbounded analysis end to end")
    ap.add_argument("--counted-whole", action="store_true",
                    help="add the mining alone with the left-out length counted whole (before the early stop)")
    ap.add_argument("--cell", nargs=2, type=int, help=argparse.SUPPRESS)  # the child process' own cell
    args = ap.parse_args(argv)
    if args.cell:
        print(json.dumps(cell(*args.cell, args.before, args.before_full, args.counted_whole)))
        return
    rows = [int(r) for r in args.rows.split(",") if r] or (FULL_ROWS if args.full else DEFAULT_ROWS)
    columns = [int(c) for c in args.columns.split(",") if c] or (FULL_COLUMNS if args.full else DEFAULT_COLUMNS)
    print("# Default detect_subgroups on wide tables (discovery='both', cluster_sample=10,000, max_patterns=200,000, "
          "200 permutations), seconds per phase")
    head = ("| rows | columns (encoded) | clustering (rows clustered, k) | mining (patterns, up to length) | "
            "detect_subgroups | max-T (findings) | total | peak memory |")
    if args.counted_whole:
        head += (" mining alone: count stopped at the bound | mining alone: left-out length counted whole (its "
                 "patterns) |")
    if args.before:
        head += " before: single linkage of every row (back end) | before: mined patterns, unbounded |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    start = time.perf_counter()
    for n in rows:
        for c in columns:
            cmd = [sys.executable, __file__, "--cell", str(n), str(c)]
            cmd += ["--before"] * args.before + ["--before-full"] * args.before_full
            cmd += ["--counted-whole"] * args.counted_whole
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"| {n:,} | {c} | failed: {done.stderr.strip().splitlines()[-1:]} |", flush=True)
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            at_least = "at least " if r["skipped_lower"] else ""
            skipped = f", {at_least}{r['skipped']:,} of length {r['length'] + 1} left out" if r["skipped"] else ""
            line = (f"| {n:,} | {c} ({r['encoded']}) | {r['clustering']:.1f} ({r['clustered']:,}, k={r['k']}) | "
                    f"{r['mining']:.1f} ({r['patterns']:,}, {r['length']}{skipped}) | {r['detect']:.1f} | "
                    f"{r['max_t']:.1f} | {r['detect'] + r['max_t']:.1f} | {r['peak_mb'] / 1024:.1f} GB |")
            if args.counted_whole:
                whole = f"{r['whole_skipped']:,}" if r["whole_skipped"] else "none left out"
                line += f" {r['mining_stopped']:.2f} | {r['mining_whole']:.2f} ({whole}) |"
            if args.before:
                line += (f" {r['before_tree']:.1f} ({r['before_mst']}) | {r['before_patterns']:,} "
                         f"({r['before_mining']:.1f} s) |")
            if args.before_full:
                line += f" end to end {r['before_total']:.0f} s, {r['before_peak_mb'] / 1024:.1f} GB |"
            print(line, flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
