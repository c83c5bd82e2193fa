"""Validated clusterings against the seed's clustering, the mined patterns and ``kind="all"``: does the first finding
describe the planted rows, and do null tables report anything?

Tables (:func:`planted_table`, 5,000 rows): 8 numeric columns ``x0..x7`` (standard normal) and 3 categorical ones
``c0..c2`` (4 levels), all independent. Binary decisions: favourable prediction with probability 0.5 (0.3 in the
planted rows), the truth equal to the prediction with probability 0.8. Shapes:

* ``blob``: a Gaussian region in 2 or 3 (drawn) of the numeric columns: the rows within a radius of a random centre,
  the radius giving 3-8 % (drawn) of the rows;
* ``ring``: a band ``r0 <= |(x_a, x_b)| < r0 + w`` around the origin of two numeric columns (about 6 % of the rows);
* ``conjunctive``: ``c0 = a AND c1 = b`` (about 6 % of the rows), where patterns should win;
* ``null``: no planted rows, no effect.

Methods, on the same table (``n_permutations=200``, ``alpha=0.05``), first row of ``ranking("statistical_parity",
kind=..., n=1)``:

* ``seed cluster``: today's default ``detect_subgroups(X, y, yhat)``, ``kind="cluster"`` (SLINK + x-means on every
  encoded column);
* ``patterns``: the same report, ``kind="pattern"``;
* ``all (today)``: the same report, ``kind="all"``;
* ``validated``: ``detect_subgroups(..., clusterings="validated")`` (default models: k-means on every numeric column
  and each pair of them, k in {5, 10, 20, 40}, which is the issue's k-means baseline's model list; ``--models scan``
  runs the scan windows on each pair and each triple of numeric columns), ``kind="validated"``: the models' clusters
  (or windows), tested in the one max-T with every other candidate;
* ``all (validated)``: the same report, ``kind="all"``.

Printed: per shape and method, the first finding describes the planted rows (Jaccard >= 0.5) in k of n tables; null
tables reporting something per method; then (``--adult``) on Adult (48,842 rows) the seconds of the seed's
clustering (``discovery="asdf"``, clusters and entropy patterns) against the validated clusterings alone
(:func:`~aif360_subjective.detectors.asdf.validated.run_validated_clusterings`), wall clock on a shared machine.

Usage: ``python benchmarks/validated_clusterings.py [--tables 10] [--null 40] [--shapes blob ring conjunctive]
[--planted-modes seed validated] [--null-modes seed validated] [--adult] [--skip-planted]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if str(HERE.parent) not in sys.path:
    sys.path.append(str(HERE.parent))

from aif360_subjective.detectors import detect_subgroups  # noqa: E402

SHAPES = ("blob", "ring", "conjunctive")
METHODS = (("seed cluster", "seed", "cluster"), ("patterns", "seed", "pattern"), ("all (today)", "seed", "all"),
           ("validated", "validated", "validated"), ("all (validated)", "validated", "all"))


def planted_table(shape: str, n: int = 5000, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray,
                                                                      np.ndarray]:
    """``(X, y_true, y_pred, planted)`` of one table (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(8)})
    for j in range(3):
        X[f"c{j}"] = rng.choice(list("abcd"), n)
    planted = np.zeros(n, dtype=bool)
    if shape == "blob":
        cols = [f"x{i}" for i in rng.choice(8, size=int(rng.integers(2, 4)), replace=False)]
        centre = rng.uniform(-1.0, 1.0, size=len(cols))
        d = np.sqrt(((X[cols].to_numpy() - centre) ** 2).sum(axis=1))
        planted = d <= np.quantile(d, rng.uniform(0.03, 0.08))
    elif shape == "ring":
        a, b = rng.choice(8, size=2, replace=False)
        r = np.hypot(X[f"x{a}"], X[f"x{b}"]).to_numpy()
        r0 = rng.uniform(0.8, 1.6)
        w = np.quantile(np.abs(r - r0), 0.06)  # about 6 % of the rows
        planted = np.abs(r - r0) <= w
    elif shape == "conjunctive":
        planted = ((X["c0"] == "a") & (X["c1"] == "b")).to_numpy()
    p = rng.random(n) < np.where(planted, 0.3, 0.5)
    t = np.where(rng.random(n) < 0.8, p, ~p)
    return X, t.astype(int), p.astype(int), planted


def first_rows(rep, kind: str) -> np.ndarray | None:
    """Rows of the first significant subgroup of ``kind`` by statistical parity (None when none)."""
    from slice_finders import _members_of_first

    rk = rep.ranking("statistical_parity", kind=kind, n=1)
    return _members_of_first(rep, rk, kind) if len(rk) else None


