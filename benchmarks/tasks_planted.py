"""Planted slices for multi-class, ordinal and regression models, beside the peers that take such errors.

Tables: the features of :func:`~aif360_subjective.datasets.make_planted_slice` (5,000 rows, 6 categorical
columns of 4 levels, 2 numeric; the planted slice is ``cat0 = a and cat1 = a``, ``--share`` 9 % of the rows in
expectation), with outcomes drawn per task:

* ``regression``: truth N(0, 1), prediction = truth + N(0, 1) noise, the noise doubled in the slice (absolute
  error x 2);
* ``multiclass``: 3 classes, truth uniform; the prediction is one of the two other classes with probability
  0.15, 0.35 in the slice;
* ``ordinal``: ratings 1-5, truth uniform; the prediction is one level off (up or down, kept on the scale) with
  probability 0.25, 0.5 in the slice;
* each with ``effect 0`` (the slice's rates equal the others'): null tables.

Ours: ``detect_subgroups(X, y_true, y_pred, task=...)`` when it takes ``task`` (else the max-T of
:func:`~aif360_subjective.detectors.error_control.continuous.max_t_means` over the default mined patterns), the task's
error
metric (mean absolute error; accuracy error for multi-class), disadvantaged; "found first" = the first finding
(smallest global adjusted p, then largest statistic) has Jaccard >= 0.5 with the planted rows; on null tables,
"reports something" = any finding. Peers (when installed): SliceLine (``k=1``, ``alpha=0.99``, ``max_l=3``,
errors = the per-row error: absolute error, or 0/1) and DivExplorer (``min_support=0.01``, the error as a
quantitative outcome, best t >= 2), on the table with numeric columns in 5 quantile bins.

Size: a null rate of at most 5 % can only be shown on enough tables, so ``--null`` defaults to 200 per task; the
rate is printed with its Wilson 95 % interval, whose upper bound is the figure to hold against 5 %. The peers
run on the planted tables and on the first ``--peer-null`` (20) null tables only: they report something on
nearly every null table (no error control), which 20 tables show.

Usage: ``python benchmarks/tasks_planted.py [--seeds 10] [--null 200] [--peer-null 20] [--tasks regression,...]``
(``--null 200`` takes about an hour per task on two free cores); peers need ``pip install sliceline divexplorer``
(or ``PYTHONPATH`` to a folder holding them).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slice_finders import conditions_mask, discretise  # noqa: E402

from aif360_subjective.datasets import make_planted_slice  # noqa: E402
from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.detectors.detect import mine  # noqa: E402
from aif360_subjective.detectors.error_control.continuous import max_t_means  # noqa: E402
from aif360_subjective.detectors.error_control.maxt import class_offsets  # noqa: E402
from aif360_subjective.detectors.error_control.resampling import canonical_order, row_keys  # noqa: E402
from aif360_subjective.detectors.options import check_analysis_options  # noqa: E402
from aif360_subjective.detectors.tasks import outcome_columns, resolve_task  # noqa: E402

TASKS = ("regression", "multiclass", "ordinal")
ERROR_METRIC = {"regression": "mean_absolute_error", "multiclass": "accuracy_error",
                "ordinal": "mean_absolute_error"}


def table(task: str, seed: int, effect: bool, share: float = 0.09):
    """(X, y_true, y_pred, planted)."""
    b = make_planted_slice(n_samples=5000, n_conditions=2, planted_share=share, effect=0.0, random_state=seed)
    rng = np.random.default_rng(10_000 + seed)
    s = b.planted & effect
    n = len(b.X)
    if task == "regression":
        y = rng.normal(size=n)
        return b.X, y, y + np.where(s, 2.0, 1.0) * rng.normal(size=n), b.planted
    if task == "multiclass":
        y = rng.integers(0, 3, n)
        wrong = rng.random(n) < np.where(s, 0.35, 0.15)
        other = (y + rng.integers(1, 3, n)) % 3
        return b.X, np.array(["cat", "dog", "owl"])[y], np.array(["cat", "dog", "owl"])[np.where(wrong, other, y)], \
            b.planted
    y = rng.integers(1, 6, n)
    off = rng.random(n) < np.where(s, 0.5, 0.25)
    step = np.where(rng.random(n) < 0.5, -1, 1)
    step = np.where(y + step < 1, 1, np.where(y + step > 5, -1, step))  # stay on the scale
    return b.X, y, np.where(off, y + step, y), b.planted


def _error(task: str, y, yhat) -> np.ndarray:
    if task == "multiclass":
        return (np.asarray(y) != np.asarray(yhat)).astype(np.float64)
    return np.abs(np.asarray(yhat, dtype=np.float64) - np.asarray(y, dtype=np.float64))


def _jaccard(a: np.ndarray | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float((a & b).sum() / max((a | b).sum(), 1))


def run_ours(task: str, X, y, yhat, seed: int) -> tuple[bool, np.ndarray | None, float]:
    """(reports anything, rows of the first error-metric finding, seconds)."""
    t0 = time.perf_counter()
    if "task" in inspect.signature(detect_subgroups).parameters:
        rep = detect_subgroups(X, y, yhat, task=task, random_state=seed)
        f = rep.findings(0.05)
        err = f[(f["metric"] == ERROR_METRIC[task]) & (f["direction"] == "disadvantaged")]
        rows = np.asarray(rep.members(err["kind"].iloc[0], err["id"].iloc[0]), dtype=bool) if len(err) else None
        return len(f) > 0, rows, time.perf_counter() - t0
    opts = check_analysis_options(X)
    mp = mine(X, opts)
    is_range = np.array([isinstance(v, tuple) for v in mp.items.values], dtype=bool)
    classes = np.array([f"{len(p)}:{int(is_range[list(p)].sum())}" for p in mp.patterns], dtype=object)
    cols = outcome_columns(resolve_task(y, yhat, task), y, yhat)
    res = max_t_means(mp.counter, cols, 200, random_state=seed, penalty=class_offsets(classes),
                      order=canonical_order(row_keys(X), row_keys(X, y, yhat)))
    j = [c.metric for c in cols].index(ERROR_METRIC[task])
    pg = res.p_global[:, j, 0]
    sig = np.flatnonzero(pg < 0.05)
    rows = None
    if len(sig):
        first = sig[np.lexsort((-res.statistic(j, 0)[sig], pg[sig]))[0]]
        rows = mp.members()[:, [first]].toarray().ravel().astype(bool)
    return bool(np.nanmin(res.p_global) < 0.05), rows, time.perf_counter() - t0


def run_sliceline(D: pd.DataFrame, err: np.ndarray) -> np.ndarray | None:
    from sliceline.slicefinder import Slicefinder

    sf = Slicefinder(alpha=0.99, k=1, max_l=3, verbose=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sf.fit(D.to_numpy(), err)
    top = np.asarray(sf.top_slices_, dtype=object)
    if top.size == 0:
        return None
    return conditions_mask(D, {c: v for c, v in zip(D.columns, top[0], strict=True) if v is not None})


def run_divexplorer(D: pd.DataFrame, err: np.ndarray) -> np.ndarray | None:
    from divexplorer import DivergenceExplorer

    df = D.reset_index(drop=True).copy()
    df["_err"] = err
    res = DivergenceExplorer(df).get_pattern_divergence(min_support=0.01, quantitative_outcomes=["_err"])
    res = res[(res["length"] > 0) & (res["_err_div"] > 0)]
    if res.empty:
        return None
    best = res.loc[res["_err_t"].idxmax()]
    if not best["_err_t"] >= 2:
        return None
    return conditions_mask(D, dict(item.split("=", 1) for item in best["itemset"]))


def interval(k: int, n: int) -> str:
    """``k/n (rate, [Clopper-Pearson 95 % interval])``."""
    if n == 0:
        return "-"
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} ({100 * k / n:.0f} %, [{100 * lo:.0f}, {100 * hi:.0f}])"


def wilson_upper(k: int, n: int, z: float = 1.959963984540054) -> float:
    """Upper end of the Wilson score interval (95 %, two-sided) of a rate k / n."""
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return float((centre + half) / (1 + z * z / n))


def null_rate(k: int, n: int) -> str:
    """``k/n (rate, Wilson upper bound)``: the size figure."""
    if n == 0:
        return "-"
    return f"{k}/{n} ({100 * k / n:.1f} %, Wilson upper {100 * wilson_upper(k, n):.1f} %)"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="planted tables per task (default 10)")
    ap.add_argument("--null", type=int, default=200, help="null tables per task (default 200)")
    ap.add_argument("--peer-null", type=int, default=20, help="null tables the peers run on (default 20)")
    ap.add_argument("--tasks", default=",".join(TASKS), help="comma-separated tasks (default all three)")
    ap.add_argument("--share", type=float, default=0.09)
    args = ap.parse_args(argv)
    tasks = [t for t in args.tasks.split(",") if t]
    if not set(tasks) <= set(TASKS):
        ap.error(f"--tasks takes {', '.join(TASKS)}, got {args.tasks!r}")
    peers = {name: fn for name, mod, fn in (("SliceLine", "sliceline", run_sliceline),
                                            ("DivExplorer", "divexplorer", run_divexplorer))
             if importlib.util.find_spec(mod) is not None}
    peer_null = min(args.peer_null, args.null)
    print(f"# Planted slices by task ({args.seeds} planted and {args.null} null tables per task, peers on "
          f"{peer_null} of the null tables; 5,000 rows, slice {100 * args.share:.0f} % in expectation); peers: "
          f"{', '.join(peers) or 'none installed'}")
    print("| task | method | planted slice found first | null tables reporting something | seconds per table |")
    print("|---|---|---|---|---|")
    for task in tasks:
        found = {"ours": 0, **{p: 0 for p in peers}}
        null = dict.fromkeys(found, 0)
        secs = dict.fromkeys(found, 0.0)
        tables = dict.fromkeys(found, 0)
        for effect, seeds in ((True, range(args.seeds)), (False, range(1000, 1000 + args.null))):
            for seed in seeds:
                X, y, yhat, planted = table(task, seed, effect, args.share)
                any_hit, rows, sec = run_ours(task, X, y, yhat, seed)
                secs["ours"] += sec
                tables["ours"] += 1
                if effect:
                    found["ours"] += _jaccard(rows, planted) >= 0.5
                else:
                    null["ours"] += any_hit
                    done = seed - 999
                    if done % 20 == 0:  # progress on stderr: a long run stopped early still says how far it got
                        print(f"# {task}: {null['ours']}/{done} null tables reporting something so far",
                              file=sys.stderr, flush=True)
                if not effect and seed >= 1000 + peer_null:
                    continue
                D = discretise(X)
                err = _error(task, y, yhat)
                for name, fn in peers.items():
                    t0 = time.perf_counter()
                    got = fn(D, err)
                    secs[name] += time.perf_counter() - t0
                    tables[name] += 1
                    if effect:
                        found[name] += _jaccard(got, planted) >= 0.5
                    else:
                        null[name] += got is not None
        for name in found:
            n_null = args.null if name == "ours" else peer_null
            print(f"| {task} | {name} | {interval(found[name], args.seeds)} | {null_rate(null[name], n_null)} | "
                  f"{secs[name] / max(tables[name], 1):.1f} |", flush=True)


if __name__ == "__main__":
    main()
