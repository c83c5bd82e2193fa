"""Rows in clusters: how often the max-T names a subgroup when several rows belong to one person, with and
without ``groups=``; and the size and power of the continuous-outcome tests on the same design.

The outside audit's design (issue 30): 1,000 persons x 5 records, each person with an error propensity of their
own, no subgroup effect. Person-level features (``sex`` 2 levels, ``age_band`` 5, ``region`` 4, ``education``
3) and one record-level feature (``channel``, 3 levels). ``detect_subgroups(X, y_true, y_pred, task=...,
discovery="patterns")`` (``--discovery`` to change it), with or without ``groups=person``; a table "reports
something" when ``findings()`` (alpha 0.05: every candidate, metric and direction under one family-wise error)
lists anything.

* ``binary``: truth Bernoulli(0.5); each person's records are mispredicted with the person's propensity
  ``logistic(N(logit 0.2, 1.5))``. The five binary tests (statistical parity, equal opportunity, equalized
  odds, accuracy, false positive rate).
* ``regression``: truth N(0, 1); the prediction adds the person's error scale ``exp(N(0, 0.5))`` times
  N(0, 1) per record. The three continuous tests (mean absolute error, mean error, mean prediction; Welch t
  moderated with 2 pseudo-rows).
* planted: the persons of ``region = r0 and education = e0`` (8.3 % of the rows) err more: in a regression
  their error scale is multiplied by 2 (the absolute error doubled) or 1.3; in the binary setting their odds of
  an error by 1.65 (logit + 0.5). Power = tables where the first finding of the error metric (mean absolute error,
  or accuracy error, disadvantaged) has Jaccard >= 0.5 with the planted rows.

Each setting runs with rows as units (the default) and with ``groups=person`` (whole persons permuted among
persons with as many records). Printed: rate with its Clopper-Pearson 95 % interval.

Usage: ``python benchmarks/clustered_rows.py [--tables 100] [--permutations 200]`` (the full run; ``--tables 20``
takes a few minutes on two cores).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.detectors import detect_subgroups  # noqa: E402

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


def run(task: str, effect: float, seed: int, grouped: bool, B: int, discovery: str = "patterns") -> tuple[bool, bool]:
    """(``findings()`` lists anything, the first finding of the error metric is the planted slice)."""
    X, t, p, person, planted = clustered_table(seed, task, effect)
    rep = detect_subgroups(X, t, p, task=task, random_state=seed, n_permutations=B, discovery=discovery,
                           groups=pd.Series(person, name="person") if grouped else None)
    f = rep.findings(0.05)
    found = False
    if effect:
        metric = "accuracy_error" if task == "binary" else "mean_absolute_error"
        err = f[(f["metric"] == metric) & (f["direction"] == "disadvantaged")]
        if len(err):
            rows = np.asarray(rep.members(err["kind"].iloc[0], err["id"].iloc[0]), dtype=bool)
            found = (rows & planted).sum() / max((rows | planted).sum(), 1) >= 0.5
    return len(f) > 0, bool(found)


def interval(k: int, n: int) -> str:
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} ({100 * k / n:.1f} %, [{100 * lo:.1f}, {100 * hi:.1f}])"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--permutations", type=int, default=200)
    ap.add_argument("--discovery", default="patterns", choices=("asdf", "patterns", "both"))
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"# Clustered rows: {PERSONS} persons x {RECORDS} records, {args.tables} tables per setting, "
          f"{args.permutations} permutations, discovery={args.discovery!r}")
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
                h, f = run(task, effect, seed, grouped, args.permutations, args.discovery)
                hits += h
                found += f
            unit = "groups=person" if grouped else "rows"
            power = interval(found, args.tables) if effect else "-"
            print(f"| {label} | {unit} | {interval(hits, args.tables)} | {power} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