def jaccard(a: np.ndarray | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float((a & b).sum() / max((a | b).sum(), 1))


def run_table(shape: str, seed: int, modes: tuple[str, ...] = ("seed", "validated"),
              models: list[str] | None = None) -> dict[str, float]:
    """Jaccard of each method's first finding with the planted rows (null: 1 when something is reported); the
    methods of ``modes`` only (the others NaN)."""
    X, t, p, planted = planted_table(shape, seed=seed)
    reports = {}
    secs = {"seed": float("nan"), "validated": float("nan")}
    for mode in modes:
        start = time.perf_counter()
        extra = {"clustering_models": models} if mode == "validated" and models else {}
        reports[mode] = detect_subgroups(X, t, p, clusterings=mode, random_state=seed, **extra)
        secs[mode] = time.perf_counter() - start
    out = {}
    for name, mode, kind in METHODS:
        if mode not in reports:
            out[name] = float("nan")
            continue
        rows = first_rows(reports[mode], kind)
        out[name] = float(rows is not None) if shape == "null" else jaccard(rows, planted)
    out["seconds seed"], out["seconds validated"] = secs["seed"], secs["validated"]
    cv = reports["validated"].cluster_validation()
    out["selected"] = str(cv.loc[cv["selected"], ["algorithm", "features", "k"]].iloc[0].to_dict())
    return out


def adult_timing(root: Path) -> None:
    from subgroups import load_adult

    from aif360_subjective.detectors.asdf.validated import run_validated_clusterings
    from aif360_subjective.detectors.encoding import detect_categorical

    X, y, yhat, _, _ = load_adult(root)
    start = time.perf_counter()
    detect_subgroups(X, y, yhat, discovery="asdf", random_state=0)
    seed_secs = time.perf_counter() - start
    start = time.perf_counter()
    v = run_validated_clusterings(X, detect_categorical(X), None, (y == 1, yhat == 1, None), "statistical_parity",
                                  np.random.default_rng(0))
    val_secs = time.perf_counter() - start
    cv = v.table
    print("\n## Adult (48,842 rows): seconds (wall clock, shared machine)")
    print("| what | seconds |")
    print("|---|---|")
    print(f"| today's ASDF (discovery='asdf': SLINK + x-means on a 10,000-row sample, entropy patterns, metrics) "
          f"| {seed_secs:.1f} |")
    print(f"| validated clusterings alone ({len(cv)} default models) | {val_secs:.1f} |")
    print(f"| ratio | {val_secs / seed_secs:.2f} |")
    print(f"\nchosen on Adult: {v.why()}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--null", type=int, default=40)
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=SHAPES)
    ap.add_argument("--null-modes", nargs="+", default=["seed", "validated"], choices=["seed", "validated"],
                    help="the analyses run on null tables (validated alone halves the time)")
    ap.add_argument("--planted-modes", nargs="+", default=["seed", "validated"], choices=["seed", "validated"],
                    help="the analyses run on planted tables (validated alone: the seed's columns are not run)")
    ap.add_argument("--models", nargs="+", default=None, help="clustering_models of the validated analysis, "
                    "algorithm names (default: the package's default models)")
    ap.add_argument("--adult", action="store_true")
    ap.add_argument("--skip-planted", action="store_true")
    ap.add_argument("--data", default=None)
    args = ap.parse_args(argv)
    if not args.skip_planted:
        names = [m[0] for m in METHODS]
        print("## Planted rows: first finding by statistical parity describes them (Jaccard >= 0.5), k of n tables")
        print("| shape | " + " | ".join(names) + " | s/table seed | s/table validated |")
        print("|---|" + "---|" * (len(names) + 2))
        for shape in [*args.shapes, "null"]:
            if shape != "null" and args.tables == 0:
                continue
            count = args.null if shape == "null" else args.tables
            if count == 0:
                continue
            res = []
            for seed in range(count):
                modes = tuple(args.null_modes if shape == "null" else args.planted_modes)
                r = run_table(shape, 1000 * SHAPES.index(shape) + seed if shape != "null" else 9000 + seed, modes,
                              args.models)
                print(f"{shape} {seed}: " + ", ".join(f"{k}={v if isinstance(v, str) else round(v, 2)}"
                                                       for k, v in r.items()), file=sys.stderr, flush=True)
                res.append(r)
            df = pd.DataFrame(res)
            if shape == "null":
                cells = [f"{int(df[m].sum())}/{count} report" if df[m].notna().all() else "not run" for m in names]
            else:
                cells = [f"{int((df[m] >= 0.5).sum())}/{count}" if df[m].notna().all() else "not run" for m in names]
            print(f"| {shape} | " + " | ".join(cells) + f" | {df['seconds seed'].mean():.1f} | "
                  f"{df['seconds validated'].mean():.1f} |", flush=True)
    if args.adult:
        root = Path(args.data or os.environ.get("AIF360_SUBJECTIVE_DATA") or HERE.parent.parent / "shared" / "data")
        adult_timing(root)


if __name__ == "__main__":
    main()
