"""Response times of the dashboard's state logic (the numbers behind docs/guide/dashboard.rst).

* COMPAS (FairVis file, 6,172 rows), with the dashboard's default discovery (the library's, ``"both"``): the first
  analysis (automatic k by x-means, as ``subgroups`` runs it) and the
  ``subgroups`` command itself (a subprocess, imports and reading included); then each re-cut of a sequence of
  k and entropy-threshold changes (the cached single-linkage tree cut again, the mined patterns kept) and each
  re-ranking (metric, direction, alpha), against a fresh ``detect_subgroups`` at the same k and τ (which mines
  again) and the mining alone (what keeping the patterns saves).
* 1.6M generated annotations (``make_subjective_dataset(n_items=160_000, n_annotators=4_300,
  annotations_per_item=10)``): set-up (generation, by-item split, training Model 1 and Model 2), then the opinion
  tab's first view without intervals (every model's OpinionExclusionMetric, the summary table, the answer
  sentence, the Figure-3 heatmap), a grouping change, and the intervals computed after the view (1,000
  replicates). The audit runs on the 30% held-out items.

Usage: ``python benchmarks/dashboard.py [--data DIR] [--n-items 160000] [--skip-large]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("MPLBACKEND", "Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from aif360_subjective.dashboard.state import (  # noqa: E402
    OpinionSession,
    OpinionSettings,
    SubgroupSession,
    SubgroupSettings,
    accepts_discovery,
)
from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.detectors.detect import mine  # noqa: E402
from aif360_subjective.detectors.options import check_analysis_options  # noqa: E402


def _timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def compas(data: Path) -> None:
    path = data / "compas" / "fairvis_compas_out.csv"
    df = pd.read_csv(path)
    X = df.drop(columns=["out", "class"])
    y, p = (df["class"] == 0).astype(int), (df["out"] == 0).astype(int)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "aif360_subjective", "subgroups", str(path), "--label-col", "class",
               "--prediction-col", "out", "--out", str(Path(tmp) / "r.html")]
        _, cli = _timed(lambda: subprocess.run(cmd, capture_output=True, check=True))
    # the dashboard's default: the library's discovery (clusters, entropy patterns and mined patterns)
    discovery = {"discovery": "both"} if accepts_discovery() else {}
    s = SubgroupSession(X, y, p, random_state=0)
    v, first = _timed(s.update, SubgroupSettings(**discovery))
    print(f"COMPAS ({len(X):,} rows): first analysis {first:.2f} s (k = {v.k} by x-means); the subgroups command "
          f"{cli:.2f} s (subprocess: imports, reading, analysis, report).")
    rows = []
    steps = [("k", 10), ("k", 20), ("k", 5), ("entropy_threshold", 0.4), ("entropy_threshold", 0.8), ("k", 40),
             ("metric", "accuracy"), ("direction", "favoured"), ("alpha", None)]
    settings = v.settings
    for name, value in steps:
        field = "n_clusters" if name == "k" else name
        settings = dataclasses.replace(settings, **{field: value})
        v = s.update(settings)
        fresh = None
        if v.step == "cut":
            _, fresh = _timed(detect_subgroups, X, y, p, n_clusters=v.k,
                              entropy_threshold=settings.entropy_threshold, random_state=0, **discovery)
        rows.append({"change": f"{name} = {value}", "step": v.step, "seconds": round(v.seconds, 3),
                     "fresh detect_subgroups (s)": None if fresh is None else round(fresh, 3)})
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    cuts = table.loc[table.step == "cut", "seconds"]
    print(f"clusterings fitted: {s.n_clusterings}; slowest re-cut {cuts.max():.3f}"
          f" s, slowest re-ranking {table.loc[table.step == 'ranking', 'seconds'].max():.3f} s.")
    if discovery:
        mined, mining = _timed(mine, X, check_analysis_options(X))
        print(f"Re-cut with discovery='both' (clusters, entropy patterns, {len(mined.patterns):,} mined patterns "
              f"kept): median {cuts.median():.2f} s, slowest {cuts.max():.2f} s; mining them again would add "
              f"{mining:.2f} s to each.")


def large(n_items: int) -> None:
    from aif360_subjective.datasets import make_subjective_dataset
    from aif360_subjective.plotting import plot_group_performance

    ds, gen = _timed(lambda: make_subjective_dataset(n_items=n_items, n_annotators=4_300, annotations_per_item=10,
                                                     random_state=0))
    o, setup = _timed(lambda: OpinionSession(ds, seed=0))
    print(f"\nGenerated {len(ds.labels):,} annotations of {ds.n_items:,} items by {ds.n_annotators:,} annotators in "
          f"{gen:.1f} s; split and training of the two models {setup:.1f} s; audited: {len(o.test.labels):,} "
          "held-out annotations.")

    def view(s: OpinionSettings) -> None:
        o.summary(s, intervals=False)
        for name in o.models:
            o.answer(s, name, intervals=False)
        o.thin_notes(s)
        plt.close(plot_group_performance(o.metrics(s), kind="heatmap").figure)

    def intervals(s: OpinionSettings) -> None:
        o.summary(s)
        for name in o.models:
            o.group_table(name, s)
        plt.close(plot_group_performance(o.metrics(s), kind="heatmap", ci=s.ci, n_boot=s.n_boot).figure)

    rows = []
    for grouping in ("adr", "demographic", "ambiguity", "popularity"):
        s = OpinionSettings(grouping=grouping)
        _, shown = _timed(view, s)
        _, ci = _timed(intervals, s)
        rows.append({"grouping": grouping, "view without intervals (s)": round(shown, 2),
                     "intervals after it (s)": round(ci, 2)})
    print(pd.DataFrame(rows).to_string(index=False))
    print("The first row is the tab's first view; the others are grouping changes (their metrics are new).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("AIF360_SUBJECTIVE_DATA", "../shared/data")))
    parser.add_argument("--n-items", type=int, default=160_000)
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    compas(args.data)
    if not args.skip_large:
        large(args.n_items)


if __name__ == "__main__":
    main()
