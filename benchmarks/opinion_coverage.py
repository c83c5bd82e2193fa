"""Does the opinion-exclusion analysis say "no exclusion" when there is none? Coverage, width and test rates.

Seeded superpopulations with a known truth. Every replication draws new annotators (and, where stated, new items),
runs :func:`~aif360_subjective.opinion.functional.opinion_exclusion` with the test of equal service, and
records whether the unfairness interval (:func:`~aif360_subjective.opinion.equal_service.unfairness_interval`,
95%) holds the true spread, its width, whether it reaches 0, and whether the test rejects at 5% (statistics
"between" and "std").

Settings:

* ``fixed k=5/10/30, spread 0/small/large``: 4 groups of k annotators (a Series grouping), 40 annotations each,
  annotator accuracy = group accuracy + N(0, 0.05) between annotators; the groups' accuracies 0.75 + offsets
  with population std 0, 0.03 or 0.10 (the truth).
* ``unequal 2/3/8/12/15``: 5 groups of those sizes (an ADR-like layout), the same three spreads.
* ``power: one group of 10 served 0.1 worse``: 4 groups of 10, one at 0.70 and three at 0.80, with 40 or 100
  annotations per annotator;
  ``power: minority of 8 served 0.08 worse``: the unequal layout, the 8-annotator group 0.08 below the others.
* ``adr ...``: 40 exchangeable annotators (every one flips the true label with probability 0.2) on 60 shared
  items, the model wrong on 15% of items; ADR bins (5 equal-width or ``quantile:5``), fitted on the same
  annotations (the paper's) or cross-fitted. The truth of the cross-fitted spread is 0; the same-fit bins have
  a positive spread even in the superpopulation (the sorting artefact): their row shows how often the interval
  holds 0.
* ``many groups``: 20 groups of 3 annotators (one attribute with many values), spreads 0 and 0.03 (evenly spaced
  group accuracies).
* ``pooled aggregate``: 4 groups of 10 annotators, ``aggregate="pooled"`` (the interval then takes the groups'
  variances from the bootstrap, 300 replicates), spreads 0 and 0.03.
* ``items vary``: 4 groups of 10 annotators sharing the same 40 items whose difficulty varies (item effects
  U(-0.15, 0.15) on the accuracy); also the coverage of the performance's bootstrap interval (the truth is the
  mean accuracy over the item superpopulation), with the default bootstrap (annotators, then their annotations:
  conditional on the items) and the crossed one (``bootstrap_levels="crossed"``: annotators and items).

Columns: coverage of the 95% interval with its Monte-Carlo standard error, the median width, the share of
intervals reaching 0, the mean raw and debiased unfairness, and the test's rejection rate at 5% (the size under a
zero spread, the power otherwise; Monte-Carlo SE about 1.1 points at 400 replications) with the statistic
"between" and, for k=10, the unequal layout and the power rows, "std".

Run: ``python benchmarks/opinion_coverage.py`` (400 replications per setting, 999 permutations; 10-13 minutes on
the 2 cores of the development machine, shared with other jobs) or ``--quick`` (60 replications, 199
permutations, 1-2 minutes). The guide's figures are this script's output at the default seed.
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

from aif360_subjective.opinion.equal_service import unfairness_interval  # noqa: E402
from aif360_subjective.sklearn.metrics import opinion_exclusion  # noqa: E402

BASE = 0.75
PATTERN_4 = np.array([-1.5, -0.5, 0.5, 1.5])
UNEQUAL = (2, 3, 8, 12, 15)


def _offsets(n_groups: int, spread: float) -> np.ndarray:
    """Group offsets with population std ``spread``."""
    pattern = PATTERN_4 if n_groups == 4 else np.linspace(-1.0, 1.0, n_groups)
    return pattern / pattern.std() * spread


def _fixed(rng: np.random.Generator, sizes: tuple[int, ...], means: np.ndarray, per: int = 40,
           item_effects: np.ndarray | None = None) -> tuple:
    """Correct (1) / wrong (0) annotations of annotators in fixed groups; predictions all 1."""
    group = np.repeat(np.arange(len(sizes)), sizes)
    n = len(group)
    acc = means[group] + rng.normal(0.0, 0.05, n)
    if item_effects is None:
        items = np.arange(n * per) % (10 * per) + 0  # items barely shared: their effect is nil here
        p = np.repeat(acc, per)
    else:
        items = np.tile(np.arange(len(item_effects)), n)
        p = np.repeat(acc, len(item_effects)) + np.tile(item_effects, n)
        per = len(item_effects)
    y = (rng.random(n * per) < np.clip(p, 0.0, 1.0)).astype(int)
    annotators = np.repeat(np.arange(n), per)
    labels = pd.Series(np.array([f"g{g}" for g in group]), index=np.arange(n))
    return y, np.ones_like(y), items, annotators, labels


def _exchangeable(rng: np.random.Generator, n: int = 40, n_items: int = 60) -> tuple:
    truth = rng.integers(0, 2, n_items)
    labels = np.where(rng.random((n, n_items)) < 0.2, 1 - truth, truth)
    pred = np.where(rng.random(n_items) < 0.15, 1 - truth, truth)
    return labels.ravel(), np.tile(pred, n), np.tile(np.arange(n_items), n), np.repeat(np.arange(n), n_items)


def _run(y, p, items, annotators, *, n_perm: int, seed: int, ci: float | None = None, n_boot: int = 200,
         both: bool = False, **kw) -> dict:
    out = {"p_std": np.nan}
    for stat in ("between", "std") if both else ("between",):
        res = opinion_exclusion(y, p, item_ids=items, annotator_ids=annotators, test=True, n_permutations=n_perm,
                                test_statistic=stat, random_state=seed, warn_group_size=0,
                                ci=ci if stat == "between" else None, n_boot=n_boot, **kw)
        out[f"p_{stat}"] = res.exclusion_test.p_value
        if stat == "between":
            out["result"] = res
    # the result's own interval (pooled groups need the bootstrap's variances), else computed without a bootstrap
    out["interval"] = out["result"].unfairness_ci or unfairness_interval(out["result"], 0.95)
    if ci is not None:  # the performance interval when items are resampled too
        out["perf_crossed"] = opinion_exclusion(
            y, p, item_ids=items, annotator_ids=annotators, ci=ci, n_boot=n_boot, bootstrap_levels="crossed",
            random_state=seed, warn_group_size=0, test=False, **kw).performance_ci
    return out


def setting_rows(reps: int, n_perm: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []

    def record(name: str, truth: float, draws: list[dict], perf_truth: float | None = None) -> None:
        both = bool(np.isfinite(draws[0]["p_std"]))
        iv = np.array([tuple(d["interval"]) for d in draws])
        cover = (iv[:, 0] <= truth + 1e-12) & (truth - 1e-12 <= iv[:, 1])
        row = {
            "setting": name, "reps": len(draws), "truth": truth,
            "coverage": cover.mean(), "mc_se": np.sqrt(cover.mean() * (1 - cover.mean()) / len(draws)),
            "median_width": float(np.median(iv[:, 1] - iv[:, 0])),
            "reaches_0": float(np.mean(iv[:, 0] == 0.0)),
            "raw_mean": float(np.mean([d["result"].unfairness for d in draws])),
            "debiased_mean": float(np.mean([d["interval"].debiased for d in draws])),
            "reject_between": float(np.mean([d["p_between"] <= 0.05 for d in draws])),
            "reject_std": float(np.mean([d["p_std"] <= 0.05 for d in draws])) if both else np.nan,
        }
        if perf_truth is not None:
            pc = [d["result"].performance_ci for d in draws]
            row["perf_coverage"] = float(np.mean([lo <= perf_truth <= hi for lo, hi in pc]))
            pc = [d["perf_crossed"] for d in draws]
            row["perf_coverage_crossed"] = float(np.mean([lo <= perf_truth <= hi for lo, hi in pc]))
        rows.append(row)
        print(f"  {name}: coverage {row['coverage']:.3f}, rejection {row['reject_between']:.3f}", flush=True)

    spreads = {"0": 0.0, "small": 0.03, "large": 0.10}
    for k in (5, 10, 30):
        for label, spread in spreads.items():
            means = BASE + _offsets(4, spread)
            draws = []
            for r in range(reps):
                y, p, items, anns, groups = _fixed(rng, (k,) * 4, means)
                draws.append(_run(y, p, items, anns, n_perm=n_perm, seed=r, grouping=groups, both=k == 10))
            record(f"fixed k={k}, spread {label}", spread, draws)
    for label, spread in spreads.items():
        means = BASE + _offsets(len(UNEQUAL), spread)
        draws = []
        for r in range(reps):
            y, p, items, anns, groups = _fixed(rng, UNEQUAL, means)
            draws.append(_run(y, p, items, anns, n_perm=n_perm, seed=r, grouping=groups, both=True))
        truth = float(np.std(means))
        record(f"unequal {'/'.join(map(str, UNEQUAL))}, spread {label}", truth, draws)
    for name, sizes, means, per in (
        ("power: one group of 10 served 0.1 worse, 40 annotations each", (10,) * 4,
         np.array([0.8, 0.8, 0.8, 0.7]), 40),
        ("power: one group of 10 served 0.1 worse, 100 annotations each", (10,) * 4,
         np.array([0.8, 0.8, 0.8, 0.7]), 100),
        ("power: minority of 8 served 0.08 worse", UNEQUAL, np.array([0.8, 0.8, 0.72, 0.8, 0.8]), 40),
    ):
        draws = []
        for r in range(reps):
            y, p, items, anns, groups = _fixed(rng, sizes, means, per=per)
            draws.append(_run(y, p, items, anns, n_perm=n_perm, seed=r, grouping=groups, both=True))
        record(name, float(np.std(means)), draws)
    for bins in (5, "quantile:5"):
        for fit in ("same", "cross"):
            draws = []
            for r in range(reps):
                y, p, items, anns = _exchangeable(rng)
                draws.append(_run(y, p, items, anns, n_perm=n_perm, seed=r, bins=bins, adr_fit=fit))
            record(f"adr bins={bins}, adr_fit={fit}, exchangeable", 0.0, draws)
    for label, spread in (("0", 0.0), ("small", 0.03)):
        means = BASE + _offsets(4, spread)
        draws = []
        for r in range(reps):
            effects = rng.uniform(-0.15, 0.15, 40)
            y, p, items, anns, groups = _fixed(rng, (10,) * 4, means, item_effects=effects)
            draws.append(_run(y, p, items, anns, n_perm=n_perm, seed=r, grouping=groups, ci=0.95))
        record(f"items vary, k=10, spread {label}", spread, draws, perf_truth=float(means.mean()))
    for label, spread in (("0", 0.0), ("small", 0.03)):  # one attribute with many values
        means = BASE + _offsets(20, spread)
        draws = []
        for r in range(reps):
            y, p, items, anns, groups = _fixed(rng, (3,) * 20, means)
            draws.append(_run(y, p, items, anns, n_perm=n_perm, seed=r, grouping=groups, both=True))
        record(f"many groups: 20 of 3 annotators, spread {label}", float(np.std(means)), draws)
    for label, spread in (("0", 0.0), ("small", 0.03)):  # pooled groups: the interval from bootstrap variances
        means = BASE + _offsets(4, spread)
        draws = []
        for r in range(reps):
            y, p, items, anns, groups = _fixed(rng, (10,) * 4, means)
            draws.append(_run(y, p, items, anns, n_perm=n_perm, seed=r, grouping=groups, aggregate="pooled",
                              ci=0.95, n_boot=300))
        record(f"pooled aggregate, k=10, spread {label}", spread, draws)
    return rows


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 replications, 199 permutations")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    reps = args.reps or (60 if args.quick else 400)
    n_perm = 199 if args.quick else 999
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = setting_rows(reps, n_perm, args.seed)
    table = pd.DataFrame(rows).set_index("setting")
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.float_format", "{:.3f}".format):
        print(f"\n{reps} replications per setting, {n_perm} permutations, seed {args.seed}, "
              f"{time.perf_counter() - t0:.0f} s")
        print(table.to_string())
    fixed = table[~table.index.str.startswith("power") & ~table.index.str.contains("adr_fit=same")]
    print(f"\nunfairness coverage over the settings with a known truth (same-fit ADR and power rows aside): "
          f"{fixed['coverage'].min():.1%}-{fixed['coverage'].max():.1%}")
    null = table[table["truth"] == 0.0]
    null = null[~null.index.str.contains("adr_fit=same")] if len(null) else null
    print(f"test size (zero spread, statistic 'between'): {null['reject_between'].min():.1%}-"
          f"{null['reject_between'].max():.1%}; ADR bins, either fit (the test is cross-fitted): "
          f"{table.loc[table.index.str.startswith('adr'), 'reject_between'].min():.1%}-"
          f"{table.loc[table.index.str.startswith('adr'), 'reject_between'].max():.1%}")
    power = table[table.index.str.startswith("power")]
    for name, row in power.iterrows():
        print(f"{name}: power {row['reject_between']:.1%} (between) vs {row['reject_std']:.1%} (std)")
    return table


if __name__ == "__main__":
    main()
