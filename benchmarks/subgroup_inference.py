"""Do the significance-filtered subgroup rankings name real disparities and stay quiet on noise? And what do the
intervals cost?

Every analysis here is the seed's (``discovery="asdf"``: clusters and entropy patterns) and its rankings use
the Benjamini-Hochberg filter (``control="fdr"``), the q-values this script measures; the mined patterns and
the max-T filter are measured by ``benchmarks/pattern_error_control.py``.

Sections:

1. **Null data** (``make_subgroup_benchmark(effect=0)``: 6,000 rows, 4 categorical + 2 numeric features,
   predictions and truths independent of the features), slink with automatic k, 20 seeds: how many seeds flag
   any subgroup (q < 0.05) per metric (either kind), on any metric, and in the default ranking
   (statistical parity, entropy subgroups, disadvantaged).
2. **Planted subgroup** (``cat0 == "a" and cat1 == "a"``, ~7 % of the rows, favourable-prediction rate lowered
   by 0.25), 10 seeds, slink and kmeans with automatic k (and the 4-level variant, also with the fairness-aware
   choice of k for slink): on how many seeds the default statistical-parity ranking's first subgroup lies
   >= 70 % inside the planted rows.
3. **Cost on COMPAS** (6,172 rows): the automatic analysis (x-means + single linkage) and, on top of it,
   ``subgroup_metrics(ci=0.95)`` and the ten default rankings (five metrics x two directions).
4. **Calibration** by simulation (20,000 replicates per row, vectorised): coverage of the 95 % Newcombe
   interval of a difference of proportions, and the rejection rate at 0.05 of the two-sided mid-p test under
   the null, for small subgroups against a large rest.

Usage: ``python benchmarks/subgroup_inference.py [--data DIR] [--seeds-null 20] [--seeds-planted 10]
[--skip-kmeans]``. Times are wall-clock on a shared machine (minimum of 3 runs for section 3).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aif360_subjective.datasets import make_subgroup_benchmark  # noqa: E402
from aif360_subjective.detectors import METRICS, detect_subgroups  # noqa: E402
from aif360_subjective.detectors.error_control.inference import mid_p_fisher, newcombe_interval  # noqa: E402

TESTED = ("statistical_parity", "equal_opportunity", "equalized_odds", "accuracy_error")  # accuracy shares a test


def null_sweep(seeds: int, clustering: str = "slink") -> dict:
    per = dict.fromkeys(TESTED, 0)
    any_metric = default = 0
    start = time.perf_counter()
    flagged_seeds = []
    for s in range(seeds):
        b = make_subgroup_benchmark(effect=0.0, random_state=s)
        rep = detect_subgroups(b.X, b.y_true, b.y_pred, clustering=clustering, random_state=s, discovery="asdf")
        m = rep.subgroup_metrics()
        hit = False
        for met in TESTED:
            f = bool((m[met + "_q"] < 0.05).any())
            per[met] += f
            hit |= f
        any_metric += hit
        if hit:
            flagged_seeds.append(s)
        default += len(rep.ranking("statistical_parity", control="fdr")) > 0
    return {"per_metric": per, "any_metric": any_metric, "default_ranking": default, "seeds": seeds,
            "flagged_seeds": flagged_seeds, "seconds": time.perf_counter() - start}


def planted_sweep(seeds: int, clustering: str, n_clusters=None, n_levels: int = 3) -> dict:
    hits = flagged = 0
    precisions = []
    start = time.perf_counter()
    for s in range(seeds):
        b = make_subgroup_benchmark(n_levels=n_levels, random_state=s)
        rep = detect_subgroups(b.X, b.y_true, b.y_pred, clustering=clustering, n_clusters=n_clusters, random_state=s,
                               discovery="asdf")
        rk = rep.ranking("statistical_parity", control="fdr")
        if len(rk):
            flagged += 1
            prec = float(b.planted[rep.members("entropy", rk.index[0])].mean())
            precisions.append(round(prec, 2))
            hits += prec >= 0.7
        else:
            precisions.append(None)
    return {"hits": hits, "flagged": flagged, "seeds": seeds, "precision_of_first": precisions,
            "seconds": time.perf_counter() - start}


def compas_cost(data: Path, repeat: int = 3) -> pd.DataFrame:
    c = pd.read_csv(data / "compas" / "fairvis_compas_out.csv")
    X, y, p = c.drop(columns=["out", "class"]), c["class"], c["out"]
    rows = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        rep = detect_subgroups(X, y, p, pos_label=0, categorical_features=["c_charge_degree", "race", "sex"],
                               random_state=0, discovery="asdf")
        t1 = time.perf_counter()
        rep.subgroup_metrics(ci=None)
        t2 = time.perf_counter()
        rep.significance.clear()  # time the intervals, not the cache
        rep.subgroup_metrics(ci=0.95)
        t3 = time.perf_counter()
        rep.significance.clear()
        for metric in METRICS:
            for direction in ("disadvantaged", "favoured"):
                rep.ranking(metric, direction=direction)
        t4 = time.perf_counter()
        rows.append({"analysis (auto k)": t1 - t0, "subgroup_metrics(ci=None)": t2 - t1,
                     "subgroup_metrics(ci=0.95)": t3 - t2, "10 default rankings (cold)": t4 - t3})
    out = pd.DataFrame(rows).min().rename(f"seconds (min of {repeat})").to_frame()
    out.attrs["n_clusters"] = rep.n_clusters
    return out


def calibration(replicates: int = 20_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for n_s, p_s, n_r, p_r in [(5, 0.5, 1000, 0.5), (10, 0.2, 1000, 0.5), (20, 0.3, 2000, 0.3), (50, 0.1, 5000, 0.1),
                               (200, 0.45, 5000, 0.5), (10, 0.05, 500, 0.05)]:
        x_s = rng.binomial(n_s, p_s, replicates)
        x_r = rng.binomial(n_r, p_r, replicates)
        _, lo, hi = newcombe_interval(x_r, n_r, x_s, n_s)
        truth = p_r - p_s
        less, greater = mid_p_fisher(x_s, n_s, x_r, n_r)
        p = np.minimum(1, 2 * np.minimum(less, greater))
        rows.append({"n_S": n_s, "p_S": p_s, "n_R": n_r, "p_R": p_r,
                     "coverage of 95% Newcombe": float(np.mean((lo <= truth) & (truth <= hi))),
                     "reject at 0.05 (mid-p)": float(np.mean(p < 0.05)) if p_s == p_r else np.nan,
                     "power at 0.05 (mid-p)": float(np.mean(p < 0.05)) if p_s != p_r else np.nan})
    return pd.DataFrame(rows)


def calibration_ranges(replicates: int = 20_000, seed: int = 1) -> pd.DataFrame:
    """Coverage and size ranges per subgroup size over a grid of rates (the docs quote ranges, not points):
    for each n_S, the rates p in {0.05, 0.1, 0.2, 0.3, 0.5} with the subgroup and the rest (n_R = 1,000) equal."""
    rng = np.random.default_rng(seed)
    rows = []
    for n_s in (5, 10, 20, 50):
        cover, size = [], []
        for p in (0.05, 0.1, 0.2, 0.3, 0.5):
            x_s, x_r = rng.binomial(n_s, p, replicates), rng.binomial(1000, p, replicates)
            _, lo, hi = newcombe_interval(x_r, 1000, x_s, n_s)
            cover.append(float(np.mean((lo <= 0.0) & (hi >= 0.0))))
            less, greater = mid_p_fisher(x_s, n_s, x_r, 1000)
            size.append(float(np.mean(np.minimum(1, 2 * np.minimum(less, greater)) < 0.05)))
        rows.append({"n_S": n_s, "Newcombe coverage min": min(cover), "Newcombe coverage max": max(cover),
                     "mid-p size min": min(size), "mid-p size max": max(size)})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = Path(os.environ.get("AIF360_SUBJECTIVE_DATA", REPO.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--seeds-null", type=int, default=20)
    ap.add_argument("--seeds-planted", type=int, default=10)
    ap.add_argument("--skip-kmeans", action="store_true")
    args = ap.parse_args()

    print("## 1. Null data (slink, automatic k)")
    r = null_sweep(args.seeds_null)
    print(f"seeds flagging any subgroup at q < 0.05, of {r['seeds']}: per metric {r['per_metric']}; any metric "
          f"{r['any_metric']} (seeds {r['flagged_seeds']}); default SP ranking {r['default_ranking']}  "
          f"[{r['seconds']:.1f} s]")
    print("\n## 2. Planted subgroup: first subgroup of the default SP ranking >= 70 % inside the planted rows")
    runs = [("slink", None, 3)]
    if not args.skip_kmeans:
        runs.append(("kmeans", None, 3))
    runs += [("slink", None, 4), ("slink", [8, 16, 32, 64, 128, 256], 4)]
    table = []
    for clustering, k, levels in runs:
        r = planted_sweep(args.seeds_planted, clustering, k, levels)
        table.append({"clustering": clustering, "n_clusters": "auto" if k is None else str(k), "levels": levels,
                      "hits": f"{r['hits']}/{r['seeds']}", "any significant": f"{r['flagged']}/{r['seeds']}",
                      "precision of first": r["precision_of_first"], "seconds": round(r["seconds"], 1)})
    print(pd.DataFrame(table).to_string(index=False))
    print("\n## 3. Cost on COMPAS")
    if (args.data / "compas" / "fairvis_compas_out.csv").exists():
        cost = compas_cost(args.data)
        print(f"(automatic k = {cost.attrs['n_clusters']})")
        print(cost.round(4).to_string())
    else:
        print(f"COMPAS not found under {args.data}: skipped")
    print("\n## 4. Calibration of the interval and the test (simulated, 20,000 replicates per row)")
    print(calibration().round(4).to_string(index=False))
    print("\nRanges over the rates 0.05-0.5 (subgroup = rest, n_R = 1,000; 20,000 replicates per rate)")
    print(calibration_ranges().round(4).to_string(index=False))


if __name__ == "__main__":
    main()
