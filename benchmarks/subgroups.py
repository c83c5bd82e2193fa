"""Timings of automated subgroup discovery against peers, on COMPAS (6,172 rows) and Adult (48,842 rows).

Rows of the table:
* ``ours (auto k)``: ``detect_subgroups(..., n_clusters=None)``: x-means for k, single linkage, patterns,
  metrics, validity indices (the whole analysis).
* ``ours (k=30)``: the same with a fixed k (no x-means).
* ``sklearn single linkage``: bare ``AgglomerativeClustering(linkage="single")`` on the same matrix and k.
* ``ASDF-style pipeline``: a re-implementation of how the reference dashboard works (pandas per-subgroup
  loops: value_counts per cluster and feature, boolean masks over all rows per pattern, metrics by filtering
  each subgroup and its rest), on our clustering labels, plus its x-means + single linkage.
* ``aif360 MDSS bias_scan``: multi-dimensional subset scan (continuous features binned in deciles).
* ``DivExplorer``: frequent-pattern divergence (min support 0.05) in its own venv
  (``/work/venv-bench-divexplorer``), if installed.

Usage: ``python benchmarks/subgroups.py [--data DIR] [--skip-adult] [--repeat N]``.
Times are the minimum over ``--repeat`` runs (the machine is shared); Adult is run once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.detectors.clustering import default_kmax, xmeans_n_clusters  # noqa: E402
from aif360_subjective.detectors.encoding import detect_categorical, encode_for_clustering  # noqa: E402

DIVEXPLORER_PY = Path("/work/venv-bench-divexplorer/bin/python")
ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]


def data_dir(arg):
    return Path(arg or os.environ.get("AIF360_SUBJECTIVE_DATA") or REPO.parent / "shared" / "data")


def load_compas(root):
    df = pd.read_csv(root / "compas" / "fairvis_compas_out.csv")
    return df.drop(columns=["out", "class"]), df["class"].to_numpy(), df["out"].to_numpy(), 0, None


def load_adult(root):
    parts = []
    for name, skip in (("adult.data", 0), ("adult.test", 1)):
        parts.append(
            pd.read_csv(
                root / "adult" / name, header=None, names=ADULT_COLUMNS, skiprows=skip, skipinitialspace=True
            )
        )
    df = pd.concat(parts, ignore_index=True)
    y = df.pop("income").str.rstrip(".").eq(">50K").astype(int).to_numpy()
    # a model's predictions: logistic regression on the encoded features (fitted on all rows; a benchmark)
    from sklearn.linear_model import LogisticRegression

    Z, _ = encode_for_clustering(df, detect_categorical(df))
    model = LogisticRegression(max_iter=300).fit(Z, y)
    return df, y, model.predict(Z), 1, model.predict_proba(Z)[:, 1]


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


# ------------------------------------------------------------------ the ASDF-style pipeline (pandas loops)
def asdf_style(X, y, yhat, pos, labels, tau=0.65):
    """How the reference computes patterns and metrics: per cluster and feature with pandas, per subgroup
    boolean filtering of the whole table (re-implemented here, not the reference's code)."""
    df = X.copy()
    df["_y"], df["_p"], df["_c"] = y, yhat, labels

    def rates(part):
        fav_pred = (part["_p"] == pos).mean()
        positives = part[part["_y"] == pos]
        negatives = part[part["_y"] != pos]
        tpr = (positives["_p"] == pos).mean() if len(positives) else 0.0
        fpr = (negatives["_p"] == pos).mean() if len(negatives) else 1.0
        return fav_pred, tpr, fpr, (part["_y"] == part["_p"]).mean()

    rows = []
    for c in sorted(df["_c"].unique()):
        cl = df[df["_c"] == c]
        pattern = {}
        for col in X.columns:
            p = cl[col].value_counts(normalize=True)
            ne = float(-(p * np.log(p)).sum() / np.log(len(p))) if len(p) > 1 else 0.0
            if ne < tau:
                pattern[col] = p.index[p.to_numpy() == p.max()].min()
        for kind, mask in (("c", df["_c"] == c), ("g", None)):
            if mask is None:
                mask = pd.Series(True, index=df.index)
                for col, v in pattern.items():
                    mask &= df[col] == v
            s, r = df[mask], df[~mask]
            if len(s) == 0 or len(r) == 0:
                continue
            fs, ts, ps, acc = rates(s)
            fr, tr, pr, _ = rates(r)
            rows.append((kind, c, len(s), fr - fs, tr - ts, ((pr - ps) + (tr - ts)) / 2, acc))
    return rows


# ------------------------------------------------------------------ peers
def mdss(X, y, score, yhat, pos):
    from aif360.detectors.mdss_detector import bias_scan

    data = X.copy()
    for col in data.columns:
        if data[col].dtype.kind in "if" and data[col].nunique() > 10:
            data[col] = pd.qcut(data[col], 10, duplicates="drop").astype(str)
    expectations = pd.Series(score if score is not None else yhat.astype(float))
    obs = pd.Series(y)
    state = np.random.get_state()
    try:
        return bias_scan(
            data,
            obs,
            expectations,
            favorable_value="high" if pos == 1 else "low",
            overpredicted=True,
            num_iters=10,
        )
    finally:
        np.random.set_state(state)


DIVEXPLORER_RUNNER = r"""
import json, sys, time
import pandas as pd
from divexplorer import DivergenceExplorer
df = pd.read_csv(sys.argv[1])
t = time.perf_counter()
fp = DivergenceExplorer(df).get_pattern_divergence(min_support=0.05, boolean_outcomes=["fp", "fn"])
print(json.dumps({"seconds": time.perf_counter() - t, "patterns": len(fp)}))
"""


def divexplorer(X, y, yhat, pos):
    if not DIVEXPLORER_PY.exists():
        return None, "unavailable (no /work/venv-bench-divexplorer)"
    data = X.copy()
    for col in data.columns:
        if data[col].dtype.kind in "if" and data[col].nunique() > 10:
            data[col] = pd.qcut(data[col], 10, duplicates="drop").astype(str)
    data["fp"] = ((yhat == pos) & (y != pos)).astype(int)
    data["fn"] = ((yhat != pos) & (y == pos)).astype(int)
    with tempfile.TemporaryDirectory() as tmp:
        csv, runner = Path(tmp) / "d.csv", Path(tmp) / "run.py"
        data.to_csv(csv, index=False)
        runner.write_text(DIVEXPLORER_RUNNER)
        res = subprocess.run([str(DIVEXPLORER_PY), str(runner), str(csv)], capture_output=True, text=True)
    if res.returncode != 0:
        return None, "unavailable (" + (res.stderr.strip().splitlines() or ["failed"])[-1][:80] + ")"
    out = json.loads(res.stdout.strip().splitlines()[-1])
    return out["seconds"], f"{out['patterns']} patterns"


# ------------------------------------------------------------------ main
def run(name, X, y, yhat, pos, score, repeat, peers=True):
    from sklearn.cluster import AgglomerativeClustering

    rows = []
    cat = detect_categorical(X)
    t_auto, rep = best_of(lambda: detect_subgroups(X, y, yhat, pos_label=pos, random_state=0), repeat)
    k = rep.n_clusters
    rows.append((name, "ours (auto k)", t_auto, f"k={k} (x-means, kmax={default_kmax(len(X))})"))
    t30, _ = best_of(
        lambda: detect_subgroups(X, y, yhat, pos_label=pos, n_clusters=30, random_state=0), repeat
    )
    rows.append((name, "ours (k=30)", t30, ""))
    Z, names = encode_for_clustering(X, cat)
    t_sk, _ = best_of(lambda: AgglomerativeClustering(n_clusters=k, linkage="single").fit(Z), repeat)
    rows.append(
        (
            name,
            "sklearn single linkage",
            t_sk,
            f"same matrix {Z.shape}, k={k}; ours/bare = {t_auto / t_sk:.2f}x",
        )
    )
    if peers:

        def reference_like():
            kk, _ = xmeans_n_clusters(Z, random_state=0)
            labels = AgglomerativeClustering(n_clusters=kk, linkage="single").fit(Z).labels_
            return asdf_style(X, y, yhat, pos, labels)

        t_ref, _ = best_of(reference_like, 1)
        rows.append((name, "ASDF-style pipeline", t_ref, "x-means + SLINK + pandas per-subgroup loops"))
        t_md, res = best_of(lambda: mdss(X, y, score, yhat, pos), 1)
        rows.append((name, "aif360 MDSS bias_scan", t_md, f"score {res[1]:.2f}, {len(res[0])} attributes"))
        t_dx, note = divexplorer(X, y, yhat, pos)
        rows.append((name, "DivExplorer", t_dx, note))
    return rows, rep


def memory_of_analysis(X, y, yhat, pos, k):
    """Peak traced Python/numpy allocation of the analysis after clustering (patterns, metrics, indices)."""
    from aif360_subjective.detectors.clustering import fit_clustering
    from aif360_subjective.detectors.detect import analyse

    cat = detect_categorical(X)
    Z, _ = encode_for_clustering(X, cat)
    labels = fit_clustering(Z, "slink", k).labels

    class Fixed:
        def get_params(self, deep=True):
            return {}

        def fit(self, Z):
            self.labels_ = labels
            return self

    tracemalloc.start()
    analyse(
        X,
        y == pos,
        yhat == pos,
        None,
        cat,
        Fixed(),
        None,
        0.65,
        "cluster",
        False,
        "nan",
        np.random.default_rng(0),
        "statistical_parity",
        1000,
        {},
    )
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None)
    ap.add_argument("--skip-adult", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    root = data_dir(args.data)
    rows, _ = run("COMPAS", *load_compas(root), repeat=args.repeat)
    if not args.skip_adult:
        X, y, yhat, pos, score = load_adult(root)
        adult_rows, rep = run("Adult", X, y, yhat, pos, score, repeat=1)
        rows += adult_rows
        peak = memory_of_analysis(X, y, yhat, pos, rep.n_clusters)
        rows.append(
            (
                "Adult",
                "ours: peak memory after clustering",
                float("nan"),
                f"{peak / 2**20:.1f} MB traced (n^2 float64 would be {len(X) ** 2 * 8 / 2**30:.1f} GB)",
            )
        )
    table = pd.DataFrame(rows, columns=["data", "method", "seconds", "note"])
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
