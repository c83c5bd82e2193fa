"""Does the test of equal service hold on the designs real annotation data have? Size, power, coverage, the
detectable gap and the performance interval with shared items (issue 29).

Seeded superpopulations with a known truth. Each replication draws new annotators, their annotation counts and their
items, runs :func:`~aif360_subjective.opinion.functional.opinion_exclusion` with the test of equal service and
records, at a 5% level:

* ``reject``: how often the test across all groups rejects (the size when no group differs, the power otherwise),
  with the Wilson 95% upper bound ``wilson_hi`` of that rate;
* ``named``: how often the verdict names a group as served worse (its own max-T test rejects); with no true
  difference this is the family-wise error of the verdict;
* ``gap_cover``: how often every group's simultaneous interval of its gap to the rest holds the true gap;
* ``unf_cover``: how often the unfairness interval holds the true spread across groups;
* ``undecided``: how often the verdict says the test cannot decide (designs that cannot answer).

Designs (no group differs unless the name says "power"):

* ``unequal counts``: 5 annotators with 5-15 annotations against 50 with 100-300; 10 with 10-30 against 40 with
  100-300 on shared items of varying difficulty; one of 4 groups of 10 with 5-10 annotations each (the others 40);
* ``pooled groups``: ``aggregate="pooled"`` (one value over all of a group's annotations), tested with the
  size-weighted statistic: 5 light against 50 heavy annotators, and one of 4 groups light;
* ``3 vs 60``: a group of 3 annotators against one of 60 (20-200 annotations each);
* ``heavy-tailed counts``: 4 groups of 10 with 5-500 annotations (Pareto), null and one group served 0.1 worse,
  beside the same power with 100 annotations each;
* ``batches``: 2 groups of 15, each labelling its own batch of 60 items whose difficulty varies (sd 1 on the logit
  scale), half of each batch shared with the other group ("partly overlapping") or none ("disjoint"), with and
  without ``adjust="items"``;
* ``correlated annotators``: 4 groups of 10 on the same 60 items of varying difficulty (sd 1 on the logit scale):
  every annotator's errors are correlated through the items;
* ``ordinal MAE``: ratings 1-5, 5 light (5-15 ratings) against 50 heavy (100-300) annotators, ``performance="mae"``;
* ``dissenting minority``: the seed's scenario (:func:`~aif360_subjective.datasets.make_subjective_dataset`, a
  minority that reads contested items differently), the majority vote as the model (the paper's Model 1): power
  by ADR bins (the cross-fitted test) and by the annotators' age group;
* ``detectable gap``: in a null design the verdict reports the gap each group would need to be found 80% of the
  time; the median reported gap of one group is then planted in that group, and ``named`` should be near 80%;
* ``performance interval``: 4 groups of annotators on the same items of varying difficulty; coverage of the
  performance's 95% bootstrap interval of the superpopulation mean (items and annotators drawn anew), with the
  default bootstrap (conditional on the items) and ``bootstrap_levels="crossed"``; ``perf_cover_cond`` is the
  default's coverage of the performance on the items annotated (what it is built for).

Run: ``python benchmarks/equal_service_designs.py`` (400 replications, 999 permutations; 20 minutes on the shared
2-core machine) or ``--quick`` (100 replications, 199 permutations); ``--only TEXT ...`` runs the settings
whose name contains one of the texts. The guide quotes the run it names.
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

ALPHA = 0.05
#: Settings whose name contains one of these strings (``--only``); empty = all.
ONLY: list[str] = []


def wilson_high(k: float, n: int, z: float = 1.959963984540054) -> float:
    """Upper bound of the Wilson 95% interval of a rate k/n."""
    p = k / n
    return float((p + z * z / (2 * n) + z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _draw(rng: np.random.Generator, groups: list[int], counts: list[tuple[int, int]], means: list[float], *,
          pools: list[np.ndarray] | None = None, n_items: int = 400, item_sd: float = 0.0, logit: bool = False,
          heavy: bool = False, annotator_sd: float = 0.05) -> tuple:
    """Annotations (correct 1 / wrong 0; predictions all 1) of annotators in fixed groups.

    Annotator a of group g has ``n_a`` annotations (uniform in the group's count range, or Pareto 5-500 with
    ``heavy``) on items drawn without replacement from its group's pool (default: all ``n_items`` items); its
    accuracy is ``means[g] + N(0, annotator_sd)``, moved by each item's effect (additive, or on the logit scale).
    """
    g = np.repeat(np.arange(len(groups)), groups)
    n_ann = len(g)
    if heavy:
        n = np.minimum(5 + (rng.pareto(1.2, n_ann) * 20), 500).astype(int)
    else:
        lo = np.array([c[0] for c in counts])[g]
        hi = np.array([c[1] for c in counts])[g]
        n = rng.integers(lo, hi + 1)
    effects = rng.normal(0.0, item_sd, n_items) if item_sd else np.zeros(n_items)
    acc = np.asarray(means)[g] + rng.normal(0.0, annotator_sd, n_ann)
    items, ann = [], []
    for a in range(n_ann):  # a few dozen annotators per replication (the benchmark's data, not the library)
        pool = np.arange(n_items) if pools is None else pools[g[a]]
        items.append(rng.choice(pool, size=min(n[a], len(pool)), replace=False))
        ann.append(np.full(len(items[-1]), a))
    items_a, ann_a = np.concatenate(items), np.concatenate(ann)
    if logit:
        p = _sigmoid(np.log(acc[ann_a] / (1 - acc[ann_a])) + effects[items_a])
    else:
        p = np.clip(acc[ann_a] + effects[items_a], 0.0, 1.0)
    y = (rng.random(len(p)) < p).astype(int)
    labels = pd.Series([f"g{i}" for i in g], index=np.arange(n_ann))
    return y, np.ones_like(y), items_a, ann_a, labels


def _ordinal(rng: np.random.Generator) -> tuple:
    """Ratings 1-5: 5 light (5-15 ratings) and 50 heavy (100-300) annotators; the model predicts the item's
    rating, each annotator reads it with its own offset and noise."""
    sizes = [5, 50]
    g = np.repeat([0, 1], sizes)
    n = np.concatenate([rng.integers(5, 16, 5), rng.integers(100, 301, 50)])
    item_rating = rng.integers(1, 6, 400)
    offset = rng.normal(0.0, 0.3, len(g))
    items = np.concatenate([rng.choice(400, k, replace=False) for k in n])
    ann = np.repeat(np.arange(len(g)), n)
    rating = np.clip(np.rint(item_rating[items] + offset[ann] + rng.normal(0.0, 0.8, len(items))), 1, 5)
    labels = pd.Series([f"g{i}" for i in g], index=np.arange(len(g)))
    return rating, item_rating[items].astype(float), items, ann, labels


def _run(y, p, items, ann, labels, *, n_perm: int, seed: int, truth_gaps: dict | None = None,
         truth_spread: float = 0.0, **kw) -> dict:
    res = opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping=labels, test=True,
                            n_permutations=n_perm, random_state=seed, warn_group_size=0, **kw)
    t = res.exclusion_test
    out = {"reject": bool(np.isfinite(t.p_value) and t.p_value <= ALPHA), "named": False, "gap_cover": np.nan,
           "unf_cover": np.nan, "undecided": bool(t.undecidable(ALPHA)), "test": t}
    groups = t.groups(ALPHA)
    if groups is not None and not out["undecided"]:
        out["named"] = bool((groups["significant"] & (groups["gap"] > 0)).any())
        truth = pd.Series(truth_gaps or {}, dtype=float).reindex(groups.index).fillna(0.0)
        out["gap_cover"] = bool(((groups["ci_low"] <= truth + 1e-12) & (truth - 1e-12 <= groups["ci_high"])).all())
    if res.options.aggregate == "annotator":
        iv = unfairness_interval(res, 0.95)
        if np.isfinite(iv.low):
            out["unf_cover"] = bool(iv.low <= truth_spread + 1e-12 <= iv.high + 2e-12)
    return out


def _row(name: str, draws: list[dict]) -> dict:
    n = len(draws)
    k = sum(d["reject"] for d in draws)
    cover = [d["gap_cover"] for d in draws if not np.isnan(d["gap_cover"])]
    unf = [d["unf_cover"] for d in draws if not np.isnan(d["unf_cover"])]
    row = {"setting": name, "reps": n, "reject": k / n, "wilson_hi": wilson_high(k, n),
           "named": float(np.mean([d["named"] for d in draws])),
           "gap_cover": float(np.mean(cover)) if cover else np.nan,
           "unf_cover": float(np.mean(unf)) if unf else np.nan,
           "undecided": float(np.mean([d["undecided"] for d in draws]))}
    print(f"  {name}: reject {row['reject']:.3f} (Wilson upper {row['wilson_hi']:.3f}), named {row['named']:.3f}, "
          f"gap coverage {row['gap_cover']:.3f}, undecided {row['undecided']:.3f}", flush=True)
    return row


def _spread(means: list[float], sizes: list[int]) -> tuple[dict, float]:
    """True gaps (rest minus group, annotators counted once) and the population std of the groups' means."""
    m = np.asarray(means, dtype=float)
    k = np.asarray(sizes, dtype=float)
    gaps = {f"g{i}": float((np.dot(k, m) - k[i] * m[i]) / (k.sum() - k[i]) - m[i]) for i in range(len(m))}
    return gaps, float(np.std(m))


