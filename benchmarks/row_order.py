"""Do the findings depend on the order of the rows? COMPAS as given and shuffled (issue 33, item 18).

Runs ``detect_subgroups`` (defaults, ``random_state=0``) on FairVis' COMPAS table (``class`` the truth, ``out``
the prediction) in its own row order and in ``--shuffles`` random row orders, and prints per run the number of
findings (``findings()``, alpha 0.05), the number of significant subgroups in ``subgroup_metrics`` (any
``_p_adjusted`` below 0.05), and how many findings (metric, direction and the finding's rows, which unlike a
cluster's number do not depend on the row order) differ from the original order's. An outside audit counted
6,238 vs 5,933 findings before the permutations were drawn in a canonical row order.

The number of findings is a Monte Carlo quantity: with 200 permutations it moves with the permutations drawn
(``--seeds 0 1 2`` prints it per ``random_state``), so two counts are only comparable under the same draws.

Usage: ``python benchmarks/row_order.py [--data $AIF360_SUBJECTIVE_DATA] [--shuffles 2] [--discovery both]
[--seeds 0 1 2]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.detectors import detect_subgroups  # noqa: E402


def _findings(X: pd.DataFrame, y: pd.Series, p: pd.Series, discovery: str,
              original: np.ndarray) -> tuple[set, int, float]:
    """(findings as (metric, direction, hash of their rows in the original order), significant subgroups,
    seconds). Rows, not descriptions: a cluster's number follows the order of the rows, its rows do not."""
    start = time.perf_counter()
    rep = detect_subgroups(X, y.to_numpy(), p.to_numpy(), random_state=0, discovery=discovery)
    f = rep.findings(0.05)
    sm = rep.subgroup_metrics()
    sig = int((sm.filter(like="_p_adjusted") < 0.05).any(axis=1).sum())
    seconds = time.perf_counter() - start
    rows = [hash(tuple(np.sort(original[np.asarray(rep.members(k, i), dtype=bool)])))
            for k, i in zip(f["kind"], f["id"], strict=True)]
    keys = set(zip(f["metric"], f["direction"], rows, strict=True))
    return keys, sig, seconds


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("AIF360_SUBJECTIVE_DATA", "../shared/data"))
    ap.add_argument("--shuffles", type=int, default=2)
    ap.add_argument("--discovery", default="both", choices=("asdf", "patterns", "both"))
    ap.add_argument("--seeds", type=int, nargs="*", default=[],
                    help="also print the findings of these random_state values (the rows as given): how much the "
                         "count moves with the permutations drawn")
    args = ap.parse_args(argv)
    df = pd.read_csv(Path(args.data) / "compas" / "fairvis_compas_out.csv")
    X, y, p = df.drop(columns=["class", "out"]), df["class"], df["out"]
    print(f"# COMPAS ({len(df):,} rows), detect_subgroups(discovery={args.discovery!r}, random_state=0)")
    print("| row order | findings | significant subgroups | findings not in the original order's | seconds |")
    print("|---|---|---|---|---|")
    base, sig, sec = _findings(X, y, p, args.discovery, np.arange(len(df)))
    print(f"| as given | {len(base):,} | {sig:,} | - | {sec:.0f} |", flush=True)
    for s in range(args.shuffles):
        perm = np.random.default_rng(100 + s).permutation(len(df))
        keys, sig, sec = _findings(X.iloc[perm], y.iloc[perm], p.iloc[perm], args.discovery, perm)
        print(f"| shuffled (seed {100 + s}) | {len(keys):,} | {sig:,} | {len(keys ^ base):,} | {sec:.0f} |",
              flush=True)
    if args.seeds:
        print("\n| random_state | findings | findings with adjusted p < 0.01 |\n|---|---|---|")
        for seed in args.seeds:
            f = detect_subgroups(X, y.to_numpy(), p.to_numpy(), random_state=seed, discovery=args.discovery).findings()
            print(f"| {seed} | {len(f):,} | {int((f['p_adjusted'] < 0.01).sum()):,} |", flush=True)


if __name__ == "__main__":
    main()
