"""Family-wise error on null tables of three max-T schemes side by side: the classical permutation max-T, the keyed
permutation max-T (the one that distributes over Dask partitions) and a Rademacher multiplier max-T.

All three test the mined patterns of one table for a lower favourable-prediction rate (statistical parity, the
disadvantaged direction, no size penalty: ``max_t(..., penalty=False, tests=(0,))``) at ``alpha``; a table is a
family-wise error when any pattern's adjusted p-value is <= alpha:

* **classical**: :func:`aif360_subjective.detectors.error_control.maxt.max_t`, shuffles of the (truth, prediction)
  pairs drawn
  from a numpy Generator;
* **keyed**: the same with ``permutation="keyed"``: each permutation a keyed Feistel bijection of the row
  positions (:mod:`aif360_subjective.detectors.error_control.keyed_permutation`), what ``dask_counts.permuted_counts``
  sums per
  partition;
* **multiplier**: pattern S's ``b``-th null statistic is ``-(sum_{i in S} e_ib v_i - n_S / N sum_i e_ib v_i) /
  sd_S`` with ``v_i = p_i - mean(p)``, Rademacher weights ``e_ib`` and ``sd_S`` the permutation test's
  hypergeometric sd; the observed statistic is the permutation test's z; single step (it rejects anything
  exactly when the step-down does).

With ``--global`` the classical and keyed schemes are also run on the global family (the five tests, both
directions, the size penalty: what a report's findings are adjusted in), the multiplier has no form for it.

Null tables: :func:`aif360_subjective.datasets.make_planted_slice` with ``effect=0`` (6 categorical columns of 4
levels, 2 numeric), patterns mined with ``min_support`` rows and ``max_length=3``; tables ``first_seed ..
first_seed + reps - 1``, each scheme with its own seed. Printed per scheme: the family-wise error, its binomial
standard error, the Wilson 95 % interval, and the milliseconds per permutation (the max-T call divided by B);
then the draws alone on ``--timing-rows`` rows: keyed classes against numpy's shuffle, per row and permutation.

Run: ``python benchmarks/keyed_maxt.py`` (400 tables of 5,000 rows, B = 199); ``--reps``, ``--first-seed``,
``--rows``, ``--min-support``, ``--permutations``, ``--global`` change the design.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from _timing import best_of  # noqa: E402

from aif360_subjective.datasets import make_planted_slice  # noqa: E402
from aif360_subjective.detectors.error_control.keyed_permutation import permuted_classes  # noqa: E402
from aif360_subjective.detectors.error_control.maxt import _sd, max_t  # noqa: E402
from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns  # noqa: E402

SCHEMES = ("classical", "keyed", "multiplier")


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95 % interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    ph = k / n
    centre = (ph + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def multiplier_p(counter: object, z: np.ndarray, p: np.ndarray, B: int, seed: int) -> float:
    """Single-step multiplier p-value of the family's maximum (see the module's docstring)."""
    N = float(len(p))
    n_s = counter.count(np.ones((len(p), 1)))[:, 0]  # type: ignore[attr-defined]
    sd = _sd(n_s, float(p.sum()), N)
    ok = sd > 1e-12
    e = np.random.default_rng(seed).integers(0, 2, size=(len(p), B)) * 2.0 - 1.0
    ev = e * (p - p.mean())[:, None]
    sums = counter.count(ev)  # type: ignore[attr-defined]  # (patterns, B): what the partitions would add up
    null = -(sums - (n_s / N)[:, None] * ev.sum(axis=0)[None, :])[ok] / sd[ok][:, None]
    obs = float(np.nanmax(z[ok]))
    return (1 + np.count_nonzero(null.max(axis=0) >= obs - 1e-9)) / (1 + B)


def one_table(seed: int, rows: int, min_support: int, B: int, alpha: float, global_family: bool) -> dict[str, float]:
    b = make_planted_slice(rows, effect=0.0, random_state=seed)
    X = b.X
    items = build_items(X, [c for c in X.columns if c.startswith("cat")], 5, 3)
    mined = mine_patterns(items, min_support, 3)
    counter = mined.counter()
    t = np.asarray(b.y_true, dtype=np.float64)
    p = np.asarray(b.y_pred, dtype=np.float64)
    out: dict[str, float] = {"patterns": len(mined.patterns)}
    z = None
    # each scheme its own stream, apart from the table's (the table's seed would reuse its draws)
    for k, scheme in enumerate(("classical", "keyed")):
        t0 = time.perf_counter()
        res = max_t(counter, t, p, n_permutations=B, random_state=(k + 1) * 10**6 + seed, penalty=False, tests=(0,),
                    permutation=scheme)
        out[f"{scheme}_s"] = (time.perf_counter() - t0) / B
        out[scheme] = float(np.nanmin(res.p_adjusted[:, 0, 0]) <= alpha)
        z = res.z[:, 0]
        if global_family:
            g = max_t(counter, t, p, n_permutations=B, random_state=(k + 1) * 10**6 + seed, penalty=True,
                      permutation=scheme)
            out[f"{scheme}_global"] = float(np.nanmin(g.p_global) <= alpha)
    assert z is not None
    t0 = time.perf_counter()
    out["multiplier"] = float(multiplier_p(counter, z, p, B, 3 * 10**6 + seed) <= alpha)
    out["multiplier_s"] = (time.perf_counter() - t0) / B
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--min-support", type=int, default=50)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--global", dest="global_family", action="store_true",
                    help="also the global family (five tests, both directions, size penalty) for the permutations")
    ap.add_argument("--timing-rows", type=int, default=200_000, help="rows of the draws-alone timing (0: skip)")
    ap.add_argument("--progress", type=int, default=0, metavar="K", help="print the running counts every K tables")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    res = []
    for s in range(args.first_seed, args.first_seed + args.reps):
        res.append(one_table(s, args.rows, args.min_support, args.permutations, args.alpha, args.global_family))
        if args.progress and len(res) % args.progress == 0:  # running counts, for a run cut short
            errs = ", ".join(f"{k} {int(sum(r[k] for r in res))}" for k in SCHEMES)
            print(f"  {len(res)} tables ({time.perf_counter() - t0:.0f} s): errors {errs}", flush=True)
    n = len(res)
    se = np.sqrt(args.alpha * (1 - args.alpha) / n)
    print(f"{n} null tables (seeds {args.first_seed}..{args.first_seed + n - 1}) of {args.rows:,} rows, "
          f"{int(np.mean([r['patterns'] for r in res])):,} patterns on average (min_support {args.min_support}), "
          f"B = {args.permutations}, alpha = {args.alpha}; {time.perf_counter() - t0:.0f} s")
    print("family: statistical parity, disadvantaged direction, no penalty")
    print(f"{'scheme':<12} {'errors':>7} {'FWER':>7} {'SE':>7} {'Wilson 95 %':>16} {'ms / permutation':>17}")
    for s in SCHEMES:
        k = int(sum(r[s] for r in res))
        lo, hi = wilson(k, n)
        ms = 1000 * float(np.median([r[f"{s}_s"] for r in res]))
        print(f"{s:<12} {k:>7} {k / n:>7.3f} {np.sqrt(k / n * (1 - k / n) / n):>7.3f} "
              f"{f'[{lo:.3f}, {hi:.3f}]':>16} {ms:>17.2f}")
    if args.global_family:
        print("family: global (five tests, both directions, size penalty)")
        for s in ("classical", "keyed"):
            k = int(sum(r[f"{s}_global"] for r in res))
            lo, hi = wilson(k, n)
            print(f"{s:<12} {k:>7} {k / n:>7.3f} {np.sqrt(k / n * (1 - k / n) / n):>7.3f} "
                  f"{f'[{lo:.3f}, {hi:.3f}]':>16}")
    if args.timing_rows:
        # the draws alone at a larger table: the keyed classes of every row against numpy's shuffle of the rows
        R, b = args.timing_rows, 50
        keyed_s, _ = best_of(lambda: permuted_classes(1, 0, b, np.arange(R), [R // 2, R - R // 2]))
        rng = np.random.default_rng(0)
        shuffle_s, _ = best_of(lambda: rng.permuted(np.tile(np.arange(R), (b, 1)), axis=1))
        print(f"draws alone, {R:,} rows x {b} permutations: keyed classes {1e9 * keyed_s / (R * b):.0f} ns, numpy "
              f"shuffle {1e9 * shuffle_s / (R * b):.0f} ns per row and permutation (fastest of 3)")
    agree = np.mean([r["classical"] == r["keyed"] for r in res])
    agree_m = np.mean([r["classical"] == r["multiplier"] for r in res])
    print(f"binomial SE at alpha: {se:.3f}; the classical and keyed schemes agree on {agree:.1%} of the tables, "
          f"the classical and multiplier on {agree_m:.1%}; ms / permutation: the max-T call over B, median over "
          "tables (the multiplier: its weights and sums only)")


if __name__ == "__main__":
    main()
