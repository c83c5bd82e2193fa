"""Does subgroup discovery find the planted unfair subgroup, and stay silent when there is none? This package
(each ``discovery`` method) side by side with the slice finders DivExplorer, SliceLine and AIF360's MDSS.

Tables (:func:`aif360_subjective.datasets.make_planted_slice` with its defaults: 5,000 rows, 6 categorical
columns of 4 levels and 2 numeric columns uniform on [0, 1]; outside the slice the favourable-prediction (or
favourable-truth) rate is 0.5 and the accuracy 0.8):

* ``conjunction``: 2 or 3 attribute = value conditions (alternating by seed) at random columns and levels;
  the slice's favourable-prediction rate lowered (``SP``) or its error rate raised (``ER``) by 0.2, 0.1 or
  0.05;
* ``region``: a box over ``num0`` x ``num1`` at a random place (edges off the quantile cuts), shift 0.2;
* ``null``: shift 0 (truths and predictions independent of the features).

Seed ``s`` of a setting draws its table with ``random_state=s`` and the slice size
``0.02 + 0.08 * s / (seeds - 1)``: 2 % to 10 % of the rows across the seeds. Every method sees the same
table.

Per method and setting it prints (over the seeds):

* ``hit@1``: runs whose first reported subgroup has Jaccard >= 0.5 with the planted rows;
* ``precision`` / ``recall``: mean share of the first reported subgroup's rows that are planted, and of the
  planted rows that it holds (a run with nothing reported counts 0 for both);
* on null tables, ``any report``: runs with at least one reported subgroup (for this package also ``any
  finding``: the whole report's family, :meth:`SubgroupReport.findings`, where the library has it);
* ``s/table``: mean wall-clock seconds per table (discretisation included for the peers).

What "reported" and "first" mean per method (``SP`` tables look for a lower favourable-prediction rate, ``ER``
tables for a higher error rate):

* **ours** (``detect_subgroups(..., discovery=D)``, defaults otherwise, ``random_state=seed``): the ranking
  ``ranking(metric, kind="all", n=1)`` at its default ``alpha=0.05`` (``statistical_parity`` for ``SP``,
  ``accuracy_error`` for ``ER``); a library without ``discovery=`` / ``kind="all"`` runs its default analysis
  and its entropy ranking, and the method is marked ``(fallback)``.
* **DivExplorer** (``DivergenceExplorer.get_pattern_divergence``, FP-growth): outcome the favourable prediction
  (``SP``) or the error (``ER``); patterns diverging in the disadvantaged direction, ranked by DivExplorer's
  t-value; reported when t >= 2, its usual significance cut. **Changed:** ``min_support=0.01`` (the
  documented example uses 0.1, which cannot reach slices of 2-10 % of the rows; the argument has no
  default).
* **SliceLine** (``sliceline.Slicefinder``, ``k=1``, ``min_sup=10`` as documented): errors the
  unfavourable prediction (``SP``) or the misclassification (``ER``); the returned top slice, reported when
  one is returned (score > 0). **Changed:** ``alpha=0.99`` instead of 0.6: SliceLine scores a slice
  ``alpha (e_S / e - 1) - (1 - alpha) (n / |S| - 1)``, which for a 5 % slice with twice the error is
  positive only when alpha > 0.95; at 0.6 it returns no slice of that size. ``max_l=3`` instead of 4: the
  planted slices have at most 3 conditions, this package mines up to 3, and level 4 more than doubled
  SliceLine's time on these 8-column tables.
* **MDSS** (``aif360.detectors.mdss_detector.bias_scan``, Bernoulli scoring, ``num_iters=10``,
  ``penalty=1e-17``, all defaults): observations the favourable prediction (``SP``) or correctness (``ER``),
  expectations their overall mean, ``overpredicted=True`` (a subset whose observed rate is below
  expectation); the returned subset, reported when it is not empty and scores > 0. MDSS seeds numpy's global
  generator itself (``seed=0``); the benchmark restores the global state afterwards.

The peers take discrete attributes: numeric columns are cut at their quintiles (``--bins``; labels
``[lo, hi)``), the usual preprocessing of DivExplorer and SliceLine; this package takes the raw table (its
pattern miner cuts at deciles and also tries runs of up to 3 adjacent bins).

Speed rows (same process, one after the other): the default discovery of this package (``detect_subgroups``
with its defaults and the default ranking) against DivExplorer at ``min_support=0.01`` on one 20,000-row
table; the whole ``aif360-subjective subgroups`` command on Adult (48,842 rows, truth = income > 50K,
predictions of a logistic regression fitted on all rows, ``--out`` an HTML report) against DivExplorer at
``min_support=0.01`` on the same table and predictions (outcome: the favourable prediction).

Usage: ``python benchmarks/slice_finders.py [--quick | --speed-only] [--seeds 10] [--null-seeds 50] [--bins 5]
[--skip-adult] [--data DIR]``. ``--quick`` runs 3 seeds of 4 settings and no Adult (6.5 minutes wall,
1.5 CPU minutes, on a loaded 2-core machine).
The peers come with ``pip install aif360-subjective[bench]``; a missing peer is named and skipped.

References:
    E. Pastor, L. de Alfaro and E. Baralis, "Looking for Trouble: Analyzing Classifier Behavior via Pattern
    Divergence", SIGMOD 2021 (DivExplorer). S. Sagadeeva and M. Boehm, "SliceLine: Fast, Linear-Algebra-based
    Slice Finding for ML Model Debugging", SIGMOD 2021. Z. Zhang and D. B. Neill, "Identifying Significant
    Predictive Bias in Classifiers", 2016 (MDSS). P. H. Westfall and S. S. Young, "Resampling-Based Multiple
    Testing", 1993.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import logging
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aif360_subjective.datasets import make_planted_slice  # noqa: E402
from aif360_subjective.detectors import detect_subgroups  # noqa: E402

#: Outcome of the table -> the ranking metric of this package.
OUR_METRIC = {"SP": "statistical_parity", "ER": "accuracy_error"}
OUTCOME = {"SP": "statistical_parity", "ER": "error_rate"}
DISCOVERIES = ("asdf", "patterns", "both")
HIT_JACCARD = 0.5


# ------------------------------------------------------------------ metric helpers (tested without the peers)
def _mask(name: str, value, n: int | None = None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype != bool or arr.ndim != 1:
        raise TypeError(f"{name} must be a 1-d boolean mask, got dtype {arr.dtype} with shape {arr.shape}")
    if n is not None and len(arr) != n:
        raise ValueError(f"{name} has {len(arr)} rows, expected {n} (as the planted mask)")
    return arr


def jaccard(found, planted) -> float:
    """Jaccard index ``|A & B| / |A | B|`` of two boolean row masks (1.0 when both are empty).

    Raises:
        TypeError: a mask that is not a 1-d boolean array.
        ValueError: masks of different lengths.
    """
    b = _mask("planted", planted)
    a = _mask("found", found, len(b))
    union = int(np.count_nonzero(a | b))
    return 1.0 if union == 0 else int(np.count_nonzero(a & b)) / union


def top1_scores(found, planted, threshold: float = HIT_JACCARD) -> dict:
    """Hit, Jaccard, precision and recall of the first reported subgroup against the planted rows.

    Args:
        found: boolean mask of the first reported subgroup, or ``None`` when the method reported nothing.
        planted: boolean mask of the planted rows.
        threshold: Jaccard needed for a hit (default 0.5).

    Returns:
        dict: ``hit`` (Jaccard >= threshold), ``jaccard``, ``precision`` (share of the found rows that are
        planted) and ``recall`` (share of the planted rows found); all 0 when nothing was reported, precision
        0 for an empty subgroup, recall NaN when nothing is planted.

    Raises:
        TypeError, ValueError: as :func:`jaccard`.
    """
    b = _mask("planted", planted)
    if found is None:
        return {"hit": False, "jaccard": 0.0, "precision": 0.0, "recall": 0.0 if b.any() else float("nan")}
    a = _mask("found", found, len(b))
    inter = int(np.count_nonzero(a & b))
    j = jaccard(a, b)
    return {
        "hit": bool(j >= threshold),
        "jaccard": j,
        "precision": inter / int(a.sum()) if a.any() else 0.0,
        "recall": inter / int(b.sum()) if b.any() else float("nan"),
    }


def hit_at_1(found_masks, planted_masks, threshold: float = HIT_JACCARD) -> int:
    """Number of runs whose first reported subgroup (``None``: nothing reported) hits the planted rows."""
    return sum(top1_scores(f, p, threshold)["hit"] for f, p in zip(found_masks, planted_masks, strict=True))


def quantile_bins(values, bins: int = 5) -> np.ndarray:
    """Cut a numeric column at its quantiles into labels ``"[lo, hi)"`` (the last bin closed ``[lo, hi]``).

    Tied quantiles (a column with few distinct values) merge into one bin.

    Raises:
        ValueError: ``bins < 2`` or missing values.
    """
    if bins < 2:
        raise ValueError(f"bins must be >= 2, got {bins}")
    x = np.asarray(values, dtype=np.float64)
    if np.isnan(x).any():
        raise ValueError(f"quantile_bins needs complete columns: {int(np.isnan(x).sum())} missing values")
    edges = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1)))
    if len(edges) == 1:
        return np.full(len(x), f"[{edges[0]:.4g}, {edges[0]:.4g}]", dtype=object)
    code = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
    labels = np.array(
        [f"[{edges[i]:.4g}, {edges[i + 1]:.4g}{']' if i == len(edges) - 2 else ')'}" for i in range(len(edges) - 1)],
        dtype=object,
    )
    return labels[code]


def discretise(X: pd.DataFrame, bins: int = 5) -> pd.DataFrame:
    """Numeric columns cut at their quantiles, the others as strings: the discrete table the peers need."""
    out = {}
    for c in X.columns:
        s = X[c]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s) and s.nunique() > bins:
            out[c] = quantile_bins(s.to_numpy(), bins)
        else:
            out[c] = s.astype(str).to_numpy(dtype=object)
    return pd.DataFrame(out, index=X.index)


def conditions_mask(D: pd.DataFrame, conditions: dict) -> np.ndarray:
    """Rows of the discrete table ``D`` meeting every ``column -> value`` (or ``column -> list of values``)."""
    mask = np.ones(len(D), dtype=bool)
    for c, v in conditions.items():
        col = D[c].to_numpy()
        mask &= np.isin(col, list(v)) if isinstance(v, list | tuple | set | frozenset) else col == v
    return mask


# ------------------------------------------------------------------ one run of one method
@dataclass
class Run:
    """What one method reported on one table."""

    found: np.ndarray | None  # rows of the first reported subgroup, None when nothing was reported
    any_report: bool
    any_finding: bool | None = None  # this package: the whole report's family (None: not available)
    seconds: float = float("nan")
    note: str = ""


def _has_kwarg(fn: Callable, name: str) -> bool:
    return name in inspect.signature(fn).parameters


def run_ours(X, y_true, y_pred, outcome: str, discovery: str | None, seed: int) -> Run:
    """This package: ``detect_subgroups`` (``discovery`` when the library has it) and its default ranking."""
    metric = OUR_METRIC[outcome]
    kwargs = {"random_state": seed}
    note = ""
    if discovery is not None:
        if _has_kwarg(detect_subgroups, "discovery"):
            kwargs["discovery"] = discovery
        else:
            note = "fallback"
    t0 = time.perf_counter()
    rep = detect_subgroups(X, y_true, y_pred, **kwargs)
    try:
        rk, kind = rep.ranking(metric, kind="all", n=1), "all"
    except ValueError:  # a library whose ranking knows only one kind at a time
        rk, kind = rep.ranking(metric, kind="entropy", n=1), "entropy"
    finding = None
    if hasattr(rep, "findings"):
        finding = len(rep.findings(0.05)) > 0
    seconds = time.perf_counter() - t0
    found = _members_of_first(rep, rk, kind) if len(rk) else None
    return Run(found, len(rk) > 0, finding, seconds, note)


def _members_of_first(rep, rk: pd.DataFrame, kind: str) -> np.ndarray:
    """Rows of the first ranked subgroup, whether the ranking's index is ``id``, ``(kind, id)`` or has a
    ``kind`` column."""
    idx = rk.index[0]
    if isinstance(idx, tuple):
        k, i = idx[0], idx[-1]
    elif "kind" in rk.columns:
        k, i = rk["kind"].iloc[0], idx
    else:
        k, i = kind, idx
    if isinstance(k, str) and "," in k:  # one row set listed once under several kinds
        k = k.split(",")[0].strip()
    return np.asarray(rep.members(k, i), dtype=bool)


def run_divexplorer(D: pd.DataFrame, y_true, y_pred, outcome: str, min_support: float = 0.01) -> Run:
    """DivExplorer: patterns diverging in the disadvantaged direction, ranked by the t-value, t >= 2 reported."""
    from divexplorer import DivergenceExplorer

    t0 = time.perf_counter()
    df = D.reset_index(drop=True).copy()
    if outcome == "SP":
        df["_outcome"], sign = np.asarray(y_pred, dtype=int), -1.0  # lower favourable rate = disadvantaged
    else:
        df["_outcome"], sign = (np.asarray(y_pred) != np.asarray(y_true)).astype(int), 1.0
    res = DivergenceExplorer(df).get_pattern_divergence(min_support=min_support, boolean_outcomes=["_outcome"])
    seconds = time.perf_counter() - t0
    res = res[(res["length"] > 0) & (sign * res["_outcome_div"] > 0)]
    if res.empty:
        return Run(None, False, seconds=seconds)
    best = res.loc[res["_outcome_t"].idxmax()]
    if not best["_outcome_t"] >= 2:
        return Run(None, False, seconds=seconds)
    conds = dict(item.split("=", 1) for item in best["itemset"])
    return Run(conditions_mask(D, conds), True, seconds=seconds)


def run_sliceline(D: pd.DataFrame, y_true, y_pred, outcome: str, alpha: float = 0.99, max_l: int = 3) -> Run:
    """SliceLine: the top slice of ``Slicefinder(alpha, k=1, max_l)`` (defaults otherwise)."""
    from sliceline.slicefinder import Slicefinder

    t0 = time.perf_counter()
    errors = (np.asarray(y_pred) == 0) if outcome == "SP" else (np.asarray(y_pred) != np.asarray(y_true))
    sf = Slicefinder(alpha=alpha, k=1, max_l=max_l, verbose=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sf.fit(D.to_numpy(), errors.astype(np.float64))
    seconds = time.perf_counter() - t0
    top = np.asarray(sf.top_slices_, dtype=object)
    if top.size == 0:
        return Run(None, False, seconds=seconds)
    conds = {c: v for c, v in zip(D.columns, top[0], strict=True) if v is not None}
    return Run(conditions_mask(D, conds), True, seconds=seconds)


def run_mdss(D: pd.DataFrame, y_true, y_pred, outcome: str) -> Run:
    """AIF360's MDSS ``bias_scan`` with its defaults: the highest-scoring subset whose rate is too low."""
    from aif360.detectors.mdss_detector import bias_scan

    obs = np.asarray(y_pred, dtype=int) if outcome == "SP" else (np.asarray(y_pred) == np.asarray(y_true))
    state = np.random.get_state()  # MDSS seeds numpy's global generator: leave it as we found it
    t0 = time.perf_counter()
    try:
        subset, score = bias_scan(
            D.reset_index(drop=True), pd.Series(obs.astype(int)), favorable_value="high", overpredicted=True
        )
    finally:
        np.random.set_state(state)
    seconds = time.perf_counter() - t0
    if not subset or not float(score) > 0:
        return Run(None, False, seconds=seconds)
    return Run(conditions_mask(D, {c: list(v) for c, v in subset.items()}), True, seconds=seconds)


