"""Does a Rademacher multiplier max-T (which distributes over partitions) hold the family-wise error as the
in-memory permutation max-T does?

Both test the mined patterns of one table for a lower favourable-prediction rate (statistical parity, the
disadvantaged direction, no size penalty) at ``alpha``:

* **permutation** (in memory): :func:`aif360_subjective.detectors.maxt.max_t` (``tests=(0,)``, ``penalty=False``),
  the joint permutation of (truth, prediction) pairs over the rows; a table counts as a family-wise error when
  any pattern's adjusted p-value is <= alpha;
* **multiplier**: with ``v_i = p_i - mean(p)`` and Rademacher weights ``e_ib`` keyed by the rows' positions
  (:func:`aif360_subjective.detectors.dask_counts.rademacher`), pattern S's ``b``-th null statistic is
  ``-(sum_{i in S} e_ib v_i - n_S / N sum_i e_ib v_i) / sd_S`` (the sums
  :func:`~aif360_subjective.detectors.dask_counts.multiplier_counts` returns per partition), ``sd_S`` the
  permutation test's own hypergeometric sd; the observed statistic is the permutation test's z; the table is an
  error when ``(1 + #{b: max_S null_Sb >= max_S z_S}) / (1 + B) <= alpha`` (single step: it rejects anything
  exactly when the step-down does).

Null tables: :func:`aif360_subjective.datasets.make_planted_slice` with ``effect=0`` (6 categorical columns of 4
levels, 2 numeric), patterns mined with ``min_support`` rows and ``max_length=3``. Printed: the family-wise
error of each with its binomial standard error, and how often the two agree.

Run: ``python benchmarks/multiplier_maxt.py`` (200 tables of 5,000 rows, B = 199); ``--reps``, ``--rows``,
``--min-support`` change the design.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from aif360_subjective.datasets import make_planted_slice  # noqa: E402
from aif360_subjective.detectors.dask_counts import rademacher  # noqa: E402
from aif360_subjective.detectors.maxt import _sd, max_t  # noqa: E402
from aif360_subjective.detectors.pattern_mining import build_items, mine_patterns  # noqa: E402


def one_table(seed: int, rows: int, min_support: int, B: int, alpha: float) -> tuple[bool, bool, int]:
    b = make_planted_slice(rows, effect=0.0, random_state=seed)
    X = b.X
    items = build_items(X, [c for c in X.columns if c.startswith("cat")], 5, 3)
    mined = mine_patterns(items, min_support, 3)
    counter = mined.counter()
    t = np.asarray(b.y_true, dtype=np.float64)
    p = np.asarray(b.y_pred, dtype=np.float64)
    # the tests' own streams, apart from the table's (the same seed would reuse the table's draws)
    perm = max_t(counter, t, p, n_permutations=B, random_state=10**6 + seed, penalty=False, tests=(0,))
    perm_error = bool(np.nanmin(perm.p_adjusted[:, 0, 0]) <= alpha)
    # multiplier: the same z, a null from Rademacher sums of the centred predictions
    N = float(len(p))
    n_s = counter.count(np.ones((len(p), 1)))[:, 0]
    sd = _sd(n_s, float(p.sum()), N)
    ok = sd > 1e-12
    z = perm.z[:, 0]
    ev = rademacher(2 * 10**6 + seed, 0, len(p), B) * (p - p.mean())[:, None]
    sums = counter.count(ev)  # (patterns, B): what the partitions would add up
    null = -(sums - (n_s / N)[:, None] * ev.sum(axis=0)[None, :])[ok] / sd[ok][:, None]
    obs = float(np.nanmax(z[ok]))
    p_mult = (1 + np.count_nonzero(null.max(axis=0) >= obs - 1e-9)) / (1 + B)
    return perm_error, bool(p_mult <= alpha), len(mined.patterns)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--min-support", type=int, default=50)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--alpha", type=float, default=0.05)
    args = ap.parse_args()
    t0 = time.perf_counter()
    res = np.array([one_table(s, args.rows, args.min_support, args.permutations, args.alpha)
                    for s in range(args.reps)])
    perm, mult, n_pat = res[:, 0].astype(bool), res[:, 1].astype(bool), res[:, 2]
    se = np.sqrt(args.alpha * (1 - args.alpha) / args.reps)
    print(f"{args.reps} null tables of {args.rows:,} rows, {int(n_pat.mean()):,} patterns on average "
          f"(min_support {args.min_support}), B = {args.permutations}, alpha = {args.alpha}; "
          f"{time.perf_counter() - t0:.0f} s")
    print(f"{'scheme':<28} {'family-wise error':>18}")
    print(f"{'permutation (in memory)':<28} {perm.mean():>18.3f}")
    print(f"{'Rademacher multiplier':<28} {mult.mean():>18.3f}")
    print(f"(binomial standard error at alpha: {se:.3f}); the two agree on {np.mean(perm == mult):.1%} of the tables")


if __name__ == "__main__":
    main()
