"""Pattern discovery: permutation max-T (the default) against sample splitting, the redundancy filter, and the
size of the candidate set.

Tables: :func:`aif360_subjective.datasets.make_planted_slice` with its defaults (5,000 rows, 6 categorical
columns of 4 levels, 2 numeric columns); seed ``s`` of a setting plants a slice of
``0.02 + 0.08 * s / (seeds - 1)`` of the rows (2 % to 10 %), a conjunction of 2 or 3 conditions (alternating)
or a box over the two numeric columns, and ``effect=0`` gives null tables. The metric is statistical parity
(favourable-prediction rate lowered by the shift), direction "disadvantaged".

Arms (same candidates: every conjunction of up to 3 conditions with >= 1 % of the rows, deciles and runs of
up to 3 adjacent deciles):

* ``max-T``: ``detect_subgroups(discovery="patterns")`` and ``ranking("statistical_parity", kind="pattern",
  n=1)`` at its default alpha = 0.05 (step-down max-T over every candidate, 200 permutations, the default
  penalty by description class, redundancy filter on);
* ``max-T, no filter``: the same ranking with ``keep_redundant=True`` (granularity: does the first subgroup
  stay the planted one?);
* ``max-T, size penalty`` and ``max-T, no penalty``: the default ranking with ``max_t_penalty="size"`` (the
  statistic ``z - sqrt(2 ln(N / n_S))``) and ``"none"`` (plain ``z``) instead of the default ``"classes"``
  (``z - sqrt(2 ln K)``, K the candidates of the pattern's shape);
* ``split``: the rows are halved at random (seeded); on the first half the 5 candidates with the largest
  size-penalised z are selected, on the second half each gets a one-sided z test, Bonferroni over the 5; the
  reported subgroup is the one with the largest second-half z among those significant.

Null settings run ``NULL_FACTOR`` (4) times as many tables as the planted ones.
Printed per arm and setting: hit@1 (the first reported subgroup has Jaccard >= 0.5 with the planted rows),
the mean top-1 Jaccard (0 when nothing is reported), and the runs with any report; then the number of
candidates and the 95 % quantile of the max-T statistic's null maximum on one null table for a few
``min_support`` / binning choices (the justification of the defaults).

Usage: ``python benchmarks/pattern_error_control.py [--seeds 10] [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import stats

from aif360_subjective.datasets import make_planted_slice
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.error_control.maxt import _Standardiser, class_offsets, observed_z, scan_penalty
from aif360_subjective.detectors.mining.pattern_mining import build_items, check_min_support, mine_patterns

SETTINGS = [("conjunction", 0.2), ("conjunction", 0.1), ("numeric_region", 0.2), ("null", 0.0)]
#: Null tables per seed of a planted setting: the error rate needs more runs than the power.
NULL_FACTOR = 4


def table(shape: str, shift: float, seed: int, seeds: int):
    share = 0.02 + 0.08 * seed / max(seeds - 1, 1)
    real = "conjunction" if shape == "null" else shape
    n_cond = 2 if real == "numeric_region" else 2 + seed % 2
    return make_planted_slice(shape=real, n_conditions=n_cond, planted_share=share, effect=shift, random_state=seed)


def jaccard(rows: np.ndarray | None, planted: np.ndarray) -> float:
    if rows is None:
        return 0.0
    return float((rows & planted).sum() / (rows | planted).sum())


def split_arm(b, seed: int, k: int = 5, alpha: float = 0.05):
    """Sample splitting: select on one half, confirm on the other (Bonferroni over the k selected)."""
    X, t, p = b.X, np.asarray(b.y_true), np.asarray(b.y_pred)
    n = len(X)
    cat = [c for c in X.columns if c.startswith("cat")]
    mp = mine_patterns(build_items(X, cat), check_min_support(0.01, n), 3)
    M = mp.members().tocsr()
    half = np.random.default_rng(seed).permutation(n) < n // 2
    a_rows, b_rows = np.flatnonzero(half), np.flatnonzero(~half)
    Ma = M[a_rows]
    z_a = observed_z(Ma, t[a_rows], p[a_rows])[:, 0]
    size_a = np.asarray(Ma.sum(axis=0)).ravel()
    score = z_a - scan_penalty(size_a.astype(float), len(a_rows))
    score = np.where(np.isfinite(score), score, -np.inf)
    chosen = np.argsort(-score)[:k]
    z_b = observed_z(M[b_rows][:, chosen], t[b_rows], p[b_rows])[:, 0]
    p_b = stats.norm.sf(z_b) * k
    ok = np.flatnonzero(np.nan_to_num(p_b, nan=1.0) < alpha)
    if len(ok) == 0:
        return None
    best = chosen[ok[np.argmax(z_b[ok])]]
    return mp.members()[:, best].toarray().ravel().astype(bool)


#: The max-T arms: the penalty of the statistic (``max_t_penalty``) and whether the redundancy filter is on.
MAXT_ARMS = (("max-T", "classes", False), ("max-T, no filter", "classes", True),
             ("max-T, size penalty", "size", False), ("max-T, no penalty", "none", False))


def maxt_arm(b, seed: int, secs: dict):
    """The first subgroup of each max-T arm (None: nothing listed); adds each penalty's seconds to ``secs``."""
    out, reports = {}, {}
    for name, penalty, keep in MAXT_ARMS:
        t0 = time.perf_counter()
        if penalty not in reports:  # arms sharing a penalty share its analysis (and are charged its time)
            reports[penalty] = (detect_subgroups(b.X, b.y_true, b.y_pred, random_state=seed, discovery="patterns",
                                                 max_t_penalty=penalty), time.perf_counter() - t0)
            t0 = time.perf_counter()
        rep, analysis_seconds = reports[penalty]
        rk = rep.ranking("statistical_parity", kind="pattern", n=1, keep_redundant=keep)
        out[name] = rep.members("pattern", rk.index[0]) if len(rk) else None
        secs[name] = secs.get(name, 0.0) + analysis_seconds + time.perf_counter() - t0
    return out