# ------------------------------------------------------------------ the peers that are installed
def available_peers() -> tuple[dict[str, Callable], list[str]]:
    """The installed peers' runners and a line for each missing one."""
    peers, missing = {}, []
    for label, module, runner in (
        ("DivExplorer", "divexplorer", run_divexplorer),
        ("SliceLine", "sliceline", run_sliceline),
        ("MDSS", "aif360.detectors.mdss_detector", run_mdss),
    ):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            peers[label] = runner
        else:
            missing.append(f"{label}: module {module!r} not installed (pip install aif360-subjective[bench]); skipped")
    return peers, missing


# ------------------------------------------------------------------ the settings
@dataclass(frozen=True)
class Setting:
    shape: str  # conjunction, region, null
    outcome: str  # SP, ER
    shift: float
    seeds: int

    @property
    def name(self) -> str:
        return f"{self.shape} {self.outcome} {self.shift:g}" if self.shape != "null" else f"null {self.outcome}"


def settings(seeds: int, null_seeds: int, quick: bool) -> list[Setting]:
    if quick:
        return [Setting("conjunction", "SP", 0.2, seeds), Setting("conjunction", "ER", 0.1, seeds),
                Setting("region", "SP", 0.2, seeds), Setting("null", "SP", 0.0, null_seeds)]
    # the settings with targets first, so that a run stopped early has printed them
    out = [Setting("conjunction", o, s, seeds) for s in (0.2, 0.1) for o in ("SP", "ER")]
    out += [Setting("region", "SP", 0.2, seeds)]
    out += [Setting("null", o, 0.0, null_seeds) for o in ("SP", "ER")]
    out += [Setting("region", "ER", 0.2, seeds)]
    out += [Setting("conjunction", o, 0.05, seeds) for o in ("SP", "ER")]
    return out


