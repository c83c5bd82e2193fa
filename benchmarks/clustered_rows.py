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
* planted between persons: the persons of ``region = r0 and education = e0`` (8.3 % of the rows) err more: in a
  regression their error scale is multiplied by 2 (the absolute error doubled) or 1.3; in the binary setting their
  odds of an error by 1.65 (logit + 0.5).
* planted within persons: the records of ``region = r0`` made through ``channel = phone`` (8.3 % of the rows: a
  record-level condition inside a person-level one) err more, by the same factors.
* Power = tables where the first finding of the error metric (mean absolute error, or accuracy error,
  disadvantaged) has Jaccard >= 0.5 with the planted rows.

Each setting runs with rows as units (the default) and with ``groups=person`` in both designs: ``between`` (whole
persons permuted among persons with as many records) and ``within`` (records permuted within their person). The
within design holds every person's set of outcomes fixed, so a subgroup defined by person-level features alone
(``sex``, ``age_band``, ``region``, ``education``) keeps its statistic under every permutation and can never be
found: it tests record-level differences (``channel``, and conjunctions with it) only, which the between design
also sees, less sharply, since the persons' own propensities stay in its noise.

Printed: null tables with the Wilson 95 % upper bound of the rate (the size figure to hold against 5 %); planted
tables with the Clopper-Pearson 95 % interval. ``--null`` null tables per grouped design (200 by default: fewer
cannot show a rate <= 5 %), ``--tables`` for the planted tables and for the rows-as-units null rows (which report
something on about half the tables: 40 show it).

Usage: ``python benchmarks/clustered_rows.py [--tables 40] [--null 200] [--permutations 200]`` (about an hour on
two free cores; ``--tables 10 --null 40`` a few minutes).
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


def clustered_table(seed: int, task: str, effect: float = 0.0, level: str = "person", persons: int = PERSONS,
                    records: tuple[int, int] = (RECORDS, RECORDS)):
    """(X, y_true, y_pred, person, planted rows) of the audit's design; ``level`` says whether the planted slice
    is a set of persons (``region = r0 and education = e0``) or of records (``region = r0 and channel = phone``);
    ``records``: each person's records, drawn uniformly from ``low..high`` (a fixed number when equal)."""
    rng = np.random.default_rng(seed)
    low, high = records
    # equal sizes draw nothing here, so the default tables are those of earlier runs
    counts = np.full(persons, low) if low == high else rng.integers(low, high + 1, persons)
    person = np.repeat(np.arange(persons), counts)
    feats = {"sex": 2, "age_band": 5, "region": 4, "education": 3}
    P = {k: rng.integers(0, v, persons) for k, v in feats.items()}
    X = pd.DataFrame({k: np.array([f"{k[0]}{i}" for i in range(feats[k])])[P[k][person]] for k in feats})
    X["channel"] = np.array(["web", "phone", "desk"])[rng.integers(0, 3, len(person))]
    other = "education" if level == "person" else "channel"
    planted = (X["region"] == "r0").to_numpy() & (X[other] == ("e0" if level == "person" else "phone")).to_numpy()
    if task == "binary":
        # the planted rows' odds of an error multiplied by exp(effect)
        logit = np.log(0.2 / 0.8) + rng.normal(0.0, 1.5, persons)[person] + effect * planted
        err = 1.0 / (1.0 + np.exp(-logit))
        t = rng.integers(0, 2, len(person))
        flip = rng.random(len(person)) < err
        return X, t, np.where(flip, 1 - t, t), person, planted
    scale = np.exp(rng.normal(0.0, 0.5, persons))[person] * np.where(planted, 1.0 + effect, 1.0)
    y = rng.normal(size=len(person))
    return X, y, y + scale * rng.normal(size=len(person)), person, planted


def run(task: str, effect: float, seed: int, design: str | None, B: int, discovery: str = "patterns",
        level: str = "person", persons: int = PERSONS,
        records: tuple[int, int] = (RECORDS, RECORDS)) -> tuple[bool, bool]:
    """(``findings()`` lists anything, the first finding of the error metric is the planted slice); ``design``
    None for rows as units, else ``groups=person`` in that design."""
    X, t, p, person, planted = clustered_table(seed, task, effect, level, persons, records)
    grouped = {} if design is None else {"groups": pd.Series(person, name="person"), "design": design}
    rep = detect_subgroups(X, t, p, task=task, random_state=seed, n_permutations=B, discovery=discovery, **grouped)
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
    """``k/n (rate, [Clopper-Pearson 95 % interval])``."""
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} ({100 * k / n:.1f} %, [{100 * lo:.1f}, {100 * hi:.1f}])"


