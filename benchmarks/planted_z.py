"""Why a planted slice is found or missed: its own z, its description class's offset and its adjusted p-value.

For each seed of one setting of ``benchmarks/slice_finders.py`` (default: conjunctive slices, statistical parity
lowered by 0.1, 10 seeds; the tables are :func:`slice_finders.table_for`'s), the default analysis
(``detect_subgroups``, ``discovery="both"``) is run and the mined pattern with exactly the planted rows is looked
up (the miner keeps every conjunction of up to 3 conditions with >= 1 % of the rows, so a 2-10 % slice is always
a candidate). Printed per seed: the slice's share of the rows, its rows and conditions, its observed z on the
setting's test (positive = disadvantaged), the max-T offset of its description class (``sqrt(2 ln K)``), its
adjusted p-value in the ranking's family (one test, one direction), and whether the default ranking puts it first
(Jaccard >= 0.5, the benchmark's hit).

Usage: ``python benchmarks/planted_z.py [--outcome SP|ER] [--shift 0.1] [--seeds 10]``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slice_finders import HIT_JACCARD, OUR_METRIC, Setting, _git_commit, _members_of_first, table_for  # noqa: E402

from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.detectors.bitsets import bit_keys, pack  # noqa: E402
from aif360_subjective.detectors.error_control.maxt import METRIC_TEST  # noqa: E402


def seed_row(setting: Setting, seed: int) -> dict:
    b = table_for(setting, seed)
    planted = np.asarray(b.planted, dtype=bool)
    rep = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=seed)
    metric = OUR_METRIC[setting.outcome]
    test = METRIC_TEST[metric]
    mt = rep.significance.max_t((test,))
    mined = rep.candidates.family("pattern")
    at = np.flatnonzero((mined.keys == bit_keys(pack(planted[:, None]))[0]).all(axis=1))
    rk = rep.ranking(metric, kind="all", n=1)
    first = _members_of_first(rep, rk, "all") if len(rk) else None
    jaccard = float((first & planted).sum() / (first | planted).sum()) if first is not None else 0.0
    row = {"seed": seed, "share": planted.mean(), "rows": int(planted.sum())}
    if len(at):
        i = rep.candidates.positions("pattern")[at[0]]
        row.update(conditions=len(mined.patterns[at[0]]), z=mt.z[i, test], offset=mt.offset[i],
                   p_adjusted=mt.p_adjusted[i, test, 0])
    else:
        row.update(conditions=np.nan, z=np.nan, offset=np.nan, p_adjusted=np.nan)
    row["hit"] = "yes" if jaccard >= HIT_JACCARD else "no"
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outcome", choices=["SP", "ER"], default="SP")
    ap.add_argument("--shift", type=float, default=0.1)
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    logging.getLogger("aif360_subjective").setLevel(logging.ERROR)
    setting = Setting("conjunction", args.outcome, args.shift, args.seeds)
    print(f"# Planted conjunctions, {args.outcome} shift {args.shift:g} (commit {_git_commit()})")
    table = pd.DataFrame([seed_row(setting, s) for s in range(args.seeds)])
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\nhit@1 {int((table['hit'] == 'yes').sum())}/{len(table)}")


if __name__ == "__main__":
    main()