def table_for(setting: Setting, seed: int, n_samples: int = 5000):
    # 2 % to 10 % of the rows over the setting's seeds; past them the shares repeat (more null tables, same mix)
    share = 0.02 + 0.08 * (seed % setting.seeds) / max(setting.seeds - 1, 1)
    if setting.shape == "region":
        shape, n_conditions = "numeric_region", 2  # the table has two numeric columns
    else:
        shape, n_conditions = "conjunction", 2 + seed % 2
    return make_planted_slice(
        n_samples=n_samples,
        shape=shape,
        n_conditions=n_conditions,
        planted_share=share,
        effect=setting.shift,
        target=OUTCOME[setting.outcome],
        random_state=seed,
    )


def run_setting(setting: Setting, methods: dict[str, Callable], bins: int = 5, log=print) -> list[dict]:
    """Every method on every seed of one setting: one record per (method, seed)."""
    records = []
    for seed in range(setting.seeds):
        b = table_for(setting, seed)
        D = discretise(b.X, bins)
        for name, fn in methods.items():
            try:
                r = fn(b, D, setting.outcome, seed)
            except Exception as exc:  # a peer failing on one table is reported, not fatal
                log(f"  {name} failed on {setting.name} seed {seed}: {type(exc).__name__}: {exc}")
                r = Run(None, False, note="error")
            rec = {"setting": setting.name, "method": name + (f" ({r.note})" if r.note else ""), "seed": seed,
                   "any_report": r.any_report, "any_finding": r.any_finding, "seconds": r.seconds}
            rec.update(top1_scores(r.found, b.planted))
            records.append(rec)
    return records


