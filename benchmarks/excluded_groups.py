"""Does :func:`~aif360_subjective.opinion.excluded_groups` find the excluded group, and only when there is one?

Seeded simulations with a known truth (the model's accuracy per annotation is drawn, so no model is trained):
annotators with three attributes (``gender`` 3 values, ``age`` numeric 18-70, ``education`` 4 values, drawn
independently), items of varying difficulty, annotators who differ in how well the model serves them whatever
their attributes (an annotator effect, sd 0.5 on the logit scale), and annotation counts per annotator either
uniform (30-120, mean 75) or heavy-tailed (5-500: a Pareto tail, median 20, mean 52, a tenth above 120). 500
annotators, 2,000 items.
The accuracy of annotation (annotator a, item i) is ``sigmoid(logit(0.8) + effect_a - difficulty_i) - planted``.

Rows:

* ``planted``: ``gender=woman AND education=phd`` (about 11% of the annotators) served 0.07 worse (uniform and
  heavy-tailed counts; 0.09 heavy-tailed), and the single attribute ``education=phd`` served 0.045 worse
  (heavy-tailed): the share of runs where it is the first finding (target >= 9/10 for the intersection at 0.07) and
  where anything else not overlapping it is reported, and where its simultaneous interval ``[ci_low, ci_high]``
  holds the planted gap (target >= 95%), each with ``balance="conditions"`` (the default, balanced
  max-T) and ``balance="none"`` (the plain max-T) on the same data and the same permutations. For the pair at 0.07
  with heavy-tailed counts also: its own test alone (no search), the share of runs its ``T`` passes the threshold
  under each balance, the spread of its gap against its standard error, and "the most a search treating candidates
  alike can find": ``Phi(gap mean / gap sd - mean critical value of balance="none")`` (the statistic is about
  ``N(gap mean / gap sd, 1)`` and must pass the plain max-T's one threshold; target "(bound)"; the setting name
  gives its inputs and a 95% range from the sd's own uncertainty over the runs). The same threshold and pass rows
  for the single attribute.
* ``null``: no difference; the share of runs reporting any group (target <= 5%, Wilson 95% upper bound beside it).
  Variants: heavy-tailed counts; counts tied to an attribute (``gender=x`` annotators 5-15 annotations, the
  others 100-300: the design where an unstudentized test rejected 37% of the time); ordinal MAE (ratings 1-5).
* ``item-confounded``: ``gender=x`` annotators (10%) label their own batch of items, harder by one difficulty sd,
  and are served exactly like everyone else on any given item: reported with ``adjust="none"`` (the raw gap is
  real) and with ``adjust="items"`` no more often than any false report may be (alpha, target); also a partly
  overlapping batch (half of their items shared).
* ``spread``: no group served worse on average, but the ``gender=x`` annotators spread four times as widely as the
  others: the annotators are not exchangeable; permuting them is too permissive there, the wild bootstrap (each
  annotator keeps its own spread) is not. Each row also gives the rate of the permutation p-value alone
  (``p_permutation``), the former test.
* ``exact``: with exchangeable annotators (a small design run 1,000 times), the share of runs whose smallest adjusted
  p-value is at most 0.05, 0.1, 0.2, 0.5: an exact max-T gives each share its own level; the reported p-value, the
  larger of the permutation's and the wild bootstrap's, at most that (both rows are printed).
* ``manycolumns``: a pair ``c0=v0 AND c1=v0`` of exactly 20 annotators served 0.08 worse (500 annotators, uniform
  counts), searched among the candidates of 4 and of 11 attribute columns of 4 values each: found first, reported,
  and a disjoint group reported, with single-step and with step-down p-values (``step_down=True``) on the same data
  and permutations; and the null (no gap) on each design, any group reported.
* ``detectable gap``: per run, the gap the result states for ``education=phd`` when nothing is planted, then planted
  at that size in the same annotators (new outcomes): the share of runs that find it (the statement says 80%).

Run: ``python benchmarks/excluded_groups.py`` (the figures in the guide: 400 null runs per row, 40 per planted row,
200 per item-confounded row, 100 for the detectable gap; 999 permutations; about 0.3 s per analysis; ``--only null``,
``--only planted`` etc. run one part, ``--null N`` etc. change the runs; ``--only manycolumns --manycolumns 40``, the
guide's many-columns table) or ``--quick`` (40 null runs, 10 planted,
20 confounded, 499 permutations);
``--real`` (or ``--only real``) also runs the three real datasets (POPQUORN, MultiPICo, HS-Brexit) through the
command line (``audit DATA --model majority --ci none --discover``, with and without ``--adjust items``; needs
``AIF360_SUBJECTIVE_DATA``) and prints each command with its answer.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, logit
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.opinion import excluded_groups  # noqa: E402

Z95 = 1.959963984540054
Z95_ONE_SIDED = 1.6448536269514722


def wilson_upper(x: int, n: int) -> float:
    """Upper end of the Wilson 95% interval of a proportion x / n."""
    p = x / n
    centre = p + Z95**2 / (2 * n)
    half = Z95 * np.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n))
    return float((centre + half) / (1 + Z95**2 / n))


def annotator_table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame({
        "gender": rng.choice(["man", "woman", "x"], n, p=[0.45, 0.45, 0.10]),
        "age": rng.integers(18, 71, n),
        "education": rng.choice(["school", "college", "master", "phd"], n),
    }, index=pd.Index([f"a{i:04d}" for i in range(n)], name="annotator"))


def counts_of(rng: np.random.Generator, n: int, kind: str, table: pd.DataFrame) -> np.ndarray:
    if kind == "uniform":
        return rng.integers(30, 121, n)
    if kind == "heavy":
        return np.minimum(5 + np.floor(20 * (rng.pareto(1.2, n))), 500).astype(int)
    if kind == "tied":  # the attribute decides the counts
        light = (table["gender"] == "x").to_numpy()
        return np.where(light, rng.integers(5, 16, n), rng.integers(100, 301, n))
    raise ValueError(kind)


def draw_design(rng: np.random.Generator, *, n_annotators: int = 500, n_items: int = 2000, counts: str = "heavy",
                batch: str | None = None) -> dict:
    """The annotators (attributes, counts, how well the model serves each), the items and who annotated what."""
    table = annotator_table(rng, n_annotators)
    n_per = counts_of(rng, n_annotators, counts, table)
    difficulty = rng.normal(0.0, 1.0, n_items)
    own = (table["gender"] == "x").to_numpy() if batch else np.zeros(n_annotators, dtype=bool)
    batch_items = np.arange(n_items // 10)  # the confounded group's batch
    if batch:  # the batch is harder by one sd
        difficulty[batch_items] += 1.0
    other_items = np.arange(n_items // 10, n_items)
    ann_idx = np.repeat(np.arange(n_annotators), n_per)
    item = np.empty(len(ann_idx), dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(n_per)[:-1]])
    for a in range(n_annotators):  # item draws per annotator (a simulation, not the library)
        pool = other_items if (batch and not own[a]) else (batch_items if own[a] else np.arange(n_items))
        if own[a] and batch == "partial":
            pool = np.concatenate([batch_items, other_items[: len(batch_items)]])
        item[start[a]:start[a] + n_per[a]] = rng.choice(pool, min(n_per[a], len(pool)), replace=False)
    effect = rng.normal(0.0, 0.5, n_annotators)
    return {"table": table, "difficulty": difficulty, "ann_idx": ann_idx, "item": item, "effect": effect}


def draw_outcomes(rng: np.random.Generator, design: dict, *, planted: str | None = None, gap: float = 0.0,
                  ordinal: bool = False):
    """The labels and predictions of one dataset on ``design``: (y_true, y_pred, item ids, annotator ids, table)."""
    table, item, ann_idx = design["table"], design["item"], design["ann_idx"]
    member = np.zeros(len(table), dtype=bool)
    if planted:
        member = table.eval(planted).to_numpy()
    p_ok = expit(logit(0.8) + design["effect"][ann_idx] - design["difficulty"][item]) - gap * member[ann_idx]
    ok = rng.random(len(item)) < np.clip(p_ok, 0.0, 1.0)
    if ordinal:  # ratings 1-5: right = the rating itself, wrong = off by 1 or 2
        y = rng.integers(1, 6, len(item))
        off = rng.choice([1, 2], len(item)) * rng.choice([-1, 1], len(item))
        wrong = np.clip(y + off, 1, 5)
        wrong = np.where(wrong == y, np.clip(y - off, 1, 5), wrong)
        pred = np.where(ok, y, wrong)
    else:
        y = rng.integers(0, 2, len(item))
        pred = np.where(ok, y, 1 - y)
    return y, pred, item, table.index[ann_idx].to_numpy(), table


def simulate(rng: np.random.Generator, *, n_annotators: int = 500, n_items: int = 2000, counts: str = "heavy",
             planted: str | None = None, gap: float = 0.0, batch: str | None = None, ordinal: bool = False):
    """One dataset: (y_true, y_pred, item ids, annotator ids, annotator table)."""
    design = draw_design(rng, n_annotators=n_annotators, n_items=n_items, counts=counts, batch=batch)
    return draw_outcomes(rng, design, planted=planted, gap=gap, ordinal=ordinal)


def run(data, **kw):
    y, pred, item, who, table = data
    return excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, **kw)


def row(name: str, hits: int, n: int, target: str) -> dict:
    print(f"  ... {name}: {hits}/{n}", file=sys.stderr, flush=True)  # progress (the tables go to stdout)
    return {"setting": name, "runs": n, "rate": hits / n, "wilson_upper": wilson_upper(hits, n), "target": target}


PLANTED = "gender == 'woman' and education == 'phd'"
PLANTED_NAME = "gender=woman AND education=phd"
PLANTED_SINGLE = "education == 'phd'"
PLANTED_SINGLE_NAME = "education=phd"
#: The planted settings: (which group, counts, gap). The single attribute comes last, so that the first three
#: settings draw the same data and permutations as before it was added.
PLANTED_SETTINGS = [("pair", "uniform", 0.07), ("pair", "heavy", 0.07), ("pair", "heavy", 0.09),
                    ("single", "heavy", 0.045)]
BALANCES = ("conditions", "none")


def planted_rows(args, rng) -> list[dict]:
    """Found first, a disjoint group reported, under both balances of the max-T on the same data and the same
    permutations (the balanced run draws them from ``rng``, the plain one from a copy of it taken just before);
    and for the pair at 0.07 with heavy-tailed counts what limits the search: the planted group's own test alone
    (no search: one-sided z at alpha), its ``T`` against each balance's threshold, the spread of its gap against its
    stated standard error (1 = the standard error is right), and the most a search holding every candidate to one
    threshold can find."""
    out = []
    for which, counts, gap in PLANTED_SETTINGS:
        planted, planted_name = (PLANTED, PLANTED_NAME) if which == "pair" else (PLANTED_SINGLE, PLANTED_SINGLE_NAME)
        first = dict.fromkeys(BALANCES, 0)
        other = dict.fromkeys(BALANCES, 0)
        passed = dict.fromkeys(BALANCES, 0)
        covered = dict.fromkeys(BALANCES, 0)
        thresholds: dict[str, list[float]] = {b: [] for b in BALANCES}
        alone = 0
        gaps, ses, ts, n_candidates = [], [], [], []
        for _ in range(args.planted):
            data = simulate(rng, counts=counts, planted=planted, gap=gap)
            truth = set(data[4].index[data[4].eval(planted)])
            twin = copy.deepcopy(rng)  # the plain max-T sees the balanced run's permutations
            for balance, gen in (("conditions", rng), ("none", twin)):
                ex = run(data, n_permutations=args.n_perm, random_state=gen, balance=balance)
                f = ex.findings()
                if len(f):
                    first[balance] += f.iloc[0]["description"] == planted_name
                    other[balance] += any(not (set(ex.members(i)) & truth) for i in f.index)
                c = ex.candidates()
                own = c[c["description"] == planted_name].iloc[0]
                passed[balance] += own["t"] > own["threshold"]
                covered[balance] += own["ci_low"] <= gap <= own["ci_high"]
                thresholds[balance].append(own["threshold"])
            # the statistic does not depend on the balance
            alone += own["t"] > Z95_ONE_SIDED
            gaps.append(own["gap"])
            ses.append(own["se"])
            ts.append(own["t"])
            n_candidates.append(len(c))
        name = f"planted {which} {gap:g}, {counts} counts"
        for balance in BALANCES:
            tag = f"{name}, balance={balance}"
            out.append(row(f"{tag}: found first", first[balance], args.planted,
                           ">= 0.9" if which == "pair" else "(trade-off)"))
            out.append(row(f"{tag}: a disjoint group reported", other[balance], args.planted, "<= 0.05"))
            out.append(row(f"{tag}: its simultaneous interval holds the planted gap", covered[balance],
                           args.planted, ">= 0.95"))
        if which == "single" or counts == "heavy" and gap == 0.07:
            if which == "pair":
                out.append(row(f"{name}: its own test alone, no search (z > 1.645)", alone, args.planted,
                               "(the price of the search)"))
            for balance in BALANCES:
                out.append(row(f"{name}, balance={balance}: its T passes the threshold (T mean {np.mean(ts):.2f}, "
                               f"threshold mean {np.mean(thresholds[balance]):.2f}, {np.mean(n_candidates):.0f} "
                               "candidates)", passed[balance], args.planted, "(reported)"))
        if which == "pair" and counts == "heavy" and gap == 0.07:
            sd = float(np.std(gaps, ddof=1))
            out.append({"setting": f"{name}: sd of its gap / mean se (gap mean {np.mean(gaps):.3f}, se "
                                   f"{np.mean(ses):.4f})", "runs": args.planted,
                        "rate": sd / float(np.mean(ses)), "wilson_upper": np.nan, "target": "~1 (se right)"})
            # T is about N(gap mean / gap sd, 1); a search that holds every candidate to one threshold needs T above
            # the plain max-T's critical value (balance="none": the 95% quantile of the largest T of all candidates)
            # the ratio is itself estimated from the runs: its standard error by the delta method (the mean's
            # 1/sqrt(n) and the sd's relative error 1/sqrt(2(n - 1))), printed as a 95% range of the bound
            z, crit = float(np.mean(gaps)) / sd, float(np.mean(thresholds["none"]))
            se_z = float(np.sqrt(1.0 / len(gaps) + z * z / (2.0 * (len(gaps) - 1))))
            lo, hi = norm.cdf(z - crit - Z95 * se_z), norm.cdf(z - crit + Z95 * se_z)
            out.append({"setting": f"{name}: the most a search treating candidates alike can find, Phi(gap mean "
                                   f"{np.mean(gaps):.3f} / gap sd {sd:.4f} - threshold {crit:.2f}) = Phi({z:.2f} - "
                                   f"{crit:.2f}) (95% range {lo:.2f}-{hi:.2f}: the sd from {len(gaps)} runs)",
                        "runs": args.planted, "rate": float(norm.cdf(z - crit)), "wilson_upper": np.nan,
                        "target": "(bound)"})
    return out


def null_rows(args, rng) -> list[dict]:
    out = []
    settings = [
        ("null, uniform counts", dict(counts="uniform"), {}),
        ("null, heavy-tailed counts 5-500", dict(counts="heavy"), {}),
        ("null, counts tied to gender (x: 5-15, others 100-300)", dict(counts="tied"), {}),
        ("null, heavy-tailed, adjust='items'", dict(counts="heavy"), dict(adjust="items")),
        ("null, ordinal MAE, heavy-tailed", dict(counts="heavy", ordinal=True), dict(performance="mae")),
        ("null, with ADR (majority-like model absent)", dict(counts="uniform"),
         dict(attributes=["gender", "age", "education", "adr"])),
    ]
    for name, sim, kw in settings:
        if args.rows and not any(r in name for r in args.rows):
            continue
        hits = 0
        for _ in range(args.null):
            ex = run(simulate(rng, **sim), n_permutations=args.n_perm, random_state=rng, **kw)
            hits += len(ex.findings()) > 0
        out.append(row(name + ": anything reported", hits, args.null, "<= 0.05 (Wilson upper <= 0.075)"))
    return out


def confounded_rows(args, rng) -> list[dict]:
    out = []
    for batch in ("own", "partial"):
        raw_hit = adj_hit = 0
        n = args.confounded
        for _ in range(n):
            data = simulate(rng, counts="uniform", batch=batch)
            runs = (run(data, n_permutations=args.n_perm, random_state=rng, adjust=adj) for adj in ("none", "items"))
            found = [ex.findings()["description"].str.contains("gender=x").any() for ex in runs]
            raw_hit += found[0]
            adj_hit += found[1]
        label = "own batch" if batch == "own" else "half-shared batch"
        out.append(row(f"item-confounded gender=x ({label}), adjust='none': reported", raw_hit, n, "(real raw gap)"))
        out.append(row(f"item-confounded gender=x ({label}), adjust='items': reported", adj_hit, n,
                       "<= 0.05 (alpha)"))
    return out


def detectable_rows(args, rng) -> list[dict]:
    """"With these annotators a gap of g would have been found 80% of the time", taken literally: per run, one set
    of annotators (attributes, counts, items, how well the model serves each); the gap the result states for
    ``education=phd`` on null outcomes; then that gap planted in the same annotators with fresh outcomes. The share
    of runs that find it should be about 80%."""
    hits = 0
    stated = []
    for _ in range(args.detectable):
        design = draw_design(rng, counts="heavy")
        ex = run(draw_outcomes(rng, design), n_permutations=args.n_perm, random_state=rng)
        t = ex.candidates()
        gap = float(t.loc[t["description"] == "education=phd", "detectable_gap"].iloc[0])
        stated.append(gap)
        ex = run(draw_outcomes(rng, design, planted="education == 'phd'", gap=gap), n_permutations=args.n_perm,
                 random_state=rng)
        hits += (ex.findings()["description"] == "education=phd").any()
    lo, mid, hi = np.quantile(stated, [0.1, 0.5, 0.9])
    return [row(f"detectable gap of education=phd (median {mid:.3f}, 10-90% {lo:.3f}-{hi:.3f}) planted in the same "
                "annotators: found", hits, args.detectable, "~0.8")]


def spread_rows(args, rng) -> list[dict]:
    """No group served worse on average, but the ``gender=x`` annotators differ among themselves far more than the
    others (sd 0.15 of accuracy against 0.04; accuracy 0.75 + that effect): not exchangeable, so only the
    studentized statistic can hold the level. 300 annotators."""
    out = []
    for counts in ("uniform", "heavy"):
        hits = perm_only = 0
        for _ in range(args.spread):
            n = 300
            table = annotator_table(rng, n)
            count = counts_of(rng, n, counts, table)
            x = (table["gender"] == "x").to_numpy()
            effect = rng.normal(0.0, np.where(x, 0.15, 0.04), n)
            who = np.repeat(np.arange(n), count)
            item = np.concatenate([rng.choice(2000, c, replace=False) for c in count])
            ok = rng.random(len(who)) < np.clip(0.75 + effect[who], 0.0, 1.0)
            y = rng.integers(0, 2, len(who))
            ex = excluded_groups(y, np.where(ok, y, 1 - y), item_ids=item, annotator_ids=table.index[who],
                                 annotators=table, n_permutations=args.n_perm, random_state=rng)
            hits += len(ex.findings()) > 0
            c = ex.candidates()
            perm_only += bool(((c["p_permutation"] <= ex.alpha) & (c["gap"] > 0)).any())
        out.append(row(f"null, gender=x annotators 4x as spread, {counts} counts: anything reported", hits,
                       args.spread, "<= 0.05 (Wilson upper <= 0.075)"))
        out.append(row(f"null, gender=x annotators 4x as spread, {counts} counts: the permutation p-value alone",
                       perm_only, args.spread, "(no wild bootstrap)"))
    return out


#: The many-columns design: ``c0=v0 AND c1=v0``, a pair of exactly 20 annotators, served 0.08 worse among 500
#: annotators with uniform counts (30-120 annotations each), searched among the candidates of 4 or of 11 attribute
#: columns (each of 4 values drawn uniformly, unrelated to anything else): how the threshold and the step-down move as
#: the columns grow.
MANY_COLUMNS = (4, 11)
MANY_SIZE = 20
MANY_GAP = 0.08
MANY_NAME = "c0=v0 AND c1=v0"


def many_columns_data(rng: np.random.Generator, n_columns: int, gap: float):
    """One dataset of the many-columns design (:data:`MANY_COLUMNS`)."""
    design = draw_design(rng, counts="uniform")
    n = len(design["table"])
    values = np.array(["v0", "v1", "v2", "v3"])
    table = pd.DataFrame({f"c{j}": rng.choice(values, n) for j in range(n_columns)}, index=design["table"].index)
    members = np.zeros(n, dtype=bool)
    members[rng.choice(n, MANY_SIZE, replace=False)] = True
    table.loc[members, ["c0", "c1"]] = "v0"
    stray = ~members & (table["c0"] == "v0").to_numpy() & (table["c1"] == "v0").to_numpy()
    table.loc[stray, "c1"] = rng.choice(values[1:], int(stray.sum()))  # the pair holds exactly the 20
    design["table"] = table
    return draw_outcomes(rng, design, planted="c0 == 'v0' and c1 == 'v0'", gap=gap)


def many_columns_rows(args, rng) -> list[dict]:
    """The pair of :data:`MANY_COLUMNS` found first and reported, single-step against step-down p-values on the same
    data and the same permutations (default balance), with 4 and with 11 attribute columns; and the null (no gap)
    rows: the share of runs reporting any group."""
    out = []
    for n_columns in MANY_COLUMNS:
        first = {False: 0, True: 0}
        reported = {False: 0, True: 0}
        disjoint = {False: 0, True: 0}
        candidates, crit = [], []
        for _ in range(args.manycolumns):
            data = many_columns_data(rng, n_columns, MANY_GAP)
            truth = set(data[4].index[data[4].eval("c0 == 'v0' and c1 == 'v0'")])
            twin = copy.deepcopy(rng)  # the step-down sees the single step's permutations
            for sd, gen in ((False, rng), (True, twin)):
                ex = run(data, n_permutations=args.n_perm, random_state=gen, step_down=sd)
                f = ex.findings()
                first[sd] += bool(len(f)) and f.iloc[0]["description"] == MANY_NAME
                reported[sd] += MANY_NAME in set(f["description"])
                disjoint[sd] += any(not (set(ex.members(i)) & truth) for i in f.index)
            candidates.append(ex.counts["n_candidates"])
            crit.append(ex.critical_value)
        name = (f"{MANY_SIZE}-annotator pair {MANY_GAP:g} worse, {n_columns} columns ({np.mean(candidates):.0f} "
                f"candidates, critical value {np.mean(crit):.2f})")
        for sd in (False, True):
            how = "step-down" if sd else "single step"
            out.append(row(f"{name}, {how}: found first", first[sd], args.manycolumns, "(power)"))
            out.append(row(f"{name}, {how}: reported", reported[sd], args.manycolumns, "(power)"))
            out.append(row(f"{name}, {how}: a disjoint group reported", disjoint[sd], args.manycolumns, "<= 0.05"))
    for n_columns in MANY_COLUMNS:
        anything = {False: 0, True: 0}
        for _ in range(args.manycolumns):
            data = many_columns_data(rng, n_columns, 0.0)
            twin = copy.deepcopy(rng)
            for sd, gen in ((False, rng), (True, twin)):
                ex = run(data, n_permutations=args.n_perm, random_state=gen, step_down=sd)
                anything[sd] += len(ex.findings()) > 0
        for sd in (False, True):
            how = "step-down" if sd else "single step"
            out.append(row(f"null, {n_columns} columns, {how}: any group reported", anything[sd], args.manycolumns,
                           "<= 0.05"))
    return out


def exact_rows(args, rng) -> list[dict]:
    """Is the max-T exact when the annotators are exchangeable? A small design (80 annotators, 30-120 annotations,
    two attributes, 199 permutations) run many times: the share of runs whose smallest adjusted p-value is at most
    x should be x for every x, not only at alpha."""
    mins, perm_mins = [], []
    for _ in range(args.exact):
        n = 80
        table = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "e": rng.choice(["u", "v"], n)},
                             index=[f"a{i}" for i in range(n)])
        count = rng.integers(30, 121, n)
        who = np.repeat(np.arange(n), count)
        item = np.concatenate([rng.choice(400, c, replace=False) for c in count])
        effect = rng.normal(0.0, 0.08, n)
        ok = rng.random(len(who)) < 0.8 + effect[who]
        y = rng.integers(0, 2, len(who))
        ex = excluded_groups(y, np.where(ok, y, 1 - y), item_ids=item, annotator_ids=table.index[who],
                             annotators=table, n_permutations=199, random_state=rng)
        mins.append(float(ex.candidates()["p_adjusted"].min()))
        perm_mins.append(float(ex.candidates()["p_permutation"].min()))
    m, mp = np.array(mins), np.array(perm_mins)
    return ([row(f"exchangeable annotators: smallest permutation p <= {x:g}", int((mp <= x + 1e-12).sum()), len(mp),
                 f"~{x:g} (exact)") for x in (0.05, 0.1, 0.2, 0.5)]
            + [row(f"exchangeable annotators: smallest adjusted p (the larger of the two) <= {x:g}",
                   int((m <= x + 1e-12).sum()), len(m), f"<= {x:g}") for x in (0.05, 0.1, 0.2, 0.5)])


#: The real datasets, audited as the command line does (``--model majority``: the paper's Model 1 trained on 70% of
#: the items, audited on the others), with and without the item adjustment.
REAL_COMMANDS = [
    ["popquorn", "--discover"],
    ["popquorn", "--discover", "--adjust", "items"],
    ["multipico", "--discover"],
    ["multipico", "--discover", "--adjust", "items"],
    ["lewidi2023/HS-Brexit", "--discover"],
    ["lewidi2023/HS-Brexit", "--discover", "--min-annotators", "3"],
]


def real_rows() -> None:
    """Run ``aif360-subjective audit DATA --model majority --ci none --discover ...`` on the real datasets and print
    each command with its answer lines."""
    import os
    import subprocess

    data = Path(os.environ.get("AIF360_SUBJECTIVE_DATA", "~/aif360_subjective_data")).expanduser()
    for folder, *options in REAL_COMMANDS:
        argv = ["audit", str(data / folder), "--model", "majority", "--ci", "none", *options]
        out = subprocess.run([sys.executable, "-m", "aif360_subjective", *argv], capture_output=True, text=True,
                             check=True).stdout
        lines = out.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("Whose opinions are excluded"))
        shown = " ".join(["aif360-subjective", "audit", f"$AIF360_SUBJECTIVE_DATA/{folder}", *argv[2:]])
        print(f"\n$ {shown}")
        print("\n".join(lines[start:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=2029)
    parser.add_argument("--only", choices=["planted", "null", "confounded", "detectable", "exact", "spread",
                                           "manycolumns", "real"],
                        default=None)
    parser.add_argument("--spread", type=int, default=None,
                        help="runs per row of the unequal-spread null (default 400; --quick 40)")
    parser.add_argument("--exact", type=int, default=None,
                        help="runs of the exactness check (default 1000; --quick 100)")
    parser.add_argument("--null", type=int, default=None, help="runs per null row (default 400; --quick 40)")
    parser.add_argument("--rows", nargs="+", default=None,
                        help="null rows whose name contains one of these words (default: all)")
    parser.add_argument("--planted", type=int, default=None, help="runs per planted row (default 40; --quick 10)")
    parser.add_argument("--confounded", type=int, default=None,
                        help="runs per item-confounded row (default 200; --quick 20)")
    parser.add_argument("--detectable", type=int, default=None,
                        help="runs of the detectable-gap row (default 100; --quick 20)")
    parser.add_argument("--manycolumns", type=int, default=None,
                        help="runs per row of the many-columns design (default 40; --quick 10)")
    parser.add_argument("--real", action="store_true", help="also run the real datasets through the command line")
    args = parser.parse_args()
    if args.only == "real":
        real_rows()
        return
    quick = args.quick
    args.null = args.null or (40 if quick else 400)
    args.planted = args.planted or (10 if quick else 40)
    args.confounded = args.confounded or (20 if quick else 200)
    args.detectable = args.detectable or (20 if quick else 100)
    args.exact = args.exact or (100 if quick else 1000)
    args.spread = args.spread or (40 if quick else 400)
    args.manycolumns = args.manycolumns or (10 if quick else 40)
    args.n_perm = 499 if quick else 999
    rows: list[dict] = []
    parts = {"planted": planted_rows, "null": null_rows, "confounded": confounded_rows, "detectable": detectable_rows,
             "exact": exact_rows, "spread": spread_rows, "manycolumns": many_columns_rows}
    for i, (key, fn) in enumerate(parts.items()):
        if args.only and key != args.only:
            continue
        t0 = time.time()
        # one generator per part: a part run alone (--only) gives the rows of the full run
        new = fn(args, np.random.default_rng([args.seed, i]))
        rows += new
        table = pd.DataFrame(new).to_string(index=False, float_format=lambda v: f"{v:.3f}")
        print(table, f"  [{time.time() - t0:.0f}s]", flush=True)
    print("\nAll rows")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if args.real:
        real_rows()


if __name__ == "__main__":
    main()
