"""Rows in clusters: how often the max-T names a subgroup when several rows belong to one person, with and
without ``groups=``; and the size and power of the continuous-outcome tests on the same design.

The outside audit's design (issue 30): 1,000 persons x 5 records, each person with an error propensity of their
own, no subgroup effect. Person-level features (``sex`` 2 levels, ``age_band`` 5, ``region`` 4, ``education``
3) and one record-level feature (``channel``, 3 levels). The candidates are the mined patterns of the default
options (every conjunction of up to 3 conditions with >= 1 % of the rows), penalised by description class as
the reports do; a table "reports something" when any candidate's global adjusted p-value (every test, both
directions) is below 0.05.

* ``binary``: truth Bernoulli(0.5); each person's records are mispredicted with the person's propensity
  ``logistic(N(logit 0.2, 1.5))``. The five binary tests (statistical parity, equal opportunity, equalized
  odds, accuracy, false positive rate).
* ``regression``: truth N(0, 1); the prediction adds the person's error scale ``exp(N(0, 0.5))`` times
  N(0, 1) per record. The three continuous tests (mean absolute error, mean error, mean prediction; Welch t
  moderated with 2 pseudo-rows).
* planted: the persons of ``region = r0 and education = e0`` (8.3 % of the rows) err more: in a regression
  their error scale is multiplied by 2 (the absolute error doubled) or 1.3; in the binary setting their odds of
  an error by 1.65 (logit + 0.5). Power = tables where the first finding of the error metric (mean absolute error,
  or accuracy, disadvantaged; smallest global adjusted p, then largest statistic) has Jaccard >= 0.5 with the
  planted rows.

Each setting runs with rows as units (the default) and with ``groups=person`` (whole persons permuted among
persons with as many records). Printed: rate with its Clopper-Pearson 95 % interval.

Usage: ``python benchmarks/clustered_rows.py [--tables 100] [--permutations 200]`` (the full run; ``--tables 20``
takes a few minutes on two cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.detectors.continuous import max_t_means  # noqa: E402
from aif360_subjective.detectors.detect import mine  # noqa: E402
from aif360_subjective.detectors.maxt import class_offsets, max_t  # noqa: E402
from aif360_subjective.detectors.options import check_analysis_options  # noqa: E402
from aif360_subjective.detectors.resampling import canonical_order, check_groups, row_keys  # noqa: E402
from aif360_subjective.detectors.tasks import outcome_columns, resolve_task  # noqa: E402

PERSONS, RECORDS = 1000, 5


def clustered_table(seed: int, task: str, effect: float = 0.0):
    """(X, y_true, y_pred, person, planted rows) of the audit's design."""
    rng = np.random.default_rng(seed)
    person = np.repeat(np.arange(PERSONS), RECORDS)
    feats = {"sex": 2, "age_band": 5, "region": 4, "education": 3}
    P = {k: rng.integers(0, v, PERSONS) for k, v in feats.items()}
    X = pd.DataFrame({k: np.array([f"{k[0]}{i}" for i in range(feats[k])])[P[k][person]] for k in feats})
    X["channel"] = np.array(["web", "phone", "desk"])[rng.integers(0, 3, len(person))]
    planted = (X["region"] == "r0").to_numpy() & (X["education"] == "e0").to_numpy()
    if task == "binary":
        # the planted persons' odds of an error multiplied by exp(effect)
        logit = np.log(0.2 / 0.8) + rng.normal(0.0, 1.5, PERSONS) + effect * planted[::RECORDS]
        err = 1.0 / (1.0 + np.exp(-logit))
        t = rng.integers(0, 2, len(person))
        flip = rng.random(len(person)) < err[person]
        return X, t, np.where(flip, 1 - t, t), person, planted
    scale = np.exp(rng.normal(0.0, 0.5, PERSONS))[person] * np.where(planted, 1.0 + effect, 1.0)
    y = rng.normal(size=len(person))
    return X, y, y + scale * rng.normal(size=len(person)), person, planted


def _candidates(X):
    opts = check_analysis_options(X)
    mp = mine(X, opts)
    is_range = np.array([isinstance(v, tuple) for v in mp.items.values], dtype=bool)
    classes = np.array([f"{len(p)}:{int(is_range[list(p)].sum())}" for p in mp.patterns], dtype=object)
    return mp, class_offsets(classes)


def run(task: str, effect: float, seed: int, grouped: bool, B: int) -> tuple[bool, bool]:
    """(reported anything, the first mean-absolute-error finding is the planted slice)."""
    X, t, p, person, planted = clustered_table(seed, task, effect)
    mp, offsets = _candidates(X)
    order = canonical_order(row_keys(X), row_keys(X, t, p))
    groups = check_groups(person, len(X)) if grouped else None
    if task == "binary":
        res = max_t(mp.counter, t, p, B, random_state=seed, penalty=offsets, order=order, groups=groups)
    else:
        cols = outcome_columns(resolve_task(t, p, "regression"), t, p)
        res = max_t_means(mp.counter, cols, B, random_state=seed, penalty=offsets, order=order, groups=groups)
    any_hit = bool(np.nanmin(res.p_global) < 0.05) if np.isfinite(res.p_global).any() else False
    found = False
    if effect:
        test = 3 if task == "binary" else 0  # accuracy; mean absolute error
        pg = res.p_global[:, test, 0]  # disadvantaged
        sig = np.flatnonzero(pg < 0.05)
        if len(sig):
            stat = res.statistic(test, 0)[sig]
            first = sig[np.lexsort((-stat, pg[sig]))[0]]
            rows = mp.members()[:, [first]].toarray().ravel().astype(bool)
            found = (rows & planted).sum() / max((rows | planted).sum(), 1) >= 0.5
    return any_hit, found


def interval(k: int, n: int) -> str:
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} ({100 * k / n:.1f} %, [{100 * lo:.1f}, {100 * hi:.1f}])"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--permutations", type=int, default=200)
    args = ap.parse_args(argv)
    print(f"# Clustered rows: {PERSONS} persons x {RECORDS} records, {args.tables} tables per setting, "
          f"{args.permutations} permutations")
    print("| setting | unit | reports something | planted slice first |")
    print("|---|---|---|---|")
    start = time.perf_counter()
    settings = (("binary", 0.0, "binary, no effect"), ("binary", 0.5, "binary, error odds x 1.65 in 8.3 %"),
                ("regression", 0.0, "regression, no effect"), ("regression", 1.0, "regression, MAE x2 in 8.3 %"),
                ("regression", 0.3, "regression, MAE x1.3 in 8.3 %"))
    for task, effect, label in settings:
        for grouped in (False, True):
            hits = found = 0
            for seed in range(args.tables):
                h, f = run(task, effect, seed, grouped, args.permutations)
                hits += h
                found += f
            unit = "groups=person" if grouped else "rows"
            power = interval(found, args.tables) if effect else "-"
            print(f"| {label} | {unit} | {interval(hits, args.tables)} | {power} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
