"""Validated clusterings against the seed's clustering, the mined patterns and ``kind="all"``: does the first finding
describe the planted rows, and do null tables report anything?

Tables (:func:`planted_table`, 5,000 rows): 8 numeric columns ``x0..x7`` (standard normal) and 3 categorical ones
``c0..c2`` (4 levels), all independent. Binary decisions: favourable prediction with probability 0.5 (0.3 in the
planted rows), the truth equal to the prediction with probability 0.8. Shapes:

* ``blob``: a Gaussian region in 2 or 3 (drawn) of the numeric columns: the rows within a radius of a random centre,
  the radius giving 3-8 % (drawn) of the rows;
* ``ring``: a band ``r0 <= |(x_a, x_b)| < r0 + w`` around the origin of two numeric columns (about 6 % of the rows);
* ``conjunctive``: ``c0 = a AND c1 = b`` (about 6 % of the rows), where patterns should win;
* ``dense``: a **dense** region (the issue's "dense region"): 3-8 % of the rows (drawn) get, in 2 or 3 numeric
  columns (drawn), values from a tight Gaussian (standard deviation 0.1-0.2 around a centre drawn in
  ``[-1.5, 1.5]``), so that the region is denser than its surroundings; ``blob`` is a ball of rows the features do
  not single out (their density there is the normal's), found only by the outcome;
* ``null``: no planted rows, no effect.

Methods, on the same table (``n_permutations=200``, ``alpha=0.05``), first row of ``ranking("statistical_parity",
kind=..., n=1)``:

* ``seed cluster``: today's default ``detect_subgroups(X, y, yhat)``, ``kind="cluster"`` (SLINK + x-means on every
  encoded column);
* ``patterns``: the same report, ``kind="pattern"``;
* ``all (today)``: the same report, ``kind="all"``;
* ``validated``: ``detect_subgroups(..., clusterings="validated")`` (default models: k-means on every numeric column
  and each pair of them, k in {5, 10, 20, 40}, which is the issue's k-means baseline's model list; ``--models scan``
  runs the scan windows on each pair and each triple of numeric columns), ``kind="validated"``: the models' clusters
  (or windows), tested in the one max-T with every other candidate;
* ``all (validated)``: the same report, ``kind="all"``;
* ``baseline``: the issue's k-means baseline (:func:`baseline_first`): scikit-learn's k-means, k in {5, 10, 20, 40},
  on each pair of standardized numeric columns and on all of them, every cluster a candidate of the package's
  permutation max-T without a penalty (B = 200), nothing else;
* ``split``: selection on one half, test on the other (:func:`split_first`): the default models' clusters (fitted
  on every row's features, which read no outcome), the model with the largest fairness validation index on a random
  half of the rows, its clusters alone tested on the other half (max-T without a penalty).

``--numeric 3`` draws the tables with 3 numeric columns (the issue's layout: a blob in two or three of three)
instead of 8. ``--diagnose SEED ...`` prints, per blob table, the cluster nearest the planted rows (largest
Jaccard) and its z under the validated clusterings and under the baseline, and each one's max-T critical value
(:func:`diagnose`).

``--levers ALGORITHM ...`` compares clustering models one lever at a time (:func:`levers`): per shape, each
lever's ``clusterings="validated"`` analysis with ``clustering_models=[ALGORITHM]`` (``default``: the package's
default models; ``kmeans+hdbscan``: both in one family), the validated candidate nearest the planted rows (mean
Jaccard and z over the tables), the tables whose first finding of kind ``"validated"`` and of kind ``"all"``
describes them, and the null tables reporting anything.

A lever names views and ks too: ``gmm_core@pairs,triples/5,10`` (:func:`lever_models`); ``--table-start 10`` runs
the planted tables from the eleventh seed on (a second block), ``--core-posterior 0.35`` sets the mixture cores'
posterior level for the run, and ``--explain`` prints per planted table the validated candidate nearest the
planted rows and the first finding of kind ``"all"`` and ``"validated"`` (description, Jaccard, z, penalised
statistic, adjusted p) beside the table's **oracle ceiling** (:func:`oracle_jaccard`): the Jaccard of the best
region the features can describe, the rows whose posterior of the planted Gaussian against the other rows' normal
is at least a level. ``--ceiling`` prints the ceilings alone (no analysis).

``--save-reports DIR`` (with ``--levers``) pickles each table's report as ``DIR/<seed>.pkl``; ``--rerank DIR``
ranks the saved reports again with the code as it is (no analysis: the ranking's order and redundancy filter
only) and prints, per table, the first finding under ``kind="all"`` and its Jaccard with the planted rows (null
tables: whether anything is reported), and the count per block of ten seeds: a change to the ranking is measured
on the very reports the analysis made.

Printed: per shape and method, the first finding describes the planted rows (Jaccard >= 0.5) in k of n tables; null
tables reporting something per method; then (``--adult``) on Adult (48,842 rows) the seconds of the seed's
clustering (``discovery="asdf"``, clusters and entropy patterns) against the validated clusterings alone
(:func:`~aif360_subjective.detectors.asdf.validated.run_validated_clusterings`), wall clock on a shared machine.

Usage: ``python benchmarks/validated_clusterings.py [--tables 10] [--null 40] [--shapes blob ring conjunctive dense]
[--numeric 8] [--planted-modes seed validated baseline split] [--null-modes seed validated baseline split]
[--diagnose 0 1 2] [--levers hdbscan gmm_core default] [--null-start 0] [--table-start 0] [--explain]
[--core-posterior 0.5] [--ceiling] [--save-reports DIR] [--rerank DIR] [--adult] [--skip-planted]``.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if str(HERE.parent) not in sys.path:
    sys.path.append(str(HERE.parent))

import scipy.sparse as sp  # noqa: E402

from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.detectors.error_control.maxt import class_offsets, max_t  # noqa: E402

SHAPES = ("blob", "ring", "conjunctive", "dense")
METHODS = (("seed cluster", "seed", "cluster"), ("patterns", "seed", "pattern"), ("all (today)", "seed", "all"),
           ("validated", "validated", "validated"), ("all (validated)", "validated", "all"),
           ("baseline", "baseline", "baseline"), ("split", "split", "split"))
MODES = ("seed", "validated", "baseline", "split")
#: The issue's k-means baseline: these k on each pair of numeric columns and on all of them.
BASELINE_KS = (5, 10, 20, 40)


def planted_table(shape: str, n: int = 5000, seed: int = 0, n_numeric: int = 8) -> tuple[
        pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y_true, y_pred, planted)`` of one table (see the module's docstring); ``n_numeric`` numeric columns
    (8: the tables of the guide's first table; 3: the issue's tables, a blob in two or three of three)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(n_numeric)})
    for j in range(3):
        X[f"c{j}"] = rng.choice(list("abcd"), n)
    planted = np.zeros(n, dtype=bool)
    if shape == "blob":
        cols = [f"x{i}" for i in rng.choice(n_numeric, size=int(rng.integers(2, 4)), replace=False)]
        centre = rng.uniform(-1.0, 1.0, size=len(cols))
        d = np.sqrt(((X[cols].to_numpy() - centre) ** 2).sum(axis=1))
        planted = d <= np.quantile(d, rng.uniform(0.03, 0.08))
    elif shape == "ring":
        a, b = rng.choice(n_numeric, size=2, replace=False)
        r = np.hypot(X[f"x{a}"], X[f"x{b}"]).to_numpy()
        r0 = rng.uniform(0.8, 1.6)
        w = np.quantile(np.abs(r - r0), 0.06)  # about 6 % of the rows
        planted = np.abs(r - r0) <= w
    elif shape == "conjunctive":
        planted = ((X["c0"] == "a") & (X["c1"] == "b")).to_numpy()
    elif shape == "dense":
        cols = [f"x{i}" for i in rng.choice(n_numeric, size=int(rng.integers(2, 4)), replace=False)]
        planted[rng.choice(n, size=int(rng.uniform(0.03, 0.08) * n), replace=False)] = True
        centre, sd = rng.uniform(-1.5, 1.5, size=len(cols)), rng.uniform(0.1, 0.2)
        for j, c in enumerate(cols):
            X.loc[planted, c] = centre[j] + sd * rng.normal(size=int(planted.sum()))
    p = rng.random(n) < np.where(planted, 0.3, 0.5)
    t = np.where(rng.random(n) < 0.8, p, ~p)
    return X, t.astype(int), p.astype(int), planted


def baseline_members(X: pd.DataFrame, seed: int) -> sp.csc_matrix:
    """The clusters of the issue's k-means baseline: scikit-learn's ``KMeans`` (``n_init=3``) at each k of
    :data:`BASELINE_KS` on each pair of numeric columns and on all of them, each column standardized; (rows,
    clusters) membership."""
    from itertools import combinations

    from sklearn.cluster import KMeans

    from aif360_subjective._compat import single_threaded

    num = [c for c in X.columns if X[c].dtype.kind == "f"]
    parts = []
    with single_threaded():  # small fits: OpenMP's threads only spin on a loaded machine
        for view in [*map(list, combinations(num, 2)), num]:
            Z = X[view].to_numpy()
            Z = (Z - Z.mean(axis=0)) / Z.std(axis=0)
            for k in BASELINE_KS:
                lab = KMeans(k, n_init=3, random_state=seed).fit_predict(Z)
                parts.append(sp.csc_matrix((np.ones(len(Z), dtype=bool), (np.arange(len(Z)), lab)),
                                           shape=(len(Z), k)))
    return sp.hstack(parts, format="csc")


def baseline_first(X: pd.DataFrame, t: np.ndarray, p: np.ndarray, seed: int, n_permutations: int = 200,
                   alpha: float = 0.05) -> np.ndarray | None:
    """Rows of the baseline's first finding: every cluster a candidate, the package's permutation max-T without a
    penalty (statistical parity, disadvantaged side), ordered as the rankings order (adjusted p, then z)."""
    M = baseline_members(X, seed)
    first = _first_significant(M, t, p, seed, n_permutations, alpha)
    return None if first is None else M[:, first].toarray().ravel()


def _first_significant(M: sp.spmatrix, t: np.ndarray, p: np.ndarray, seed: int, n_permutations: int,
                       alpha: float) -> int | None:
    """The column of ``M`` ranked first among those the max-T without a penalty finds (statistical parity,
    disadvantaged side; adjusted p, then z, as the rankings order), None when none is found."""
    res = max_t(M, t, p, n_permutations, random_state=seed, penalty=False, tests=(0,))
    p_adj, stat = res.p_adjusted[:, 0, 0], res.statistic(0, 0)
    sig = np.flatnonzero(p_adj <= alpha)
    return int(sig[np.lexsort((-stat[sig], p_adj[sig]))[0]]) if len(sig) else None


def split_first(X: pd.DataFrame, t: np.ndarray, p: np.ndarray, seed: int, n_permutations: int = 200,
                alpha: float = 0.05) -> np.ndarray | None:
    """Rows of the first finding of the split selection: the default models fitted on every row's features (they
    read no outcome), the model with the largest fairness validation index on a random half A of the rows
    selected, and only its clusters tested on the other half B (max-T without a penalty over B's rows: the
    selection saw none of B's outcomes, so the test keeps its level); the finding's rows are its cluster's rows in
    the whole table."""
    from aif360_subjective.detectors.asdf.validated import fairness_validation_index, run_validated_clusterings

    rng = np.random.default_rng(seed)
    v = run_validated_clusterings(X, [c for c in X.columns if X[c].dtype.kind != "f"], None,
                                  (t == 1, p == 1, None), "statistical_parity", rng)
    half = rng.random(len(X)) < 0.5
    fvi = fairness_validation_index([lab[half] for lab in v.family.labels], t[half] == 1, p[half] == 1)
    labels = np.asarray(v.family.labels[int(np.nanargmax(fvi["fairness_index"].to_numpy(dtype=float)))])
    ids, code = np.unique(labels, return_inverse=True)
    M = sp.csc_matrix((np.ones(len(X), dtype=bool), (np.arange(len(X)), code)), shape=(len(X), len(ids)))
    first = _first_significant(M[~half], t[~half], p[~half], seed, n_permutations, alpha)
    return None if first is None else M[:, first].toarray().ravel()


def first_rows(rep, kind: str) -> np.ndarray | None:
    """Rows of the first significant subgroup of ``kind`` by statistical parity (None when none)."""
    from slice_finders import _members_of_first

    rk = rep.ranking("statistical_parity", kind=kind, n=1)
    return _members_of_first(rep, rk, kind) if len(rk) else None


def jaccard(a: np.ndarray | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float((a & b).sum() / max((a | b).sum(), 1))


def run_table(shape: str, seed: int, modes: tuple[str, ...] = ("seed", "validated"),
              models: list[str] | None = None, n_numeric: int = 8) -> dict[str, float]:
    """Jaccard of each method's first finding with the planted rows (null: 1 when something is reported); the
    methods of ``modes`` only (the others NaN)."""
    X, t, p, planted = planted_table(shape, seed=seed, n_numeric=n_numeric)
    reports, firsts = {}, {}
    secs = dict.fromkeys(MODES, float("nan"))
    for mode in modes:
        start = time.perf_counter()
        if mode in ("baseline", "split"):
            firsts[mode] = (baseline_first if mode == "baseline" else split_first)(X, t, p, seed)
        else:
            extra = {"clustering_models": models} if mode == "validated" and models else {}
            reports[mode] = detect_subgroups(X, t, p, clusterings=mode, random_state=seed, **extra)
        secs[mode] = time.perf_counter() - start
    out: dict[str, float | str] = {}
    for name, mode, kind in METHODS:
        if mode not in modes:
            out[name] = float("nan")
            continue
        rows = firsts[mode] if mode in firsts else first_rows(reports[mode], kind)
        out[name] = float(rows is not None) if shape == "null" else jaccard(rows, planted)
    for mode in MODES:
        out[f"seconds {mode}"] = secs[mode]
    if "validated" in reports:
        cv = reports["validated"].cluster_validation()
        out["selected"] = str(cv.loc[cv["selected"], ["algorithm", "features", "k"]].iloc[0].to_dict())
    return out


def adult_timing(root: Path, models: list[str] | None = None) -> None:
    """Adult's seconds: today's ASDF analysis against the validated clusterings alone (``models``: their
    ``clustering_models``, None the package's default), and the model chosen."""
    from subgroups import load_adult

    from aif360_subjective.detectors.asdf.validated import run_validated_clusterings
    from aif360_subjective.detectors.encoding import detect_categorical

    X, y, yhat, _, _ = load_adult(root)
    start = time.perf_counter()
    detect_subgroups(X, y, yhat, discovery="asdf", random_state=0)
    seed_secs = time.perf_counter() - start
    start = time.perf_counter()
    v = run_validated_clusterings(X, detect_categorical(X), models, (y == 1, yhat == 1, None), "statistical_parity",
                                  np.random.default_rng(0))
    val_secs = time.perf_counter() - start
    cv = v.table
    print("\n## Adult (48,842 rows): seconds (wall clock, shared machine)")
    print("| what | seconds |")
    print("|---|---|")
    print(f"| today's ASDF (discovery='asdf': SLINK + x-means on a 10,000-row sample, entropy patterns, metrics) "
          f"| {seed_secs:.1f} |")
    print(f"| validated clusterings alone ({len(cv)} {'default' if models is None else '+'.join(models)} models) "
          f"| {val_secs:.1f} |")
    print(f"| ratio | {val_secs / seed_secs:.2f} |")
    print(f"\nchosen on Adult: {v.why()}")


def _critical(z_perm: np.ndarray, offset: np.ndarray, q: float = 0.95) -> float:
    """The max-T critical value: the ``q`` quantile over permutations of the candidates' largest ``z - offset``."""
    s = np.where(np.isfinite(z_perm), z_perm - offset[:, None], -np.inf)
    return float(np.quantile(s.max(axis=0), q))


def _parity_z(counts: np.ndarray, sizes: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Statistical parity's hypergeometric z of (m, b) favourable counts, positive = served worse."""
    N, P = len(p), float(p.sum())
    sd = np.sqrt(sizes * (N - sizes) * P * (N - P) / (N ** 2 * (N - 1)))[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = (sizes[:, None] * P / N - counts) / sd
    return out


def _best_and_critical(counter, planted: np.ndarray, p: np.ndarray, perms: np.ndarray, offset: np.ndarray,
                       among: np.ndarray) -> tuple[int, float, float, float]:
    """Of the candidates ``among``: the one with the largest Jaccard with the planted rows, its Jaccard and z; and
    the max-T critical value of every candidate (the same permutations ``perms``)."""
    sizes = counter.count(np.ones((len(p), 1)))[:, 0]
    inside = counter.count(planted[:, None].astype(np.float64))[:, 0]
    jac = inside / (sizes + planted.sum() - inside)
    z = _parity_z(counter.count(p[:, None].astype(np.float64)), sizes, p)[:, 0]
    best = int(among[np.argmax(jac[among])])
    return best, float(jac[best]), float(z[best]), _critical(_parity_z(counter.count(perms), sizes, p), offset)


def diagnose(seeds: list[int], n_numeric: int, n_permutations: int = 200) -> None:
    """Per blob table: the candidate nearest the planted rows (largest Jaccard) and its z under the validated
    clusterings and under the issue's baseline, and each method's max-T critical value (statistical parity,
    disadvantaged side; ours: ``z - sqrt(2 ln K)`` over every candidate of the report, K the candidates of its
    description class, so a cluster of a k-model needs ``z > critical + sqrt(2 ln k)``)."""
    from aif360_subjective.detectors.error_control.counters import MemberCounter

    print("| table | planted rows | ours: nearest cluster (Jaccard, z) | ours: z it needs (critical + offset) "
          "| ours: critical without the validated | baseline: nearest (Jaccard, z) | baseline: critical z |")
    print("|---|---|---|---|---|---|---|")
    for seed in seeds:
        X, t, p, planted = planted_table("blob", seed=seed, n_numeric=n_numeric)
        rng = np.random.default_rng(10_000 + seed)
        perms = p[rng.permuted(np.tile(np.arange(len(p)), (n_permutations, 1)), axis=1).T].astype(np.float64)
        rep = detect_subgroups(X, t, p, clusterings="validated", random_state=seed)
        c = rep.candidates
        off = class_offsets(c.description_classes())
        b, jac, z, crit = _best_and_critical(c.counter(), planted, p, perms, off, c.positions("validated"))
        rest = np.flatnonzero(np.isin(np.arange(len(off)), c.positions("validated"), invert=True))
        sub = c.counter()
        rest_crit = _critical(_parity_z(sub.count(perms)[rest], sub.count(np.ones((len(p), 1)))[rest, 0], p),
                              off[rest])
        M = baseline_members(X, seed)
        bb, bjac, bz, bcrit = _best_and_critical(MemberCounter(M), planted, p, perms, np.zeros(M.shape[1]),
                                                 np.arange(M.shape[1]))
        print(f"| {seed} | {int(planted.sum())} | {c.descriptions()[b]} ({jac:.2f}, {z:.2f}) | "
              f"{crit + off[b]:.2f} ({crit:.2f} + {off[b]:.2f}) | {rest_crit:.2f} | ({bjac:.2f}, {bz:.2f}) | "
              f"{bcrit:.2f} |", flush=True)


def lever_models(lever: str) -> list[Any] | None:
    """The ``clustering_models`` of a lever: ``"default"`` None (the package's default models); otherwise
    algorithms joined by ``+``, each ``ALGORITHM[@VIEW,...][/K,...]``: its default views and ks, or the views
    (``numeric``, ``pairs``, ``triples``, ``encoded``) and ks named (``gmm_core@pairs,triples/5,10``)."""
    if lever == "default":
        return None
    out: list[Any] = []
    for part in lever.split("+"):
        algo, _, ks_text = part.partition("/")
        algo, _, views_text = algo.partition("@")
        ks: list[int] | None = [int(k) for k in ks_text.split(",")] if ks_text else None
        if not views_text and ks is None:
            out.append(algo)
            continue
        out.extend((algo, view, ks) for view in (views_text.split(",") if views_text else ["numeric", "pairs"]))
    return out


def _blob_columns(X: pd.DataFrame, planted: np.ndarray) -> list[str]:
    """The numeric columns the dense region is tight in (its rows' standard deviation below 0.3, the others' 1)."""
    return [c for c in X.columns if X[c].dtype.kind == "f" and X.loc[planted, c].std() < 0.3]


def oracle_jaccard(X: pd.DataFrame, planted: np.ndarray) -> tuple[float, float]:
    """The Jaccard a region of the features can reach on a ``dense`` table: the rows whose oracle posterior of the
    planted Gaussian (its centre and standard deviation as the planted rows show them, against the standard normal
    of the other rows, in the region's columns) is at least a level, at the best of the levels 0.05, 0.10, ..., 0.95;
    returns (that Jaccard, its level). The region's rows and the others are alike in every other column, so no
    candidate of the features can be expected to beat it: a table whose ceiling is below 0.5 cannot be found."""
    from scipy.stats import norm

    cols = _blob_columns(X, planted)
    Z = X[cols].to_numpy()
    mu = Z[planted].mean(axis=0)
    sd = float((Z[planted] - mu).std())
    log_ratio = (norm.logpdf(Z, mu, sd).sum(axis=1) + np.log(planted.sum())
                 - norm.logpdf(Z).sum(axis=1) - np.log((~planted).sum()))
    post = 1.0 / (1.0 + np.exp(-np.clip(log_ratio, -700, 700)))
    levels = np.round(np.arange(1, 20) * 0.05, 2)
    jac = [jaccard(post >= q, planted) for q in levels]
    return float(max(jac)), float(levels[int(np.argmax(jac))])


def ceilings(tables: int, table_start: int, n_numeric: int) -> None:
    """Per ``dense`` table (seeds ``3000 + table_start`` on), its planted rows and columns and the Jaccard a region
    of the features can reach (:func:`oracle_jaccard`): no analysis is run."""
    print("| table | planted rows | columns | oracle ceiling (Jaccard) | at posterior |")
    print("|---|---|---|---|---|")
    for seed in range(1000 * SHAPES.index("dense") + table_start, 1000 * SHAPES.index("dense") + table_start + tables):
        X, _, _, planted = planted_table("dense", seed=seed, n_numeric=n_numeric)
        ceiling, level = oracle_jaccard(X, planted)
        print(f"| {seed} | {int(planted.sum())} | {', '.join(_blob_columns(X, planted))} | {ceiling:.3f} | "
              f"{level:.2f} |")


def explain_row(rep: Any, planted: np.ndarray, X: pd.DataFrame, p: np.ndarray, alpha: float = 0.05) -> str:
    """One table's diagnosis: the validated candidate nearest the planted rows (description, Jaccard, z, penalised
    statistic, adjusted p, significant), and the first finding under ``kind="all"`` and ``kind="validated"``
    (kind, description, Jaccard, z, statistic, p); the statistic a candidate needs lies between the largest of
    the non-significant ones and the smallest of the significant ones (statistical parity, disadvantaged side)."""
    sig = rep.significance
    c = sig.candidates
    test_no = sig.metrics.metric_test["statistical_parity"]
    mt = sig.max_t((test_no,))
    z, stat, padj = mt.z[:, test_no], mt.statistic(test_no, 0), mt.p_adjusted[:, test_no, 0]
    counter = c.counter()
    sizes = counter.count(np.ones((len(p), 1)))[:, 0]
    inside = counter.count(planted[:, None].astype(np.float64))[:, 0]
    jac = inside / (sizes + planted.sum() - inside)
    kinds = np.asarray(c.index().get_level_values("kind"))
    desc = c.descriptions()
    among = c.positions("validated")
    near = int(among[np.argmax(jac[among])])
    with np.errstate(invalid="ignore"):
        sig_mask = padj < alpha
    below = stat[~sig_mask & np.isfinite(stat)]
    above = stat[sig_mask & np.isfinite(stat)]
    need = f"needs {below.max() if len(below) else float('nan'):.2f}..{above.min() if len(above) else float('nan'):.2f}"

    def cand(i: int) -> str:
        return (f"{kinds[i]} '{desc[i]}' (J={jac[i]:.2f}, n={int(sizes[i])}, z={z[i]:.2f}, stat={stat[i]:.2f}, "
                f"p={padj[i]:.3f}{', significant' if sig_mask[i] else ''})")

    firsts = []
    for kind in ("all", "validated"):
        rk = rep.ranking("statistical_parity", kind=kind, n=1)
        if not len(rk):
            firsts.append(f"first {kind}: none")
            continue
        key = rk.index[0] if kind == "all" else (kind, rk.index[0])
        pos = int(c.positions(key[0])[c.position(key[0], key[1])])
        firsts.append(f"first {kind}: {cand(pos)}")
    cols = _blob_columns(X, planted)
    ceiling, level = oracle_jaccard(X, planted)
    return (f"planted {int(planted.sum())} rows in {len(cols)} columns {cols} (oracle ceiling J={ceiling:.3f} at "
            f"posterior {level:.2f}); nearest validated: {cand(near)}; "
            + "; ".join(firsts) + f"; {need}; {len(among)} validated of {len(stat)} candidates")


def lever_row(shape: str, seed: int, lever: str, n_numeric: int, explain: bool = False) -> dict[str, float]:
    """One table under one lever (``clustering_models=lever_models(lever)``; ``"default"``: the package's default
    models; ``"kmeans+hdbscan"``: both algorithms' models in the one family; ``gmm_core@triples/5,10``: views and
    ks named, :func:`lever_models`):
    the validated candidate nearest the planted rows (largest Jaccard) and its statistical parity z, the Jaccard of
    the first finding of kind ``"validated"`` and of kind ``"all"`` (null tables: 1 when anything is reported), the
    validated candidates and the seconds of the analysis; with ``explain`` the table's diagnosis
    (:func:`explain_row`) goes to the standard output."""
    X, t, p, planted = planted_table(shape, seed=seed, n_numeric=n_numeric)
    start = time.perf_counter()
    rep = detect_subgroups(X, t, p, clusterings="validated", random_state=seed, clustering_models=lever_models(lever))
    if SAVE_REPORTS is not None:
        with open(SAVE_REPORTS / f"{seed}.pkl", "wb") as fh:
            pickle.dump(rep, fh)
    out = {"validated": first_rows(rep, "validated"), "all": first_rows(rep, "all")}
    secs = time.perf_counter() - start
    if shape == "null":
        return {"all": float(out["all"] is not None), "validated": float(out["validated"] is not None),
                "seconds": secs}
    if explain:
        print(f"  {shape} {lever} table {seed}: {explain_row(rep, planted, X, p)}", flush=True)
    c = rep.candidates
    among = c.positions("validated")
    counter = c.counter()
    sizes = counter.count(np.ones((len(p), 1)))[among, 0]
    inside = counter.count(planted[:, None].astype(np.float64))[among, 0]
    jac = inside / (sizes + planted.sum() - inside)
    z = _parity_z(counter.count(p[:, None].astype(np.float64))[among], sizes, p)[:, 0]
    b = int(np.argmax(jac))
    return {"best J": float(jac[b]), "best z": float(z[b]), "validated": jaccard(out["validated"], planted),
            "all": jaccard(out["all"], planted), "candidates": float(len(among)), "seconds": secs}


def levers(levers_: list[str], shapes: list[str], tables: int, null: int, n_numeric: int, null_start: int = 0,
           table_start: int = 0, explain: bool = False) -> None:
    """The levers side by side on the same tables: per shape and lever, the mean over tables of the nearest
    validated candidate's Jaccard and z, the tables whose first finding (kind ``"validated"``, kind ``"all"``)
    describes the planted rows, and on null tables (``null_start`` onwards) how many report anything (see
    :func:`lever_row`); planted tables from ``table_start`` on (a second block of seeds), with ``explain`` each
    planted table's diagnosis (:func:`explain_row`)."""
    print(f"## Levers ({n_numeric} numeric columns): nearest validated candidate (mean Jaccard, mean z), first "
          "finding describes the planted rows (Jaccard >= 0.5), k of n tables")
    print("| shape | lever | nearest: mean Jaccard | nearest: mean z | first (validated) | first (all) "
          "| validated candidates | s/table |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in [*shapes, "null"]:
        count = null if shape == "null" else tables
        for lever in levers_:
            if count == 0:
                continue
            res = []
            for seed in range(count):
                r = lever_row(shape, 9000 + null_start + seed if shape == "null"
                              else 1000 * SHAPES.index(shape) + table_start + seed, lever, n_numeric, explain)
                print(f"{shape} {lever} {seed}: " + ", ".join(f"{k}={v:.2f}" for k, v in r.items()), file=sys.stderr,
                      flush=True)
                res.append(r)
            df = pd.DataFrame(res)
            if shape == "null":
                print(f"| null | {lever} | - | - | {int(df['validated'].sum())}/{count} report | "
                      f"{int(df['all'].sum())}/{count} report | - | {df['seconds'].mean():.1f} |", flush=True)
            else:
                print(f"| {shape} | {lever} | {df['best J'].mean():.2f} | {df['best z'].mean():.2f} | "
                      f"{int((df['validated'] >= 0.5).sum())}/{count} | {int((df['all'] >= 0.5).sum())}/{count} | "
                      f"{df['candidates'].mean():.0f} | {df['seconds'].mean():.1f} |", flush=True)


#: Where :func:`lever_row` pickles each report (``--save-reports``); None: not saved.
SAVE_REPORTS: Path | None = None


def rerank(folder: Path) -> None:
    """The first finding under ``kind="all"`` of every report saved in ``folder`` (``<seed>.pkl``, by
    ``--save-reports``), ranked again by the code as it is: per table its description and Jaccard with the
    planted rows (null tables, seeds from 9000: whether anything is reported), then per block of ten seeds how
    many first findings describe the planted rows (Jaccard >= 0.5) or how many null tables report anything."""
    seeds = sorted(int(f.stem) for f in folder.glob("*.pkl"))
    print("| table | first finding (kind='all') | Jaccard |")
    print("|---|---|---|")
    found: dict[str, list[bool]] = {}
    for seed in seeds:
        with open(folder / f"{seed}.pkl", "rb") as fh:
            rep = pickle.load(fh)  # noqa: S301 - the benchmark's own files
        rk = rep.ranking("statistical_parity", kind="all", n=1)
        first = rk["subgroup"].iloc[0] if len(rk) else "none"
        block = f"{seed // 10 * 10}-{seed // 10 * 10 + 9}"
        if seed >= 9000:
            found.setdefault(f"null {block}", []).append(len(rk) > 0)
            print(f"| {seed} | {first} | - |")
            continue
        _, _, _, planted = planted_table(SHAPES[seed // 1000], n=rep.candidates.n_rows, seed=seed)
        jac = jaccard(first_rows(rep, "all"), planted)
        found.setdefault(f"{SHAPES[seed // 1000]} {block}", []).append(jac >= 0.5)
        print(f"| {seed} | {first} | {jac:.2f} |", flush=True)
    for block, hits in found.items():
        print(f"{block}: {sum(hits)}/{len(hits)} {'report' if block.startswith('null') else 'first'}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--null", type=int, default=40)
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=SHAPES)
    ap.add_argument("--numeric", type=int, default=8, help="numeric columns of the tables (3: the issue's tables)")
    ap.add_argument("--null-modes", nargs="+", default=["seed", "validated"], choices=MODES,
                    help="the analyses run on null tables (validated alone halves the time)")
    ap.add_argument("--planted-modes", nargs="+", default=["seed", "validated"], choices=MODES,
                    help="the analyses run on planted tables (validated alone: the seed's columns are not run; "
                         "baseline: the issue's k-means baseline)")
    ap.add_argument("--models", nargs="+", default=None, help="clustering_models of the validated analysis, "
                    "algorithm names (default: the package's default models)")
    ap.add_argument("--diagnose", nargs="+", type=int, default=None, metavar="SEED",
                    help="only the diagnosis of these blob tables (nearest cluster's z, critical values)")
    ap.add_argument("--levers", nargs="+", default=None, metavar="ALGORITHM",
                    help="only the levers' comparison (lever_row): these clustering_models, one at a time "
                         "('default': the package's default models), on --shapes, --tables and --null tables")
    ap.add_argument("--null-start", type=int, default=0, help="with --levers: the first null table (its seed "
                    "9000 + it), to add null tables to an earlier run")
    ap.add_argument("--table-start", type=int, default=0, help="with --levers: the first planted table (its seed "
                    "1000 * shape + it), e.g. 10 for a second block of 10 seeds")
    ap.add_argument("--explain", action="store_true", help="with --levers: per planted table, the validated candidate "
                    "nearest the planted rows (Jaccard, z, statistic, adjusted p) and the first finding under "
                    "kind='all' and kind='validated' (kind, description, z)")
    ap.add_argument("--core-posterior", type=float, default=None, help="the least posterior of a gmm_core core's "
                    "row (the module's CORE_POSTERIOR, 0.5, set for this run)")
    ap.add_argument("--ceiling", action="store_true", help="only the oracle ceiling of the dense tables "
                    "(--tables from --table-start): the Jaccard a region of the features can reach")
    ap.add_argument("--save-reports", type=Path, default=None, metavar="DIR", help="with --levers: pickle each "
                    "table's report as DIR/<seed>.pkl (for --rerank)")
    ap.add_argument("--rerank", type=Path, default=None, metavar="DIR", help="only the first finding under "
                    "kind='all' of the reports saved in DIR, ranked again by the code as it is")
    ap.add_argument("--adult", action="store_true")
    ap.add_argument("--skip-planted", action="store_true")
    ap.add_argument("--data", default=None)
    args = ap.parse_args(argv)
    if args.diagnose is not None:
        diagnose(args.diagnose, args.numeric)
        return
    if args.core_posterior is not None:
        from aif360_subjective.detectors.asdf import validated_models

        validated_models.CORE_POSTERIOR = args.core_posterior
    if args.rerank is not None:
        rerank(args.rerank)
        return
    if args.save_reports is not None:
        global SAVE_REPORTS
        args.save_reports.mkdir(parents=True, exist_ok=True)
        SAVE_REPORTS = args.save_reports
    if args.ceiling:
        ceilings(args.tables, args.table_start, args.numeric)
        return
    if args.levers is not None:
        levers(args.levers, args.shapes, args.tables, args.null, args.numeric, args.null_start, args.table_start,
               args.explain)
        return
    if not args.skip_planted:
        names = [m[0] for m in METHODS]
        print(f"## Planted rows ({args.numeric} numeric columns): first finding by statistical parity describes "
              "them (Jaccard >= 0.5), k of n tables")
        print("| shape | " + " | ".join(names) + " | " + " | ".join(f"s/table {m}" for m in MODES) + " |")
        print("|---|" + "---|" * (len(names) + len(MODES)))
        for shape in [*args.shapes, "null"]:
            if shape != "null" and args.tables == 0:
                continue
            count = args.null if shape == "null" else args.tables
            if count == 0:
                continue
            res = []
            for seed in range(count):
                modes = tuple(args.null_modes if shape == "null" else args.planted_modes)
                r = run_table(shape, 1000 * SHAPES.index(shape) + seed if shape != "null" else 9000 + seed, modes,
                              args.models, args.numeric)
                print(f"{shape} {seed}: " + ", ".join(f"{k}={v if isinstance(v, str) else round(v, 2)}"
                                                       for k, v in r.items()), file=sys.stderr, flush=True)
                res.append(r)
            df = pd.DataFrame(res)
            if shape == "null":
                cells = [f"{int(df[m].sum())}/{count} report" if df[m].notna().all() else "not run" for m in names]
            else:
                cells = [f"{int((df[m] >= 0.5).sum())}/{count}" if df[m].notna().all() else "not run" for m in names]
            print(f"| {shape} | " + " | ".join(cells) + " | "
                  + " | ".join(f"{df[f'seconds {m}'].mean():.1f}" for m in MODES) + " |", flush=True)
    if args.adult:
        root = Path(args.data or os.environ.get("AIF360_SUBJECTIVE_DATA") or HERE.parent.parent / "shared" / "data")
        adult_timing(root, args.models)


if __name__ == "__main__":
    main()