def wilson_upper(k: int, n: int, z: float = 1.959963984540054) -> float:
    """Upper end of the Wilson score interval (95 %, two-sided) of a rate k / n."""
    q = k / n
    half = z * np.sqrt(q * (1 - q) / n + z * z / (4 * n * n))
    return float((q + z * z / (2 * n) + half) / (1 + z * z / n))


def null_rate(k: int, n: int) -> str:
    """``k/n (rate, Wilson upper bound)``: the size figure."""
    return f"{k}/{n} ({100 * k / n:.1f} %, Wilson upper {100 * wilson_upper(k, n):.1f} %)"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=40, help="planted tables per setting and unit, and null tables "
                                                           "with rows as units (default 40)")
    ap.add_argument("--null", type=int, default=200, help="null tables per grouped design (default 200)")
    ap.add_argument("--permutations", type=int, default=200)
    ap.add_argument("--discovery", default="patterns", choices=("asdf", "patterns", "both"))
    ap.add_argument("--settings", default="", help="comma-separated setting numbers to run (default all)")
    ap.add_argument("--units", default="rows,between,within", help="units to run: rows, between, within")
    ap.add_argument("--first-seed", type=int, default=0, help="seed of the first table (to split a run)")
    ap.add_argument("--persons", type=int, default=PERSONS, help=f"persons per table (default {PERSONS})")
    ap.add_argument("--records", default=str(RECORDS),
                    help=f"records per person: a number (default {RECORDS}) or a range such as 1-40 (unequal cluster "
                         "sizes, drawn uniformly per person)")
    args = ap.parse_args(argv)
    low, _, high = args.records.partition("-")
    records = (int(low), int(high or low))
    warnings.simplefilter("ignore")
    print(f"# Clustered rows: {args.persons} persons x {args.records} records; {args.null} null tables per grouped "
          f"design, {args.tables} other tables per setting; {args.permutations} permutations, "
          f"discovery={args.discovery!r}")
    print("| setting | unit | reports something | planted slice first |")
    print("|---|---|---|---|")
    start = time.perf_counter()
    settings = (("binary", 0.0, "person", "binary, no effect"),
                ("binary", 0.5, "person", "binary, error odds x 1.65 for 8.3 % of persons"),
                ("binary", 0.5, "record", "binary, error odds x 1.65 for 8.3 % of records (phone in r0)"),
                ("regression", 0.0, "person", "regression, no effect"),
                ("regression", 1.0, "person", "regression, MAE x2 for 8.3 % of persons"),
                ("regression", 0.3, "person", "regression, MAE x1.3 for 8.3 % of persons"),
                ("regression", 0.3, "record", "regression, MAE x1.3 for 8.3 % of records (phone in r0)"),
                ("binary", 1.5, "person", "binary, error odds x 4.5 for 8.3 % of persons"))
    chosen = [int(i) for i in args.settings.split(",") if i] or range(len(settings))
    units = [(d, u) for d, u in ((None, "rows"), ("between", "groups=person, between"),
                                 ("within", "groups=person, within")) if (d or "rows") in args.units.split(",")]
    for i in chosen:
        task, effect, level, label = settings[i]
        for design, unit in units:
            n_tables = args.null if not effect and design is not None else args.tables
            hits = found = 0
            for i, seed in enumerate(range(args.first_seed, args.first_seed + n_tables)):
                h, f = run(task, effect, seed, design, args.permutations, args.discovery, level, args.persons,
                           records)
                hits += h
                found += f
                if (i + 1) % 25 == 0:  # progress on stderr: a long run stopped early still says how far it got
                    print(f"# {label}, {unit}: {hits}/{i + 1} reporting something so far", file=sys.stderr,
                          flush=True)
            size = null_rate(hits, n_tables) if not effect else interval(hits, n_tables)
            power = interval(found, n_tables) if effect else "-"
            print(f"| {label} | {unit} | {size} | {power} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