def candidates_table(seed: int = 0) -> pd.DataFrame:
    """Candidates and the 95 % quantile of the null maximum of the max-T statistic (one null table), with the
    z a pattern of a given shape needs under the default penalty by description class."""
    b = make_planted_slice(effect=0.0, random_state=seed)
    n = len(b.X)
    t, p = b.y_true.astype(float), b.y_pred.astype(float)
    rows = []
    for ms, bins, merge in ((0.01, 10, 3), (0.02, 10, 3), (0.005, 10, 3), (0.01, 5, 1), (0.01, 10, 1)):
        mp = mine_patterns(build_items(b.X, [c for c in b.X if c.startswith("cat")], bins, merge),
                           check_min_support(ms, n), 3)
        is_range = np.array([isinstance(v, tuple) for v in mp.items.values])
        shape = np.array([f"{len(q)}:{int(is_range[list(q)].sum())}" for q in mp.patterns], dtype=object)
        offset = class_offsets(shape)
        MT = sp.csr_matrix(mp.members().T, dtype=np.float32)
        std = _Standardiser(mp.counter(), t, p)
        idx = np.random.default_rng(seed).permuted(np.tile(np.arange(n), (200, 1)), axis=1).T
        z = (std.expected[:, [0]] - np.asarray(MT @ p[idx].astype(np.float32))) * std.inv_sd[:, [0]]
        q95 = float(np.quantile(np.nanmax(z - offset[:, None], axis=0), 0.95))
        need = {s_: round(q95 + float(offset[shape == s_][0]), 2) if (shape == s_).any() else np.nan
                for s_ in ("2:0", "3:0", "2:2")}
        rows.append({"min_support": ms, "bins": bins, "max_merge": merge, "candidates": len(mp.patterns),
                     "q95 of max (z - offset)": round(q95, 2), "z needed, 2 categorical": need["2:0"],
                     "z needed, 3 categorical": need["3:0"], "z needed, 2 ranges": need["2:2"]})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="3 seeds, no candidates table")
    args = ap.parse_args()
    seeds = 3 if args.quick else args.seeds
    rows = []
    for shape, shift in SETTINGS:
        res = {a: [] for a in [arm[0] for arm in MAXT_ARMS] + ["split"]}
        secs = {"split": 0.0}
        n_tables = seeds * NULL_FACTOR if shape == "null" else seeds
        for seed in range(n_tables):
            b = table(shape, shift, seed, seeds)
            found = maxt_arm(b, seed, secs)
            t0 = time.perf_counter()
            found["split"] = split_arm(b, seed)
            secs["split"] += time.perf_counter() - t0
            for arm, rows_found in found.items():
                res[arm].append((rows_found is not None, jaccard(rows_found, b.planted)))
        name = "null" if shape == "null" else f"{shape} shift {shift:g}"
        for arm, r in res.items():
            any_report = sum(x for x, _ in r)
            jac = [j for _, j in r]
            rows.append({"setting": name, "arm": arm, "hit@1": f"{sum(j >= 0.5 for j in jac)}/{n_tables}",
                         "mean top-1 Jaccard": round(float(np.mean(jac)), 2),
                         "any report": f"{any_report}/{n_tables}",
                         "s/table": round(secs[arm] / n_tables, 2)})
    pd.set_option("display.width", 160)
    print(pd.DataFrame(rows).to_string(index=False))
    if not args.quick:
        print()
        print("Candidates and the null maximum of the max-T statistic (one null table, 200 permutations):")
        print(candidates_table().to_string(index=False))


if __name__ == "__main__":
    main()