def method_table(peers: dict[str, Callable]) -> dict[str, Callable]:
    methods: dict[str, Callable] = {}
    for d in DISCOVERIES:
        methods[f"ours discovery={d}"] = (
            lambda b, D, o, s, d=d: run_ours(b.X, b.y_true, b.y_pred, o, d, s)
        )
    for label, fn in peers.items():
        methods[label] = lambda b, D, o, s, fn=fn: fn(D, b.y_true, b.y_pred, o)
    return methods


def summarise(records: list[dict]) -> pd.DataFrame:
    """One row per (setting, method): hit@1, precision, recall, any report / finding, seconds per table."""
    df = pd.DataFrame(records)
    rows = []
    for (setting, method), g in df.groupby(["setting", "method"], sort=False):
        n = len(g)
        row = {"setting": setting, "method": method}
        if setting.startswith("null"):
            row["hit@1"] = ""
            row["precision"] = row["recall"] = np.nan
            row["any report"] = f"{int(g['any_report'].sum())}/{n}"
            fam = g["any_finding"].dropna()
            if not method.startswith("ours"):
                row["any finding"] = ""  # the peers have no report-wide family
            else:
                row["any finding"] = f"{int(fam.sum())}/{n}" if len(fam) == n else "n/a"
        else:
            row["hit@1"] = f"{int(g['hit'].sum())}/{n}"
            row["precision"] = g["precision"].mean()
            row["recall"] = g["recall"].mean()
            row["any report"] = f"{int(g['any_report'].sum())}/{n}"
            row["any finding"] = ""
        row["s/table"] = g["seconds"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ speed rows
def speed_20k(seed: int = 0) -> pd.DataFrame:
    """Default discovery vs DivExplorer (min_support=0.01) on one 20,000-row conjunction table."""
    b = make_planted_slice(n_samples=20_000, effect=0.2, planted_share=0.05, random_state=seed)
    rows = []
    t0 = time.perf_counter()
    rep = detect_subgroups(b.X, b.y_true, b.y_pred, random_state=seed)
    try:
        rep.ranking("statistical_parity", kind="all")
    except ValueError:
        rep.ranking("statistical_parity")
    rows.append({"what": "ours, default discovery + ranking (20,000 rows)", "seconds": time.perf_counter() - t0})
    if importlib.util.find_spec("divexplorer") is not None:
        t0 = time.perf_counter()
        D = discretise(b.X)
        run_divexplorer(D, b.y_true, b.y_pred, "SP", min_support=0.01)
        rows.append({"what": "DivExplorer min_support=0.01 (20,000 rows)", "seconds": time.perf_counter() - t0})
    return pd.DataFrame(rows)


def load_adult_with_predictions(data: Path):
    """Adult (train + test) with a logistic regression's predictions, as ``benchmarks/subgroups.py`` builds it."""
    spec = importlib.util.spec_from_file_location("_bench_subgroups", REPO / "benchmarks" / "subgroups.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(spec.name, None)
    X, y, p, _, _ = mod.load_adult(data)
    return X, y, p


def speed_adult(data: Path, seed: int = 0) -> pd.DataFrame:
    """The whole ``subgroups`` command on Adult vs DivExplorer (min_support=0.01) on the same table."""
    X, y, p = load_adult_with_predictions(data)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "adult.csv"
        X.assign(income=y, prediction=p).to_csv(csv, index=False)
        cmd = [sys.executable, "-m", "aif360_subjective", "subgroups", str(csv), "--label-col", "income",
               "--prediction-col", "prediction", "--seed", str(seed), "--out", str(Path(tmp) / "report.html")]
        env = dict(os.environ, PYTHONPATH=str(REPO), MPLBACKEND="Agg")
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        secs = time.perf_counter() - t0
        what = "ours, whole `subgroups` command with --out (Adult, 48,842 rows)"
        if proc.returncode != 0:
            what += f" FAILED (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}"
        rows.append({"what": what, "seconds": secs})
    if importlib.util.find_spec("divexplorer") is not None:
        t0 = time.perf_counter()
        run_divexplorer(discretise(X), y, p, "SP", min_support=0.01)
        rows.append({"what": "DivExplorer min_support=0.01 (Adult, 48,842 rows)", "seconds": time.perf_counter() - t0})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ main
def adult_phases(data: Path, seed: int = 0) -> pd.DataFrame:
    """Where the Adult command's time goes: the library's steps, timed one after the other in this process."""
    from aif360_subjective.detectors.mining.pattern_mining import build_items, check_min_support, mine_patterns
    from aif360_subjective.detectors.options import check_analysis_options

    X, y, p = load_adult_with_predictions(data)
    rows = []

    def timed(what, fn):
        t0 = time.perf_counter()
        out = fn()
        rows.append({"step": what, "seconds": time.perf_counter() - t0})
        return out

    opts = check_analysis_options(X)
    mined = timed("mining alone (patterns of up to 3 conditions, 1 % support)",
                  lambda: mine_patterns(build_items(X, opts.categorical_features, opts.n_bins, opts.max_merge),
                                        check_min_support(opts.min_support, len(X)), opts.max_length))
    rows[-1]["step"] += f": {len(mined.patterns):,} patterns, {mined.members().nnz:,} row memberships"
    timed("the seed's analysis alone (discovery='asdf': x-means, single-linkage tree, entropy patterns)",
          lambda: detect_subgroups(X, y, p, random_state=seed, discovery="asdf"))
    rep = timed("the default analysis (discovery='both', mining beside the clustering)",
                lambda: detect_subgroups(X, y, p, random_state=seed))
    timed("max-T of one metric (the first ranking)", lambda: rep.ranking("statistical_parity", kind="all"))
    timed("max-T of every metric and the findings (the answer)", lambda: rep.findings(0.05))
    return pd.DataFrame(rows)


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 seeds of 4 settings, no Adult")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per planted setting (default 10; quick 3)")
    ap.add_argument("--null-seeds", type=int, default=None, help="seeds per null setting (default 50; quick 3)")
    ap.add_argument("--bins", type=int, default=5, help="quantile bins of numeric columns for the peers (default 5)")
    ap.add_argument("--skip-adult", action="store_true")
    ap.add_argument("--speed-only", action="store_true", help="only the speed rows (20,000 rows and Adult)")
    default_data = Path(os.environ.get("AIF360_SUBJECTIVE_DATA", REPO.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    args = ap.parse_args(argv)
    seeds = args.seeds or (3 if args.quick else 10)
    null_seeds = args.null_seeds or (3 if args.quick else 50)
    if seeds < 2 or null_seeds < 1:
        ap.error(f"--seeds must be >= 2 and --null-seeds >= 1, got {seeds} and {null_seeds}")
    start = time.perf_counter()
    kind = 'quick' if args.quick else 'speed-only' if args.speed_only else 'full'
    print(f"# Slice finders (commit {_git_commit()}; {kind} run)")
    peers, missing = available_peers()
    for line in missing:
        print(line)
    if not _has_kwarg(detect_subgroups, "discovery"):
        print("this library has no detect_subgroups(discovery=...): the three 'ours' rows run its default analysis "
              "(marked 'fallback')")
    methods = method_table(peers)
    warnings.filterwarnings("ignore", category=FutureWarning)  # pandas notices from the peers
    # the library's notices (e.g. ties in a single-linkage cut) would repeat on every table
    logging.getLogger("aif360_subjective").setLevel(logging.ERROR)
    print("\n## Speed (20,000 rows)", flush=True)
    print(speed_20k().to_string(index=False, float_format=lambda v: f"{v:.1f}"), flush=True)
    if args.speed_only:
        print("\n## Speed (Adult)", flush=True)
        if (args.data / "adult" / "adult.data").exists():
            print(speed_adult(args.data).to_string(index=False, float_format=lambda v: f"{v:.1f}"), flush=True)
            print("\n## Where the Adult analysis spends its time (steps timed one by one in this process)", flush=True)
            with pd.option_context("display.max_colwidth", 200, "display.width", 200):
                print(adult_phases(args.data).to_string(index=False, float_format=lambda v: f"{v:.1f}"), flush=True)
        else:
            print(f"Adult not found under {args.data}: skipped")
        print(f"\ntotal runtime {time.perf_counter() - start:.0f} s")
        return
    fmt = {"float_format": lambda v: f"{v:.2f}", "index": False}
    print("\n## Planted and null tables, setting by setting (5,000 rows; misses count 0 in precision and recall)")
    records = []
    for s in settings(seeds, null_seeds, args.quick):
        t0 = time.perf_counter()
        part = run_setting(s, methods, args.bins)
        records += part
        print(f"\n{s.name}: {s.seeds} tables in {time.perf_counter() - t0:.0f} s", flush=True)
        print(summarise(part).drop(columns="setting").to_string(**fmt), flush=True)
        if s.name == "null ER" and not args.quick and not args.skip_adult:
            print("\n## Speed (Adult)", flush=True)
            if (args.data / "adult" / "adult.data").exists():
                speed = speed_adult(args.data)
                print(speed.to_string(index=False, float_format=lambda v: f"{v:.1f}"), flush=True)
            else:
                print(f"Adult not found under {args.data}: skipped")
    print("\n## All settings (5,000 rows; misses count 0 in precision and recall)")
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(summarise(records).to_string(**fmt))
    print(f"\ntotal runtime {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
