"""How often subgroup discovery names a subgroup on tables where none is treated differently.

The error-rate targets ("on tables with no effect, a ranking lists a subgroup in at most 5 % of runs", for the
ranking and for the whole report's family) need more null tables than ``benchmarks/slice_finders.py`` runs
beside its peers (which report a subgroup on every null table): a rate near 5 % measured on 50 tables has a
95 % interval of about +-6 points. This script runs only this package, on the same null tables
(:func:`~aif360_subjective.datasets.make_planted_slice` with ``effect=0``, 5,000 rows, as ``slice_finders.py``
builds them, seeds 0..N-1), for each outcome and ``discovery`` method, and prints per method:

* **ranking**: tables whose default ranking (``ranking(metric, kind="all")``, statistical parity for ``SP`` and
  accuracy for ``ER``, disadvantaged, ``alpha=0.05``) lists a subgroup;
* **findings**: tables whose whole report (``findings(0.05)``: every metric, kind and direction under one
  family) lists anything;

each with its Clopper-Pearson 95 % interval.

Usage: ``python benchmarks/null_error_rate.py [--tables 200] [--first-seed 0] [--discovery both ...]``; a run on
seeds 200-599 (``--first-seed 200 --tables 400``) adds tables to an earlier run on seeds 0-199 without repeating
them (the tables and analyses are seeded, so the counts of the two runs add up).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slice_finders import OUR_METRIC, Setting, _git_commit, table_for  # noqa: E402

from aif360_subjective.detectors import detect_subgroups  # noqa: E402

DISCOVERIES = ("asdf", "patterns", "both")
#: The table of seed s is the one ``slice_finders.py`` builds for seed s of 200 (the share of the rows its
#: no-effect "slice" covers cycles with period 200), whatever --tables and --first-seed are.
SHARE_PERIOD = 200


def interval(k: int, n: int) -> str:
    """``k/n (x.x %, 95 % interval [lo, hi] %)`` by Clopper-Pearson."""
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} ({100 * k / n:.1f} %, [{100 * lo:.1f}, {100 * hi:.1f}])"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200, help="null tables per outcome (default 200)")
    ap.add_argument("--first-seed", type=int, default=0, help="seed of the first table (default 0)")
    ap.add_argument("--discovery", nargs="+", choices=DISCOVERIES, default=list(DISCOVERIES),
                    help="discovery methods (default: all three)")
    args = ap.parse_args(argv)
    if args.tables < 1:
        ap.error(f"--tables must be >= 1, got {args.tables}")
    if args.first_seed < 0:
        ap.error(f"--first-seed must be >= 0, got {args.first_seed}")
    discoveries = tuple(args.discovery)
    seeds = range(args.first_seed, args.first_seed + args.tables)
    warnings.simplefilter("ignore")
    logging.getLogger("aif360_subjective").setLevel(logging.ERROR)
    print(f"# Null error rate (commit {_git_commit()}; {args.tables} null tables per outcome, seeds {seeds.start}-"
          f"{seeds.stop - 1}, 5,000 rows)")
    rows = []
    start = time.perf_counter()
    for outcome in ("SP", "ER"):
        setting = Setting("null", outcome, 0.0, SHARE_PERIOD)
        counts = {d: [0, 0] for d in discoveries}
        for seed in seeds:
            b = table_for(setting, seed)
            for d in discoveries:
                rep = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=seed, discovery=d)
                counts[d][0] += len(rep.ranking(OUR_METRIC[outcome], kind="all", n=1)) > 0
                counts[d][1] += len(rep.findings(0.05)) > 0
        for d in discoveries:
            rows.append({"outcome": outcome, "discovery": d,
                         "ranking lists a subgroup": interval(counts[d][0], args.tables),
                         "findings list anything": interval(counts[d][1], args.tables)})
        print(f"{outcome}: {args.tables} tables in {time.perf_counter() - start:.0f} s", flush=True)
    with pd.option_context("display.width", 200):
        print(pd.DataFrame(rows).to_string(index=False))
    print(f"\ntotal runtime {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
