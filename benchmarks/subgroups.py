"""Timings and peak memory of automated subgroup discovery against peers, on COMPAS (6,172 rows), Adult
(48,842 rows) and Adult-like data of 10k-200k rows.

Every step runs in a fresh subprocess (``--step``) that reports its wall time and its peak resident memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``, imports and data loading included); all steps run in one
invocation so that ratios hold on a shared machine. Steps:

* ``ours (auto k)``: ``detect_subgroups(..., n_clusters=None)``: x-means for k, single linkage (mst="auto":
  mlpack's Borůvka MST on large data, scikit-learn's Prim on small), patterns, metrics, validity indices.
* ``ours (auto k, mst=sklearn)``: the same with scikit-learn's Prim (COMPAS; on Adult it is the bare
  scikit-learn time plus the analysis).
* ``ours (k=30)``: a fixed k (no x-means).
* ``sklearn single linkage``: bare ``AgglomerativeClustering(linkage="single")`` on the same matrix and k.
* ``x-means (pyclustering)`` / ``x-means (vectorised)``: the automatic k alone, by the reference and by
  :func:`~aif360_subjective.detectors.asdf.xmeans.fast_xmeans` (same seed): the chosen k must agree.
* ``ASDF-style pipeline`` (COMPAS only; on Adult it is pyclustering's x-means + scikit-learn's SLINK + loops):
  pandas per-subgroup loops as the reference dashboard computes patterns and metrics.
* ``aif360 MDSS bias_scan`` and ``DivExplorer`` (min support 0.05, own venv if installed): slice finders.
* Growth curve: Adult rows resampled with replacement, numeric columns jittered by N(0, (0.01 sd)^2),
  at 10k-200k rows: ours (auto k) at every size, bare scikit-learn single linkage up to 50k; the fitted
  exponent is the slope of log time against log rows.

Usage: ``python benchmarks/subgroups.py [--data DIR] [--skip-adult] [--skip-growth] [--sizes 10000,...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.detectors.asdf.clustering import default_kmax, xmeans_n_clusters  # noqa: E402
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


# ------------------------------------------------------------------ steps (each in a fresh subprocess)
def adult_like(root, n, seed=0):
    """Adult rows resampled with replacement, numeric columns jittered by 1% of their standard deviation."""
    X, y, yhat, pos, score = load_adult(root)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(X), n)
    Xs = X.iloc[rows].reset_index(drop=True)
    for col in Xs.columns:
        if Xs[col].dtype.kind in "if":
            Xs[col] = Xs[col].astype(float) + rng.normal(0.0, 0.01 * X[col].std(), n)
    return Xs, y[rows], yhat[rows], pos, None if score is None else score[rows]


def load(root, data, size):
    if data == "compas":
        return load_compas(root)
    if data == "adult":
        return load_adult(root)
    return adult_like(root, size)


def step(root, name, data, size, k):
    """Run one step; return (seconds, note)."""
    from sklearn.cluster import AgglomerativeClustering

    from aif360_subjective.detectors.asdf.clustering import choose_n_clusters
    from aif360_subjective.detectors.asdf.xmeans import fast_xmeans

    X, y, yhat, pos, score = load(root, data, size)
    # warm-up on 60 rows: the lazy imports (scikit-learn, pyclustering, mlpack) are not the analysis
    detect_subgroups(X.iloc[:60], y[:60], yhat[:60], pos_label=pos, n_clusters=3, random_state=0, discovery="asdf")
    AgglomerativeClustering(n_clusters=2, linkage="single").fit(np.random.default_rng(0).random((20, 3)))
    t = time.perf_counter()
    if name == "ours_auto":
        rep = detect_subgroups(X, y, yhat, pos_label=pos, random_state=0, discovery="asdf")
        note = f"k={rep.n_clusters}, cut_is_unique={rep.cut_is_unique}"
    elif name == "ours_auto_prim":
        rep = detect_subgroups(X, y, yhat, pos_label=pos, random_state=0, mst="sklearn", discovery="asdf")
        note = f"k={rep.n_clusters}"
    elif name == "ours_k30":
        rep = detect_subgroups(X, y, yhat, pos_label=pos, n_clusters=30, random_state=0)
        note = f"cut_is_unique={rep.cut_is_unique}"
    else:
        Z, _ = encode_for_clustering(X, detect_categorical(X))
        kmax = default_kmax(len(Z))
        t = time.perf_counter()
        if name == "sklearn_bare":
            AgglomerativeClustering(n_clusters=k, linkage="single").fit(Z)
            note = f"same matrix {Z.shape}, k={k}"
        elif name == "xmeans_pyclustering":
            kk = choose_n_clusters(Z, kmax, _detect_seed(), method="pyclustering")
            note = f"k={kk} (kmax={kmax})"
        elif name == "xmeans_fast":
            seed = np.random.default_rng(_detect_seed()).integers(0, 2**31 - 1)
            kk = fast_xmeans(Z, kmax, np.random.default_rng(seed))
            note = f"k={kk} (kmax={kmax})"
        elif name == "asdf_style":
            kk, _ = xmeans_n_clusters(Z, random_state=0)
            labels = AgglomerativeClustering(n_clusters=kk, linkage="single").fit(Z).labels_
            asdf_style(X, y, yhat, pos, labels)
            note = "x-means + SLINK + pandas per-subgroup loops"
        elif name == "mdss":
            res = mdss(X, y, score, yhat, pos)
            note = f"score {res[1]:.2f}, {len(res[0])} attributes"
        elif name == "divexplorer":
            secs, note = divexplorer(X, y, yhat, pos)
            return (float("nan") if secs is None else secs), note
        else:
            raise ValueError(name)
    return time.perf_counter() - t, note


def _detect_seed():
    """The Generator detect_subgroups(random_state=0) hands to x-means (see detect._auto_hierarchical)."""
    rng = np.random.default_rng(0)
    return np.random.default_rng(rng.integers(0, 2**31 - 1))


def run_step(root, name, data, size=0, k=0):
    cmd = [sys.executable, __file__, "--data", str(root), "--step", name, "--on", data, "--size", str(size),
           "--k", str(k)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return {"seconds": float("nan"), "rss_mb": float("nan"), "note": "failed: " + res.stderr[-200:]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None)
    ap.add_argument("--skip-adult", action="store_true")
    ap.add_argument("--skip-growth", action="store_true")
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--sizes", default="10000,25000,50000,100000,200000")
    ap.add_argument("--sklearn-max", type=int, default=50_000)
    ap.add_argument("--step", default=None)
    ap.add_argument("--on", default="compas")
    ap.add_argument("--size", type=int, default=0)
    ap.add_argument("--k", type=int, default=0)
    args = ap.parse_args(argv)
    root = data_dir(args.data)
    if args.step:
        secs, note = step(root, args.step, args.on, args.size, args.k)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(json.dumps({"seconds": secs, "rss_mb": rss, "note": note}))
        return
    rows = []

    def add(data, method, out):
        rows.append((data, method, out["seconds"], out["rss_mb"], out["note"]))
        print(f"{data:>12} {method:<28} {out['seconds']:9.2f} s {out['rss_mb']:8.0f} MB  {out['note']}", flush=True)
        return out

    datasets = [("COMPAS", "compas", 0)] + ([] if args.skip_adult else [("Adult", "adult", 0)])
    for label, data, size in datasets:
        auto = add(label, "ours (auto k)", run_step(root, "ours_auto", data, size))
        k = int(auto["note"].split(",")[0].split("=")[1]) if auto["note"].startswith("k=") else 30
        if data == "compas":
            add(label, "ours (auto k, mst=sklearn)", run_step(root, "ours_auto_prim", data, size))
        add(label, "ours (k=30)", run_step(root, "ours_k30", data, size))
        bare = add(label, "sklearn single linkage", run_step(root, "sklearn_bare", data, size, k))
        rows.append((label, "ratio ours/bare", auto["seconds"] / bare["seconds"], float("nan"), "target <= 0.125"))
        print(f"{label:>12} ratio ours/bare = {auto['seconds'] / bare['seconds']:.3f}", flush=True)
        add(label, "x-means (pyclustering)", run_step(root, "xmeans_pyclustering", data, size))
        add(label, "x-means (vectorised)", run_step(root, "xmeans_fast", data, size))
        if not args.skip_peers:
            if data == "compas":
                add(label, "ASDF-style pipeline", run_step(root, "asdf_style", data, size))
            add(label, "aif360 MDSS bias_scan", run_step(root, "mdss", data, size))
            add(label, "DivExplorer", run_step(root, "divexplorer", data, size))
    growth = []
    if not args.skip_growth:
        for n in [int(v) for v in args.sizes.split(",")]:
            ours = add(f"Adult-like {n // 1000}k", "ours (auto k)", run_step(root, "ours_auto", "like", n))
            kk = int(ours["note"].split(",")[0].split("=")[1]) if ours["note"].startswith("k=") else 30
            sk = (
                add(f"Adult-like {n // 1000}k", "sklearn single linkage", run_step(root, "sklearn_bare", "like", n, kk))
                if n <= args.sklearn_max
                else None
            )
            growth.append((n, ours["seconds"], None if sk is None else sk["seconds"]))
    table = pd.DataFrame(rows, columns=["data", "method", "seconds", "peak_rss_mb", "note"])
    with pd.option_context("display.width", 220, "display.max_colwidth", 100):
        print()
        print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    if growth:
        g = pd.DataFrame(growth, columns=["rows", "ours_s", "sklearn_s"])
        for col in ("ours_s", "sklearn_s"):
            ok = g[col].notna()
            if ok.sum() >= 2:
                slope = np.polyfit(np.log(g.loc[ok, "rows"]), np.log(g.loc[ok, col].astype(float)), 1)[0]
                print(f"fitted exponent (time ~ rows^b) {col}: b = {slope:.2f} over {int(ok.sum())} sizes")


if __name__ == "__main__":
    main()
