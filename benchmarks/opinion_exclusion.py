"""Benchmark: opinion-exclusion metrics at Wikipedia-toxicity scale vs fairlearn's MetricFrame.

1.6M annotations (160k items x 10 annotators, ~4,300 workers with a skewed activity), binary labels.
Times (best of --repeat runs):

* ``aif360_subjective`` core through the functional API (encode + ADR + groups + per-annotator
  accuracy), for the ADR grouping and for all eight built-in metrics at once;
* ``OpinionExclusionMetric`` on a MultiAnnotatorDataset (dataset construction reported separately);
* fairlearn ``MetricFrame(metrics=accuracy_score, sensitive_features=annotator).by_group``, the same
  per-annotator accuracies, run in its own venv (``/work/venv-bench-fairlearn`` or --fairlearn-python)
  as a subprocess on the same arrays. The per-annotator accuracies are compared.

Usage: python benchmarks/opinion_exclusion.py [--n-items 160000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_of  # noqa: E402

from aif360_subjective.datasets import MultiAnnotatorDataset  # noqa: E402
from aif360_subjective.metrics import OpinionExclusionMetric  # noqa: E402
from aif360_subjective.opinion.options import PERFORMANCE_NAMES  # noqa: E402
from aif360_subjective.sklearn.metrics import opinion_exclusion  # noqa: E402

FAIRLEARN_SCRIPT = r"""
import sys, time, json
import numpy as np
from fairlearn.metrics import MetricFrame
from sklearn.metrics import accuracy_score
d = np.load(sys.argv[1], allow_pickle=False)
best = float("inf")
for _ in range(int(sys.argv[3])):
    t = time.perf_counter()
    mf = MetricFrame(metrics=accuracy_score, y_true=d["y"], y_pred=d["p"], sensitive_features=d["a"])
    by = mf.by_group
    best = min(best, time.perf_counter() - t)
np.save(sys.argv[2], by.reindex(np.unique(d["a"])).to_numpy(dtype=float))
import fairlearn
print(json.dumps({"seconds": best, "version": fairlearn.__version__}))
"""


def make_data(n_items: int, per_item: int, n_workers: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    activity = rng.lognormal(0.0, 1.0, n_workers)
    activity /= activity.sum()
    # distinct workers per item: sample more than needed and keep the first distinct ones
    draws = rng.choice(n_workers, size=(n_items, per_item * 2), p=activity)
    workers = np.empty((n_items, per_item), dtype=np.int64)
    for j in range(per_item):  # per column (10 passes), not per row
        workers[:, j] = draws[:, j]
    dup = (np.sort(workers, axis=1)[:, 1:] == np.sort(workers, axis=1)[:, :-1]).any(axis=1)
    workers[dup] = np.array([rng.choice(n_workers, per_item, replace=False) for _ in range(int(dup.sum()))])
    items = np.repeat(np.arange(n_items), per_item)
    truth = (rng.random(n_items) < 0.3).astype(np.int64)
    minority = rng.random(n_workers) < 0.15
    contested = rng.random(n_items) < 0.3
    w = workers.ravel()
    y = np.where(minority[w] & contested[items], 1, truth[items])
    y = np.where(rng.random(len(y)) < 0.05, 1 - y, y)
    p = np.where(rng.random(len(y)) < 0.85, truth[items], 1 - truth[items])
    return items, w, y, p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-items", type=int, default=160_000)
    ap.add_argument("--per-item", type=int, default=10)
    ap.add_argument("--n-workers", type=int, default=4_300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fairlearn-python", default="/work/venv-bench-fairlearn/bin/python")
    args = ap.parse_args()

    items, workers, y, p = make_data(args.n_items, args.per_item, args.n_workers)
    ann = np.array([f"W{i:05d}" for i in range(args.n_workers)], dtype=object)[workers]
    n = len(y)
    print(f"{n:,} annotations, {args.n_items:,} items, {len(np.unique(workers)):,} annotators")
    rows = []

    t, res = best_of(lambda: opinion_exclusion(y, p, item_ids=items, annotator_ids=ann), args.repeat)
    rows.append(("aif360_subjective functional, ADR groups, accuracy", t))
    t, _ = best_of(
        lambda: opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, performance=list(PERFORMANCE_NAMES)),
        args.repeat,
    )
    rows.append(("aif360_subjective functional, all 8 metrics averaged", t))
    t, _ = best_of(lambda: opinion_exclusion(y, p, item_ids=items, annotator_ids=ann, grouping="popularity"),
                   args.repeat)
    rows.append(("aif360_subjective functional, popularity groups", t))

    df = pd.DataFrame({"item": items, "annotator": ann, "label": y})
    t_ds, ds = best_of(lambda: MultiAnnotatorDataset(df), 1)
    pred = ds.with_predictions(p)

    def run_metric():
        m = OpinionExclusionMetric(ds, pred)
        return m.unfairness(), m.annotator_performance()

    t, (unf, _) = best_of(run_metric, args.repeat)
    rows.append(("OpinionExclusionMetric (construct + unfairness)", t))

    def aif360_equality_check():  # what ClassificationMetric.__init__ runs on the two datasets
        with ds.temporarily_ignore("labels", "scores"):
            return ds != pred

    t_eq, _ = best_of(aif360_equality_check, 1)
    rows.append(("  of which ClassificationMetric's dataset equality check", t_eq))

    fl = None
    py = Path(args.fairlearn_python)
    if py.exists():
        with tempfile.TemporaryDirectory() as tmp:
            inp, out = Path(tmp) / "in.npz", Path(tmp) / "out.npy"
            np.savez(inp, y=y, p=p, a=ann.astype(str))
            proc = subprocess.run([str(py), "-c", FAIRLEARN_SCRIPT, str(inp), str(out), str(args.repeat)],
                                  capture_output=True, text=True, check=True)
            fl = json.loads(proc.stdout.strip().splitlines()[-1])
            fl_acc = np.load(out)
        ours = res.annotator_performance.sort_index().to_numpy()
        diff = float(np.max(np.abs(ours - fl_acc)))
        rows.append((f"fairlearn {fl['version']} MetricFrame(sensitive_features=annotator)", fl["seconds"]))
    else:
        print(f"fairlearn venv not found at {py}: skipping the peer (create it with pip install fairlearn)")

    print(f"\n{'what':<62} {'seconds':>9}")
    for name, sec in rows:
        print(f"{name:<62} {sec:>9.3f}")
    print(f"{'(MultiAnnotatorDataset construction, once)':<62} {t_ds:>9.3f}")
    print(f"\nunfairness {unf:.4f}, performance {res.performance:.4f}, groups:")
    print(res.group_table.to_string())
    if fl is not None:
        print(f"\nper-annotator accuracy, max |ours - fairlearn| = {diff:.2e}")
        print(f"speed-up vs fairlearn (functional ADR+accuracy): {fl['seconds'] / rows[0][1]:.1f}x")


if __name__ == "__main__":
    main()
