"""Time of the opinion-exclusion bootstrap intervals at the issue's scale (1.6M annotations, 1,000 replicates).

Rows: the paper's figures alone (``ci=None``), then with intervals (two-level and annotators-only bootstrap), then
a plain pandas transcription of the annotator bootstrap (a loop over replicates, a groupby per replicate) as the
peer, timed on a few replicates and scaled to 1,000. Run: ``python benchmarks/opinion_uncertainty.py [--n-items N]``.

Measured on the 2-core development machine (shared with other jobs), 1,597,846 annotations, 4,300 annotators,
ADR grouping in 5 bins: ci=None 0.51 s; with intervals, two-level bootstrap 2.56 s, annotators only 0.51 s; the
pandas loop 4.4 s for the annotators-only bootstrap (87 ms per replicate).
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

from aif360_subjective.sklearn.metrics import opinion_exclusion


def _data(n_items: int, n_annotators: int, per_item: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), per_item)
    activity = rng.lognormal(0.0, 0.5, n_annotators)
    annotators = rng.choice(n_annotators, size=len(items), p=activity / activity.sum())
    truth = rng.random(n_items) < 0.3
    minority = rng.random(n_annotators) < 0.15
    contested = rng.random(n_items) < 0.3
    y = truth[items].copy()
    flip = rng.random(len(items)) < 0.05
    y ^= flip
    y |= minority[annotators] & contested[items]
    pred = truth[items]
    frame = pd.DataFrame({"item": items, "annotator": annotators, "label": y.astype(int), "pred": pred.astype(int)})
    # one label per (item, annotator): keep the first
    return frame.drop_duplicates(["item", "annotator"])


def _pandas_bootstrap(frame: pd.DataFrame, groups: pd.Series, n_boot: int, seed: int = 0) -> np.ndarray:
    """The obvious pandas bootstrap: per replicate, resample annotators within each group, average accuracies."""
    rng = np.random.default_rng(seed)
    acc = (frame["label"] == frame["pred"]).groupby(frame["annotator"]).mean()
    by_group = {g: acc.loc[idx].to_numpy() for g, idx in groups.groupby(groups).groups.items()}
    out = np.empty(n_boot)
    for b in range(n_boot):
        means = [rng.choice(v, size=len(v), replace=True).mean() for v in by_group.values()]
        out[b] = np.std(means)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-items", type=int, default=160_000)
    parser.add_argument("--n-annotators", type=int, default=4_300)
    parser.add_argument("--per-item", type=int, default=10)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args()
    frame = _data(args.n_items, args.n_annotators, args.per_item)
    print(f"{len(frame):,} annotations, {frame['annotator'].nunique():,} annotators, {args.n_boot} replicates")
    kw = dict(item_ids=frame["item"].to_numpy(), annotator_ids=frame["annotator"].to_numpy(), bins=5,
              warn_group_size=0)
    rows = []
    for label, extra in [("paper's figures only (ci=None)", {}),
                         ("+ intervals, two-level bootstrap", {"ci": 0.95, "n_boot": args.n_boot, "random_state": 0}),
                         ("+ intervals, annotators only", {"ci": 0.95, "n_boot": args.n_boot, "random_state": 0,
                                                           "bootstrap_levels": "annotators"})]:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = opinion_exclusion(frame["label"].to_numpy(), frame["pred"].to_numpy(), **kw, **extra)
        rows.append((label, time.perf_counter() - t, res.unfairness_ci))
    groups = res.unit_performance.set_index("annotator")["group"]
    few = 20
    t = time.perf_counter()
    _pandas_bootstrap(frame, groups, few)
    per = (time.perf_counter() - t) / few
    rows.append((f"peer: pandas loop over replicates (timed on {few}, x{args.n_boot // few})", per * args.n_boot,
                 None))
    print(f"{'step':<62}{'seconds':>9}  unfairness interval")
    for label, sec, iv in rows:
        print(f"{label:<62}{sec:>9.2f}  {'' if iv is None else f'[{iv.low:.4f}, {iv.high:.4f}]'}")


if __name__ == "__main__":
    main()
