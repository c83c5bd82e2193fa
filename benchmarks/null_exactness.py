"""Is the max-T exact on null tables? The share of null tables whose smallest adjusted p-value is at most x.

An exact permutation test (its reference distribution the null distribution of its statistic) gives
``P(min p_adjusted <= x) <= x`` for every x (with ``B`` permutations p takes the values ``k / (B + 1)``, so the
bound is met with equality at ``x = k / (B + 1)`` when the statistic has no ties). Small null tables, many of
them, B = 99 by default, in two settings:

* ``multiclass``: the null tables of ``benchmarks/tasks_planted.py`` (3 classes, truth uniform, the prediction
  one of the two other classes with probability 0.15 on every row) at ``--rows`` rows; rows are the units;
* ``between``: the null tables of ``benchmarks/clustered_rows.py`` (binary; each person's records mispredicted
  with the person's own propensity) with ``--rows / 5`` persons of 5 records, ``groups=person``,
  ``design="between"``, ``discovery="patterns"``;
* ``ordinal``: the ordinal null tables of ``benchmarks/tasks_planted.py`` (ratings 1-5, off by one level with
  probability 0.25).

Printed per setting: for x in 0.05, 0.1, 0.2, 0.5 the share of tables with ``min p_global <= x`` (the global
family that ``findings()`` reads) with its binomial standard error ``sqrt(x (1 - x) / N)`` under an exact test,
the z of the excess, and the share of tables where ``findings(0.05)`` lists anything.

``--counts 11/200 13/200 ...`` prints, instead of running tables, how often an exact test gives at least each count
of reports among null tables (its rate with ``--at-b`` permutations is ``floor(0.05 (B + 1)) / (B + 1)``), and how
often it gives at most the largest count whose Wilson 95% upper bound is <= 5%: the numbers
``docs/guide/tasks_and_clusters.rst`` reads the 200-table null counts against.

Usage: ``python benchmarks/null_exactness.py [--settings multiclass,between] [--tables 300] [--rows 1000]
[--permutations 99] [--save DIR]`` or ``python benchmarks/null_exactness.py --counts 11/200 13/200 12/200 47/1000``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.datasets import make_planted_slice  # noqa: E402
from aif360_subjective.detectors import detect_subgroups  # noqa: E402

LEVELS = (0.05, 0.1, 0.2, 0.5)


def multiclass_table(seed: int, rows: int, ordinal: bool = False):
    """(X, y_true, y_pred, keywords) as ``tasks_planted.table(task, seed, effect=False)`` at ``rows`` rows."""
    b = make_planted_slice(n_samples=rows, n_conditions=2, planted_share=0.09, effect=0.0, random_state=seed)
    rng = np.random.default_rng(10_000 + seed)
    if ordinal:
        y = rng.integers(1, 6, rows)
        off = rng.random(rows) < 0.25
        step = np.where(rng.random(rows) < 0.5, -1, 1)
        step = np.where(y + step < 1, 1, np.where(y + step > 5, -1, step))
        return b.X, y, np.where(off, y + step, y), {"task": "ordinal"}
    y = rng.integers(0, 3, rows)
    wrong = rng.random(rows) < 0.15
    other = (y + rng.integers(1, 3, rows)) % 3
    names = np.array(["cat", "dog", "owl"])
    return b.X, names[y], names[np.where(wrong, other, y)], {"task": "multiclass"}


def between_table(seed: int, rows: int):
    """(X, y_true, y_pred, keywords) as ``clustered_rows.clustered_table(seed, "binary")`` with ``rows / 5``
    persons, analysed with ``groups=person, design="between"``."""
    persons = rows // 5
    rng = np.random.default_rng(seed)
    person = np.repeat(np.arange(persons), 5)
    feats = {"sex": 2, "age_band": 5, "region": 4, "education": 3}
    P = {k: rng.integers(0, v, persons) for k, v in feats.items()}
    X = pd.DataFrame({k: np.array([f"{k[0]}{i}" for i in range(feats[k])])[P[k][person]] for k in feats})
    X["channel"] = np.array(["web", "phone", "desk"])[rng.integers(0, 3, len(person))]
    logit = np.log(0.2 / 0.8) + rng.normal(0.0, 1.5, persons)[person]
    t = rng.integers(0, 2, len(person))
    flip = rng.random(len(person)) < 1.0 / (1.0 + np.exp(-logit))
    return X, t, np.where(flip, 1 - t, t), {"task": "binary", "discovery": "patterns",
                                            "groups": pd.Series(person, name="person"), "design": "between"}


TABLES = {"multiclass": multiclass_table, "ordinal": lambda s, r: multiclass_table(s, r, True),
          "between": between_table}


def one(setting: str, seed: int, rows: int, B: int, offset: int = 0) -> tuple[float, bool]:
    """(smallest global adjusted p-value, findings(0.05) lists anything) of one null table; the analysis seed is
    the table's plus ``offset`` (0: the same seed, as the benchmarks do)."""
    X, y, yhat, kw = TABLES[setting](seed, rows)
    rep = detect_subgroups(X, y, yhat, random_state=seed + offset, n_permutations=B, **kw)
    mt = rep.significance.max_t()
    return float(np.nanmin(mt.p_global)), len(rep.findings(0.05)) > 0