def design_rows(reps: int, n_perm: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []

    def loop(name: str, draw, stat: str = "studentized", means=None, sizes=None, **kw) -> None:
        if ONLY and not any(o in name for o in ONLY):
            return
        gaps, spread = _spread(means, sizes) if means is not None else ({}, 0.0)
        draws = [_run(*draw(), n_perm=n_perm, seed=r, truth_gaps=gaps, truth_spread=spread, test_statistic=stat,
                      **kw) for r in range(reps)]
        rows.append(_row(name, draws))

    for stat in ("studentized", "between"):
        loop(f"unequal counts: 5 with 5-15 vs 50 with 100-300 [{stat}]",
             lambda: _draw(rng, [5, 50], [(5, 15), (100, 300)], [0.75, 0.75]), stat)
        loop(f"unequal counts: 10 with 10-30 vs 40 with 100-300, items vary [{stat}]",
             lambda: _draw(rng, [10, 40], [(10, 30), (100, 300)], [0.75, 0.75], n_items=300, item_sd=0.1), stat)
        loop(f"unequal counts: one of 4 groups with 5-10 annotations [{stat}]",
             lambda: _draw(rng, [10, 10, 10, 10], [(5, 10), (40, 40), (40, 40), (40, 40)], [0.75] * 4), stat)
    # pooled groups (one accuracy over all of a group's annotations) keep the size-weighted statistic
    loop("pooled groups: 5 with 5-15 vs 50 with 100-300 [between]",
         lambda: _draw(rng, [5, 50], [(5, 15), (100, 300)], [0.75, 0.75]), "between", aggregate="pooled")
    loop("pooled groups: one of 4 groups with 5-10 annotations [between]",
         lambda: _draw(rng, [10, 10, 10, 10], [(5, 10), (40, 40), (40, 40), (40, 40)], [0.75] * 4), "between",
         aggregate="pooled")
    loop("groups of 3 vs 60", lambda: _draw(rng, [3, 60], [(20, 200), (20, 200)], [0.75, 0.75]))
    loop("heavy-tailed counts (5-500), 4 groups of 10",
         lambda: _draw(rng, [10] * 4, [(0, 0)] * 4, [0.75] * 4, heavy=True))
    means = [0.8, 0.8, 0.8, 0.7]
    loop("power: heavy-tailed counts (5-500), one group of 10 served 0.1 worse",
         lambda: _draw(rng, [10] * 4, [(0, 0)] * 4, means, heavy=True), means=means, sizes=[10] * 4)
    loop("power: 100 annotations each, one group of 10 served 0.1 worse",
         lambda: _draw(rng, [10] * 4, [(100, 100)] * 4, means), means=means, sizes=[10] * 4)

    def batches(shared: float):
        def draw():
            common = np.arange(0, int(60 * shared))
            own = int(60 * (1 - shared))
            pools = [np.concatenate([common, 100 + np.arange(own)]), np.concatenate([common, 200 + np.arange(own)])]
            return _draw(rng, [15, 15], [(40, 40), (40, 40)], [0.75, 0.75], pools=pools, n_items=300, item_sd=1.0,
                         logit=True)
        return draw

    for adjust in ("none", "items"):
        loop(f"batches partly overlapping (half shared), difficulty sd 1, adjust={adjust}", batches(0.5),
             test_adjust=adjust)
        loop(f"batches disjoint, difficulty sd 1, adjust={adjust}", batches(0.0), test_adjust=adjust)
    loop("correlated annotators: 4 groups of 10 on the same 60 items (sd 1)",
         lambda: _draw(rng, [10] * 4, [(60, 60)] * 4, [0.75] * 4, n_items=60, item_sd=1.0, logit=True))
    loop("correlated annotators, adjust=items",
         lambda: _draw(rng, [10] * 4, [(60, 60)] * 4, [0.75] * 4, n_items=60, item_sd=1.0, logit=True),
         test_adjust="items")
    for stat in ("studentized", "between"):
        loop(f"ordinal MAE: 5 light vs 50 heavy [{stat}]", lambda: _ordinal(rng), stat, performance="mae",
             positive_from=3)
    if not ONLY or any(o in "power: dissenting minority" for o in ONLY):
        rows += minority_rows(max(20, reps // 4), n_perm, seed)
    if not ONLY or any(o in "detectable gap" for o in ONLY):
        rows += detectable_rows(reps, n_perm, rng)
    if not ONLY or any(o in "performance interval" for o in ONLY):
        rows += performance_rows(max(40, reps // 2), rng)
    return rows


def minority_rows(reps: int, n_perm: int, seed: int) -> list[dict]:
    """The seed's dissenting minority, the majority vote as the model: power by ADR bins and by age group."""
    from aif360_subjective.datasets import make_subjective_dataset

    rows = []
    for grouping in ("adr", "age_group"):
        for stat in ("studentized", "between"):
            draws = []
            for r in range(reps):
                ds = make_subjective_dataset(n_items=600, n_annotators=100, annotations_per_item=5,
                                             random_state=seed + r)
                p = ds.majority_labels()  # the paper's Model 1 at its best: every item's majority vote
                kw = dict(grouping="demographic", annotators=ds.annotators[["age_group"]]) \
                    if grouping == "age_group" else dict(bins=5)
                res = opinion_exclusion(ds.labels.ravel(), p, item_ids=ds.item_ids, annotator_ids=ds.annotator_ids,
                                        pos_label=ds.favorable_label, test=True, n_permutations=n_perm,
                                        test_statistic=stat, random_state=r, warn_group_size=0, **kw)
                t = res.exclusion_test
                draws.append({"reject": bool(t.p_value <= ALPHA), "named": bool(
                    t.groups(ALPHA) is not None and (t.groups(ALPHA)["significant"] & (t.groups(ALPHA)["gap"] > 0))
                    .any()), "gap_cover": np.nan, "unf_cover": np.nan, "undecided": bool(t.undecidable(ALPHA))})
            rows.append(_row(f"power: dissenting minority (seed's scenario), by {grouping} [{stat}]", draws))
    return rows


def detectable_rows(reps: int, n_perm: int, rng: np.random.Generator) -> list[dict]:
    """Plant the median reported detectable gap of one group and count how often the verdict names that group."""
    rows = []
    for name, sizes, counts, target in (
        ("4 groups of 8, 20-80 annotations", [8] * 4, [(20, 80)] * 4, "g3"),
        ("5 light (5-15) vs 50 heavy (100-300), the light group", [5, 50], [(5, 15), (100, 300)], "g0"),
    ):
        null_means = [0.75] * len(sizes)
        reported = []
        for r in range(reps):
            out = _run(*_draw(rng, sizes, counts, null_means), n_perm=n_perm, seed=r)
            mdg = out["test"].detectable_gap(ALPHA)
            if mdg is not None:
                reported.append(float(mdg[target]))
        gap = float(np.median(reported))
        means = [0.75] * len(sizes)
        i = int(target[1:])
        means[i] = 0.75 - gap
        hits = []
        for r in range(reps):
            out = _run(*_draw(rng, sizes, counts, means), n_perm=n_perm, seed=r)
            g = out["test"].groups(ALPHA)
            hits.append({"reject": out["reject"], "named": bool(g.loc[target, "significant"] and
                                                                g.loc[target, "gap"] > 0),
                         "gap_cover": np.nan, "unf_cover": np.nan, "undecided": out["undecided"]})
        rows.append(_row(f"detectable gap: {name}: planted the median reported gap {gap:.3f} in {target}", hits))
    return rows


def performance_rows(reps: int, rng: np.random.Generator) -> list[dict]:
    """Coverage of the performance's bootstrap interval when items are shared and differ in difficulty."""
    rows = []
    for name, k, n_items, half_width in (("4 groups of 10 on 40 items, item effects U(-0.15, 0.15)", 10, 40, 0.15),
                                         ("4 groups of 25 on 60 items, item effects U(-0.3, 0.3)", 25, 60, 0.3)):
        cover = {"both": [], "crossed": [], "cond": []}
        for r in range(reps):
            effects = rng.uniform(-half_width, half_width, n_items)
            g = np.repeat(np.arange(4), k)
            acc = 0.7 + rng.normal(0.0, 0.05, len(g))
            ann = np.repeat(np.arange(len(g)), n_items)
            items = np.tile(np.arange(n_items), len(g))
            p = np.clip(acc[ann] + effects[items], 0, 1)
            y = (rng.random(len(p)) < p).astype(int)
            labels = pd.Series([f"g{i}" for i in g], index=np.arange(len(g)))
            cond = float(np.mean([np.clip(acc[g == j][:, None] + effects[None, :], 0, 1).mean() for j in range(4)]))
            for level in ("both", "crossed"):
                iv = opinion_exclusion(y, np.ones_like(y), item_ids=items, annotator_ids=ann, grouping=labels,
                                       ci=0.95, n_boot=300, bootstrap_levels=level, random_state=r, test=False,
                                       warn_group_size=0).performance_ci
                cover[level].append(iv.low <= 0.7 <= iv.high)
                if level == "both":
                    cover["cond"].append(iv.low <= cond <= iv.high)
        row = {"setting": f"performance interval: {name}", "reps": reps, "perf_cover_default": np.mean(cover["both"]),
               "perf_cover_crossed": np.mean(cover["crossed"]), "perf_cover_cond": np.mean(cover["cond"])}
        print(f"  {row['setting']}: default {row['perf_cover_default']:.3f}, crossed {row['perf_cover_crossed']:.3f},"
              f" default of the performance on these items {row['perf_cover_cond']:.3f}", flush=True)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 replications, 199 permutations")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=2029)
    parser.add_argument("--only", nargs="*", default=[], help="run the settings whose name contains one of these")
    args = parser.parse_args(argv)
    ONLY[:] = args.only
    reps = args.reps or (100 if args.quick else 400)
    n_perm = 199 if args.quick else 999
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = design_rows(reps, n_perm, args.seed)
    table = pd.DataFrame(rows).set_index("setting")
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 90,
                           "display.float_format", "{:.3f}".format):
        print(f"\n{reps} replications per setting (the minority rows {max(20, reps // 4)}, the performance rows "
              f"{max(40, reps // 2)}), {n_perm} permutations, seed {args.seed}, {time.perf_counter() - t0:.0f} s")
        print(table.to_string())
    return table


if __name__ == "__main__":
    main()