def wilson_upper(k: int, n: int, z: float = 1.959964) -> float:
    """The Wilson 95% upper bound of a rate of ``k`` in ``n``."""
    p = k / n
    return (p + z * z / (2 * n) + z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)


def print_counts(counts: list[str], B: int, alpha: float = 0.05) -> None:
    """Binomial tails of report counts under an exact test with ``B`` permutations (its rate floor(alpha (B + 1)) /
    (B + 1)), and the chance that such a test shows a Wilson upper bound <= alpha."""
    from scipy.stats import binom

    rate = np.floor(alpha * (B + 1) + 1e-9) / (B + 1)
    print(f"# an exact test with B = {B} permutations reports on {rate:.4f} of null tables")
    print("| count | P(at least this many) | P(Wilson upper <= 5%) at this N |")
    print("|---|---|---|")
    for c in counts:
        k, n = (int(v) for v in c.split("/"))
        k_max = max((j for j in range(n + 1) if wilson_upper(j, n) <= alpha), default=-1)
        p_wilson = float(binom.cdf(k_max, n, rate)) if k_max >= 0 else 0.0
        print(f"| {k}/{n} | {binom.sf(k - 1, n, rate):.3f} | {p_wilson:.3f} (at most {k_max} of {n}) |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", default="multiclass,between")
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--permutations", type=int, default=99)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--seed-offset", type=int, default=0, help="analysis seed = table seed + this (default 0)")
    ap.add_argument("--save", type=Path, default=None, help="folder for each setting's smallest p-values (.npy)")
    ap.add_argument("--counts", nargs="+", default=None, metavar="K/N",
                    help="print binomial tails of these report counts under an exact test instead of running tables")
    ap.add_argument("--at-b", type=int, default=200, help="permutations of the test behind --counts (default 200)")
    args = ap.parse_args(argv)
    if args.counts:
        print_counts(args.counts, args.at_b)
        return
    warnings.simplefilter("ignore")
    print(f"# null tables: {args.tables} per setting, {args.rows} rows, B = {args.permutations}, seeds from "
          f"{args.first_seed}, analysis seed offset {args.seed_offset}; share with min p_global <= x (exact test: "
          "<= x; SE = sqrt(x (1 - x) / N))")
    print("| setting | " + " | ".join(f"<= {x}" for x in LEVELS) + " | findings(0.05) | s per table |")
    print("|---|" + "---|" * (len(LEVELS) + 2))
    for setting in args.settings.split(","):
        t0 = time.perf_counter()
        res = [one(setting, s, args.rows, args.permutations, args.seed_offset)
               for s in range(args.first_seed, args.first_seed + args.tables)]
        p = np.array([r[0] for r in res])
        anyf = sum(r[1] for r in res)
        n = len(p)
        cells = []
        for x in LEVELS:
            k = int(np.sum(p <= x + 1e-12))
            se = np.sqrt(x * (1 - x) / n)
            cells.append(f"{k}/{n} = {k / n:.3f} (SE {se:.3f}, z {(k / n - x) / se:+.1f})")
        print(f"| {setting} | " + " | ".join(cells) + f" | {anyf}/{n} | {(time.perf_counter() - t0) / n:.2f} |",
              flush=True)
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            np.save(args.save / f"null_exactness_{setting}_{args.first_seed}_{args.seed_offset}_{n}.npy", p)


if __name__ == "__main__":
    main()
