"""Slices as people write them (``colour = g AND age >= 47``): does the first finding describe the planted rows,
for every task, beside SliceLine, DivExplorer and a threshold max-T baseline?

Tables (:func:`natural_table`, 5,000 rows): four categorical columns of four levels (``colour``, ``region``,
``plan``, ``channel``) and four numeric ones of different kinds (``age`` integers 18-90, ``income`` log-normal
rounded to 100, ``score`` standard normal, ``hours`` uniform on [10, 70]), all independent. The planted slice
(about 9 % of the rows) has one of four shapes:

* ``cat_threshold``: a category AND a one-sided threshold (``>=`` or ``<``, drawn) that leaves 25-45 % of the
  rows;
* ``two_thresholds``: two one-sided thresholds on two numeric columns, each leaving 20-45 % of the rows;
* ``window_cat``: a numeric window ``a <= x < b`` of 15-25 % of the rows (at least 5 % of the rows on each side)
  AND a category;
* ``tail_cat``: a lower tail ``x < t`` of 15-25 % of the rows AND a category.

The category's level takes the share that brings the slice to 9 % in expectation. Thresholds sit at random
positions: each cut is drawn uniformly among the column's values that leave the wanted share, excluding every
value whose share of rows below it lies within 1 % of a multiple of 5 % (so no grid of deciles, quintiles,
quartiles or ventiles lines up with a planted edge).

Tasks (effect on the planted rows; ``--null`` tables have none):

* ``binary_sp``: favourable prediction 0.5 -> 0.3, truth equal to the prediction with probability 0.8; metric
  ``statistical_parity``, per-row loss the unfavourable prediction;
* ``binary_er``: truth favourable with probability 0.5, error 0.2 -> 0.4; ``accuracy_error``, loss the error;
* ``multiclass``: 3 classes (cat/dog/owl), error 0.15 -> 0.35; ``accuracy_error``, loss the error;
* ``ordinal``: ratings 1-5, off by one level 0.25 -> 0.5 (kept on the scale); ``mean_absolute_error``;
* ``regression``: truth N(0, 1), prediction truth + N(0, 1), the noise doubled in the slice (absolute error x 2);
  ``mean_absolute_error``.

Methods, all on the same table:

* ``ours patterns``: ``detect_subgroups(X, y, yhat, task=..., discovery="patterns", random_state=seed)``, first
  row of ``ranking(metric, kind="all", n=1)`` (alpha 0.05); ``ours default``: the same with the default
  discovery. A null table "reports something" when that ranking lists anything.
* ``SliceLine`` and ``DivExplorer`` as ``benchmarks/slice_finders.py`` runs them (binary tasks) and as
  ``benchmarks/tasks_planted.py`` runs them with a per-row loss (the other tasks): numeric columns in 5 quantile
  bins, SliceLine ``alpha=0.99, k=1, max_l=3``, DivExplorer ``min_support=0.01`` reported when t >= 2.
* ``max-T thresholds`` (:func:`threshold_max_t`): one-sided conditions ``x >= q`` and ``x < q`` at the 19 quantile
  edges (5 %, ..., 95 %) of each numeric column, ``column = level`` for each category, pairs of two conditions on
  different columns and windows ``q_a <= x < q_b`` on one column; candidates of at least 1 % of the rows and
  leaving at least 1 %; Welch t of the per-row loss (slice against the rest, larger loss in the slice); the
  permutation max-T over every candidate with ``--permutations`` (200) permutations of the loss. The first
  finding is the largest t; the table reports something when its adjusted p is at most 0.05.

Printed per shape x task x method: the first finding describes the slice (Jaccard with the planted rows >= 0.7;
>= 0.5 for ``window_cat``) in k of n tables, the median Jaccard (0 when nothing is reported) and seconds per table;
then per task x method the null tables reporting something, with the binomial reading of that count under an
exact test at B = 200 as ``benchmarks/null_exactness.py --counts`` prints it (P(at least this many) and the
Wilson 95 % upper bound); then the timing block: 20,000 rows ours (default discovery and ``patterns``) against
DivExplorer (``min_support=0.01``), and ours (``patterns``) at 50,000 and 200,000 rows with the growth factor
(one run each, each in a child process of its own, in wall-clock and CPU seconds: on a shared machine the CPU
seconds are the measure). ``--option KEY=VALUE`` passes a keyword to our methods' ``detect_subgroups`` (e.g.
``--option thresholds=20``), in the planted, null and timing runs alike; ``--candidates 10 20 None`` prints
the items and mined patterns of the timing tables for each grid of one-sided conditions. ``--diagnose`` prints,
after each planted table whose first finding (``ours patterns``) misses the slice, that finding and the
neighbouring cuts of it and of the pattern closest to the planted rows (:func:`diagnose`), and per cell what the
largest-bound rule among inseparable neighbouring cuts would list first (:func:`bound_choice`, a simulation).
``--records FILE`` appends one CSV line per (table, method), with the planted slice's description;
``--summarise FILE ... --per-shape`` reads them as the issue's target is written, per shape over every task and
``--first`` block (found first k/n with its Wilson 95 % interval, 9/10 or 8/10 for windows), then per shape x
task, shape x block and cell, and lists every miss (:func:`summarise_per_shape`).

Usage: ``python benchmarks/natural_conditions.py [--tables 3] [--null 20] [--shapes ...] [--tasks ...]
[--methods ...] [--skip-timing] [--timing-only]``. Peers need ``pip install sliceline divexplorer``; a missing one
is named and skipped.

References:
    P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing", 1993 (max-T). B. L. Welch, "The
    generalization of Student's problem when several different population variances are involved",
    Biometrika 34, 1947. E. Pastor, L. de Alfaro and E. Baralis, "Looking for Trouble: Analyzing Classifier
    Behavior via Pattern Divergence", SIGMOD 2021 (DivExplorer). S. Sagadeeva and M. Boehm, "SliceLine: Fast,
    Linear-Algebra-based Slice Finding for ML Model Debugging", SIGMOD 2021.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if str(HERE.parent) not in sys.path:  # PYTHONPATH (another checkout of the package) comes first when given
    sys.path.append(str(HERE.parent))

import aif360_subjective  # noqa: E402  (imported first, so the helpers' own path changes cannot swap it)

SHAPES = ("cat_threshold", "two_thresholds", "window_cat", "tail_cat")
TASKS = ("binary_sp", "binary_er", "multiclass", "ordinal", "regression")
METRIC = {"binary_sp": "statistical_parity", "binary_er": "accuracy_error", "multiclass": "accuracy_error",
          "ordinal": "mean_absolute_error", "regression": "mean_absolute_error"}
TASK_ARG = {"binary_sp": "binary", "binary_er": "binary", "multiclass": "multiclass", "ordinal": "ordinal",
            "regression": "regression"}
CATEGORICAL = {"colour": ("r", "g", "b", "y"), "region": ("north", "south", "east", "west"),
               "plan": ("basic", "plus", "pro", "team"), "channel": ("web", "phone", "shop", "mail")}
NUMERIC = ("age", "income", "score", "hours")
SLICE_SHARE = 0.09
GRID_STEP = 0.05  # no planted edge within GRID_GAP of a multiple of this share (deciles, quintiles, ventiles)
GRID_GAP = 0.01
HIT = {"cat_threshold": 0.7, "two_thresholds": 0.7, "window_cat": 0.5, "tail_cat": 0.7}


# ------------------------------------------------------------------ the generator
@dataclass
class NaturalTable:
    """One generated table: features, the planted rows and how a person would write them."""

    X: pd.DataFrame
    planted: np.ndarray
    conditions: list[tuple[str, str, object]]  # (column, "==" / ">=" / "<", value)
    shape: str

    @property
    def description(self) -> str:
        return " AND ".join(f"{c} {op} {v:g}" if isinstance(v, float) else f"{c} {op} {v}"
                            for c, op, v in self.conditions)


def _features(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    age = np.clip(np.rint(rng.normal(42.0, 14.0, n)), 18, 90).astype(np.int64)
    income = np.round(np.exp(rng.normal(10.3, 0.6, n)), -2)
    score = rng.normal(0.0, 1.0, n)
    hours = rng.uniform(10.0, 70.0, n)
    return {"age": age, "income": income, "score": score, "hours": hours}


def off_grid(share_below: np.ndarray) -> np.ndarray:
    """True where a share of rows lies at least ``GRID_GAP`` from every multiple of ``GRID_STEP``."""
    k = np.rint(np.asarray(share_below) / GRID_STEP)
    return np.abs(np.asarray(share_below) - k * GRID_STEP) >= GRID_GAP - 1e-12


def _shares_below(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The column's distinct values and the share of rows strictly below each."""
    values = np.unique(x)
    return values, np.searchsorted(np.sort(x), values, side="left") / len(x)


def draw_cut(x: np.ndarray, rng: np.random.Generator, side: str, low: float, high: float):
    """A cut ``t`` (one of the column's values) such that the rows ``x >= t`` (side ``">="``) or ``x < t``
    (``"<"``) are ``low`` to ``high`` of the rows and the share below ``t`` is off the quantile grid; drawn
    uniformly among the values that qualify. ``None`` when none does."""
    values, ok = cut_choices(x, side, low, high)
    if not len(ok):
        return None
    return values[ok[rng.integers(len(ok))]]


def cut_choices(x: np.ndarray, side: str, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """The column's distinct values and the positions of those :func:`draw_cut` may draw."""
    values, below = _shares_below(x)
    share = below if side == "<" else 1.0 - below
    return values, np.flatnonzero((share >= low) & (share <= high) & off_grid(below))


def _value(v):
    return int(v) if isinstance(v, np.integer) else float(v)


def natural_table(shape: str, n: int = 5000, random_state: int = 0) -> NaturalTable:
    """Features and one planted slice of ``shape`` (see the module docstring), about 9 % of ``n`` rows.

    Raises:
        ValueError: an unknown shape.
    """
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")
    rng = np.random.default_rng(random_state)
    num = _features(n, rng)
    conditions: list[tuple[str, str, object]] = []
    mask = np.ones(n, dtype=bool)

    def cut(col: str, side: str, low: float, high: float) -> float:
        nonlocal mask
        t = draw_cut(num[col], rng, side, low, high)
        if t is None:  # cannot happen with these columns at 5,000 rows; kept explicit for small n
            raise ValueError(f"no off-grid cut of {col!r} leaves {low:.0%}-{high:.0%} of {n} rows")
        conditions.append((col, side, _value(t)))
        rows = num[col] >= t if side == ">=" else num[col] < t
        mask &= rows
        return float(rows.mean())

    if shape == "cat_threshold":
        share = cut(str(rng.choice(NUMERIC)), str(rng.choice([">=", "<"])), 0.25, 0.45)
    elif shape == "two_thresholds":
        a, b = rng.choice(NUMERIC, size=2, replace=False)
        s1 = cut(str(a), str(rng.choice([">=", "<"])), 0.20, 0.45)
        want, side = SLICE_SHARE / s1, str(rng.choice([">=", "<"]))
        for tol in (0.02, 0.04, 0.08):  # an integer column's values may jump over the narrowest range
            if len(cut_choices(num[str(b)], side, max(0.20, want - tol), min(0.45, want + tol))[1]):
                break
        cut(str(b), side, max(0.20, want - tol), min(0.45, want + tol))
        share = 1.0
    elif shape == "window_cat":
        col = str(rng.choice(NUMERIC))
        values, below = _shares_below(num[col])
        width = rng.uniform(0.15, 0.25)
        start = rng.uniform(0.05, 0.95 - width)
        ok_lo = np.flatnonzero(off_grid(below) & (below >= 0.05) & (below <= 0.75))
        for lo_i in ok_lo[np.argsort(np.abs(below[ok_lo] - start), kind="stable")]:  # nearest start with an end
            ok_hi = np.flatnonzero(off_grid(below) & (below - below[lo_i] >= 0.15)
                                   & (below - below[lo_i] <= 0.25) & (below <= 0.95))
            if len(ok_hi):
                break
        hi_i = ok_hi[np.argmin(np.abs(below[ok_hi] - below[lo_i] - width))]
        lo, hi = values[lo_i], values[hi_i]
        conditions += [(col, ">=", _value(lo)), (col, "<", _value(hi))]
        mask &= (num[col] >= lo) & (num[col] < hi)
        share = float(mask.mean())
    else:  # tail_cat
        share = cut(str(rng.choice(NUMERIC)), "<", 0.15, 0.25)
    cols: dict[str, np.ndarray] = {}
    if shape != "two_thresholds":
        cat = str(rng.choice(list(CATEGORICAL)))
        level = int(rng.integers(4))
        q = min(SLICE_SHARE / share, 0.95)
    for c, levels in CATEGORICAL.items():
        if shape != "two_thresholds" and c == cat:
            p = np.full(4, (1.0 - q) / 3.0)
            p[level] = q
            codes = rng.choice(4, size=n, p=p)
            mask &= codes == level
            conditions.insert(0, (c, "==", levels[level]))
        else:
            codes = rng.integers(0, 4, n)
        cols[c] = np.asarray(levels, dtype=object)[codes]
    X = pd.DataFrame({**cols, **num})
    return NaturalTable(X=X, planted=mask, conditions=conditions, shape=shape)


def outcomes(task: str, planted: np.ndarray, effect: bool, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(y_true, y_pred) of ``task`` with the planted rows treated worse when ``effect`` (module docstring)."""
    rng = np.random.default_rng(50_000 + seed)
    n = len(planted)
    s = planted & effect
    if task == "binary_sp":
        yhat = (rng.random(n) < np.where(s, 0.3, 0.5)).astype(np.int64)
        return np.where(rng.random(n) < 0.8, yhat, 1 - yhat), yhat
    if task == "binary_er":
        y = (rng.random(n) < 0.5).astype(np.int64)
        return y, np.where(rng.random(n) < np.where(s, 0.6, 0.8), y, 1 - y)
    if task == "multiclass":
        names = np.array(["cat", "dog", "owl"], dtype=object)
        y = rng.integers(0, 3, n)
        wrong = rng.random(n) < np.where(s, 0.35, 0.15)
        return names[y], names[np.where(wrong, (y + rng.integers(1, 3, n)) % 3, y)]
    if task == "ordinal":
        y = rng.integers(1, 6, n)
        off = rng.random(n) < np.where(s, 0.5, 0.25)
        step = np.where(rng.random(n) < 0.5, -1, 1)
        step = np.where(y + step < 1, 1, np.where(y + step > 5, -1, step))  # stay on the scale
        return y, np.where(off, y + step, y)
    y = rng.normal(size=n)
    return y, y + np.where(s, 2.0, 1.0) * rng.normal(size=n)


def row_loss(task: str, y: np.ndarray, yhat: np.ndarray) -> np.ndarray:
    """The per-row loss whose mean the task's metric compares (larger = disadvantaged)."""
    if task == "binary_sp":
        return (np.asarray(yhat) == 0).astype(np.float64)
    if task in ("binary_er", "multiclass"):
        return (np.asarray(y) != np.asarray(yhat)).astype(np.float64)
    return np.abs(np.asarray(yhat, dtype=np.float64) - np.asarray(y, dtype=np.float64))


# ------------------------------------------------------------------ the threshold max-T baseline
@dataclass
class Candidates:
    """Base indicators and the candidates built from them (each an AND of at most two signed indicators).

    Every candidate's sum of a row value follows from the sums over the pairwise products of the indicators
    (``S[:, a] * S[:, b]``, a <= b) and the total: ``A and not B = A - (A and B)``, ``not A and not B = total - A
    - B + (A and B)``. One matrix product of those products with every permutation's values gives every
    candidate's sums for every permutation at once.
    """

    S: np.ndarray  # n x K0 bool: numeric x >= q_k, categorical x == v
    names: list[str]  # K0 descriptions of the base indicators
    complement: list[str]  # K0 descriptions of the complements ("" for a categorical level)
    i: np.ndarray  # candidate -> first indicator
    j: np.ndarray  # candidate -> second indicator (== i for a single condition)
    si: np.ndarray  # +1 indicator, -1 its complement
    sj: np.ndarray  # 0 for a single condition

    def describe(self, c: int) -> str:
        def one(k: int, s: int) -> str:
            return self.names[k] if s > 0 else self.complement[k]
        if self.sj[c] == 0:
            return one(self.i[c], self.si[c])
        return f"{one(self.i[c], self.si[c])} AND {one(self.j[c], self.sj[c])}"

    def member(self, c: int) -> np.ndarray:
        a = self.S[:, self.i[c]]
        a = a if self.si[c] > 0 else ~a
        if self.sj[c] == 0:
            return a
        b = self.S[:, self.j[c]]
        return a & (b if self.sj[c] > 0 else ~b)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(a, b), a <= b, of every indicator pair in the upper triangle, row by row."""
        return np.triu_indices(self.S.shape[1])

    def _pair_index(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        k = self.S.shape[1]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        return lo * k - lo * (lo - 1) // 2 + (hi - lo)  # position of (lo, hi) in np.triu_indices(k)

    def sums(self, g: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Each candidate's sums (K x m) from ``g`` (pairs x m: sums over ``S[:, a] * S[:, b]``) and the totals
        (m,)."""
        gi = g[self._pair_index(self.i, self.i)]
        gj = g[self._pair_index(self.j, self.j)]
        gij = g[self._pair_index(self.i, self.j)]
        si, sj = self.si[:, None], self.sj[:, None]
        single = np.where(si > 0, gi, total - gi)
        pair = np.where(si > 0, np.where(sj > 0, gij, gi - gij),
                        np.where(sj > 0, gj - gij, total - gi - gj + gij))
        return np.where(sj == 0, single, pair)


def threshold_candidates(X: pd.DataFrame, edges: int = 19, min_share: float = 0.01) -> Candidates:
    """One-sided conditions at ``edges`` quantile edges of each numeric column (both sides), ``column = level``
    of each categorical one, every AND of two conditions on different columns and every window
    ``q_a <= x < q_b`` of one column; those of at least ``min_share`` of the rows that leave as many."""
    cols, names, comp, kind = [], [], [], []
    for c in X.columns:
        x = X[c].to_numpy()
        if c in NUMERIC:
            qs = np.unique(np.quantile(x, np.arange(1, edges + 1) / (edges + 1)))
            for q in qs:
                m = x >= q
                if 0 < m.sum() < len(x):
                    cols.append(m)
                    names.append(f"{c} >= {q:.4g}")
                    comp.append(f"{c} < {q:.4g}")
                    kind.append(c)
        else:
            for v in pd.unique(x):
                cols.append(x == v)
                names.append(f"{c} = {v}")
                comp.append("")
                kind.append(c)
    S = np.column_stack(cols)
    n, k0 = S.shape
    kind_a = np.array(kind, dtype=object)
    numeric = np.array([k in NUMERIC for k in kind], dtype=bool)
    signs = {a: ((1, -1) if numeric[a] else (1,)) for a in range(k0)}
    cand_i, cand_j, cand_si, cand_sj = [], [], [], []
    for a in range(k0):  # singles: both sides of a numeric edge, a categorical level
        for s in signs[a]:
            cand_i.append(a), cand_j.append(a), cand_si.append(s), cand_sj.append(0)
    for a in range(k0):
        for b in range(a + 1, k0):
            if kind_a[a] != kind_a[b]:
                for s in signs[a]:
                    for t in signs[b]:
                        cand_i.append(a), cand_j.append(b), cand_si.append(s), cand_sj.append(t)
            elif numeric[a]:  # x >= q_a AND x < q_b, q_a < q_b (edges are sorted): a window
                cand_i.append(a), cand_j.append(b), cand_si.append(1), cand_sj.append(-1)
    cand = Candidates(S, names, comp, np.array(cand_i), np.array(cand_j), np.array(cand_si, dtype=np.int8),
                      np.array(cand_sj, dtype=np.int8))
    pa, pb = cand.pairs()
    counts = (S[:, pa] & S[:, pb]).sum(axis=0).astype(np.float64)[:, None]
    size = cand.sums(counts, np.array([float(n)]))[:, 0]
    least = max(min_share * n, 2)
    keep = (size >= least) & (size <= n - least)
    cand.i, cand.j, cand.si, cand.sj = cand.i[keep], cand.j[keep], cand.si[keep], cand.sj[keep]
    return cand


def welch_t(n_s: np.ndarray, s1: np.ndarray, s2: np.ndarray, n: float, t1, t2) -> np.ndarray:
    """Welch's t of the mean of a value in each candidate (count ``n_s``, sum ``s1``, sum of squares ``s2``)
    against the other rows, from the totals ``n``, ``t1``, ``t2``; positive when the candidate's mean is larger."""
    n_r = n - n_s
    m_s, m_r = s1 / n_s, (t1 - s1) / n_r
    v_s = np.maximum(s2 - s1 * m_s, 0.0) / (n_s - 1)
    v_r = np.maximum((t2 - s2) - (t1 - s1) * m_r, 0.0) / (n_r - 1)
    se = np.sqrt(v_s / n_s + v_r / n_r)
    return np.where(se > 0, (m_s - m_r) / np.where(se > 0, se, 1.0), 0.0)


def threshold_max_t(X: pd.DataFrame, loss: np.ndarray, permutations: int = 200, seed: int = 0,
                    cand: Candidates | None = None, chunk: int = 50) -> tuple[np.ndarray | None, float, str]:
    """The baseline: (rows of the largest-t candidate, or None when its max-T adjusted p exceeds 0.05; that p;
    its description)."""
    cand = cand if cand is not None else threshold_candidates(X)
    pa, pb = cand.pairs()
    P = (cand.S[:, pa] & cand.S[:, pb]).astype(np.float32)  # n x pairs
    n = len(loss)
    v = np.asarray(loss, dtype=np.float64)
    v = v - v.mean()  # centred: the float32 sums keep their precision
    n_s = cand.sums(P.sum(axis=0, dtype=np.float64)[:, None], np.array([float(n)]))

    def t_of(W: np.ndarray) -> np.ndarray:  # W: n x m values, one column per (permuted) loss
        W = W.astype(np.float32)
        g = (P.T @ np.hstack([W, W * W])).astype(np.float64)
        m = W.shape[1]
        tot1, tot2 = W.sum(axis=0, dtype=np.float64), (W.astype(np.float64) ** 2).sum(axis=0)
        return welch_t(n_s, cand.sums(g[:, :m], tot1), cand.sums(g[:, m:], tot2), float(n), tot1, tot2)

    t_obs = t_of(v[:, None])[:, 0]
    best = int(np.argmax(t_obs))
    rng = np.random.default_rng(seed)
    maxima = []
    for start in range(0, permutations, chunk):
        m = min(chunk, permutations - start)
        W = np.column_stack([v[rng.permutation(n)] for _ in range(m)])
        maxima.append(t_of(W).max(axis=0))
    p = (1 + int(np.sum(np.concatenate(maxima) >= t_obs[best] - 1e-6))) / (permutations + 1)
    return (cand.member(best) if p <= 0.05 else None), p, cand.describe(best)


# ------------------------------------------------------------------ the methods
@dataclass
class Result:
    rows: np.ndarray | None
    seconds: float
    description: str = ""
    report: object = None  # ours: the report (for --diagnose)


def jaccard(a: np.ndarray | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float((a & b).sum() / max((a | b).sum(), 1))


OURS_OPTIONS: dict[str, object] = {}  # --option KEY=VALUE: detect_subgroups keywords of our methods


def parse_option(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` of ``--option``: the value an int, None or a float when it reads as one, else the text."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--option takes KEY=VALUE, got {text!r}")
    if raw == "None":
        return key, None
    for kind in (int, float):
        try:
            return key, kind(raw)
        except ValueError:
            pass
    return key, raw


def run_ours(discovery: str | None, task: str, X, y, yhat, seed: int) -> Result:
    from slice_finders import _members_of_first

    from aif360_subjective.detectors import detect_subgroups

    kw = {**OURS_OPTIONS, **({"discovery": discovery} if discovery else {})}
    t0 = time.perf_counter()
    rep = detect_subgroups(X, y, yhat, task=TASK_ARG[task], random_state=seed, **kw)
    rk = rep.ranking(METRIC[task], kind="all", n=1)
    secs = time.perf_counter() - t0
    if not len(rk):
        return Result(None, secs, report=rep)
    return Result(_members_of_first(rep, rk, "all"), secs, str(rk["subgroup"].iloc[0]), rep)


def run_peer(name: str, task: str, X, y, yhat, seed: int) -> Result:
    import slice_finders as sf
    import tasks_planted as tp

    t0 = time.perf_counter()
    D = sf.discretise(X)
    if task.startswith("binary"):
        outcome = "SP" if task == "binary_sp" else "ER"
        fn = sf.run_sliceline if name == "SliceLine" else sf.run_divexplorer
        rows = fn(D, y, yhat, outcome).found
    else:
        fn = tp.run_sliceline if name == "SliceLine" else tp.run_divexplorer
        rows = fn(D, row_loss(task, y, yhat))
    return Result(rows, time.perf_counter() - t0)


def run_baseline(task: str, X, y, yhat, seed: int, permutations: int = 200) -> Result:
    t0 = time.perf_counter()
    rows, p, desc = threshold_max_t(X, row_loss(task, y, yhat), permutations, seed)
    return Result(rows, time.perf_counter() - t0, f"{desc} (p {p:.3f})")


def methods(names: list[str], permutations: int) -> tuple[dict[str, Callable], list[str]]:
    out: dict[str, Callable] = {}
    missing = []
    for m in names:
        if m == "ours_patterns":
            out["ours patterns"] = lambda *a: run_ours("patterns", *a)
        elif m == "ours_default":
            out["ours default"] = lambda *a: run_ours(None, *a)
        elif m in ("SliceLine", "DivExplorer"):
            if importlib.util.find_spec(m.lower()) is None:
                missing.append(f"{m}: not installed (pip install {m.lower()}); skipped")
            else:
                out[m] = lambda *a, m=m: run_peer(m, *a)
        elif m == "maxT":
            out["max-T thresholds"] = lambda *a: run_baseline(*a, permutations=permutations)
        else:
            raise SystemExit(f"unknown method {m!r}")
    return out, missing


# ------------------------------------------------------------------ --diagnose: the neighbouring cuts of a miss
def _one_sided(items, j: int) -> tuple[str, str] | None:
    """(column, side) of item ``j`` when it is a one-sided numeric condition, else None."""
    v = items.values[j]
    if not isinstance(v, tuple):
        return None
    if np.isinf(v[0]):
        return items.columns[items.column[j]], "<"
    if np.isinf(v[1]):
        return items.columns[items.column[j]], ">="
    return None


def _grid_steps(items) -> dict[int, int]:
    """Per one-sided item, the position of its cut among the cuts of its column and side (one grid step apart =
    positions one apart)."""
    by_key: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for j in range(len(items.values)):
        key = _one_sided(items, j)
        if key is not None:
            v = items.values[j]
            by_key.setdefault(key, []).append((v[1] if key[1] == "<" else v[0], j))
    return {j: k for cuts in by_key.values() for k, (_, j) in enumerate(sorted(cuts))}


def neighbouring_cuts(fam, centre: int) -> np.ndarray:
    """The patterns of ``fam`` with the same conditions as pattern ``centre`` except that each one-sided cut may
    sit one grid step away (same columns and sides), ``centre`` included."""
    items = fam.items
    steps = _grid_steps(items)

    def signature(i: int) -> tuple[frozenset, dict]:
        fixed, cuts = [], {}
        for j in fam.patterns[i]:
            key = _one_sided(items, j)
            if key is None:
                fixed.append(int(j))
            else:
                cuts[key] = steps[j]
        return frozenset(fixed), cuts

    fixed0, cuts0 = signature(centre)
    out = []
    for i in range(len(fam.patterns)):
        if len(fam.patterns[i]) != len(fam.patterns[centre]):
            continue
        fixed, cuts = signature(i)
        if fixed == fixed0 and cuts.keys() == cuts0.keys() and all(abs(cuts[k] - cuts0[k]) <= 1 for k in cuts):
            out.append(i)
    return np.array(out, dtype=np.intp)


def diagnose(rep, metric: str, planted: np.ndarray, label: str, loss: np.ndarray | None = None) -> None:
    """Print a table's first finding and the neighbouring cuts (:func:`neighbouring_cuts`) of it and of the
    pattern closest to the planted rows (largest Jaccard): each one's rows, Jaccard, max-T statistic (penalised z,
    disadvantaged side), adjusted p, the 95 % bound nearest the reference, whether it is significant, its rank in
    the full significant order (``keep_redundant=True``) and in the listed ranking ("red." when the redundancy
    filter leaves it out), and for a pair nested with the first finding the specialisation z (the smaller one's
    rate against the larger one's other rows) and the dilution z (those other rows against the rows outside the
    larger), and with the per-row ``loss`` the rows between the two (planted among them, and the mean loss of
    those planted rows against that of every planted row: how far the rows between stray from the slice)."""
    from aif360_subjective.detectors.ranking import check_query, significant_set

    sig = rep.significance
    fam = sig.candidates.family("pattern")
    pos = sig.candidates.positions("pattern")
    q = check_query(sig, metric, "pattern", None, "disadvantaged", 0.05, 1, 0.95, None, "fwer", True)
    part = sig.metrics.table.iloc[pos]
    big = part["size"].to_numpy(dtype=np.float64, na_value=0.0) >= 1
    sel, bound, p_dir = significant_set(sig, q, pos, ("pattern",), big)
    test_no = sig.metrics.metric_test[metric]
    stat = sig.max_t((test_no,)).statistic(test_no, 0)[pos]
    M = fam.members().tocsc().astype(np.float64)
    size = np.asarray(M.sum(axis=0)).ravel()
    inter = np.asarray(M.T @ planted.astype(np.float64)).ravel()
    jac = inter / np.maximum(size + planted.sum() - inter, 1)
    full = rep.ranking(metric, kind="pattern", n=None, keep_redundant=True)
    listed = rep.ranking(metric, kind="pattern", n=None)
    full_rank = dict(zip(full.index, full["rank"], strict=True))
    listed_rank = dict(zip(listed.index, listed["rank"], strict=True))
    counts, total, z_of = sig.metrics.redundancy_counts(pos, metric)
    if not len(listed):
        print(f"### {label}: nothing listed")
        return
    first = int(listed.index[0])
    best = int(np.argmax(jac))
    cols = M.T @ M[:, [first]]  # overlap of every pattern with the first finding
    overlap = np.asarray(cols.todense()).ravel()
    show = np.unique(np.concatenate([neighbouring_cuts(fam, first), neighbouring_cuts(fam, best)]))
    show = show[np.lexsort((-stat[show], np.nan_to_num(p_dir[show], nan=2.0)))]
    floor = 1 / (sig.max_t((test_no,)).n_permutations + 1)
    print(f"### {label}: first {fam.description(first)!r} J {jac[first]:.2f}; planted-best "
          f"{fam.description(best)!r} J {jac[best]:.2f} (significant: {bool(sel.keep[best])}, "
          f"p {p_dir[best]:.4f}, first's p {p_dir[first]:.4f}, floor {floor:.4f})")
    if loss is not None:
        print(f"planted rows' mean loss {loss[planted].mean():.3f}, the other rows' {loss[~planted].mean():.3f}")
    print("| pattern | rows | J | statistic | p adj | bound | sig | rank all | rank listed | nested with first | "
          "z spec | z dil | between: rows, planted (their mean loss) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i in show:
        rel, zs, zd, between = "", np.nan, np.nan, ""
        if i != first and overlap[i] in (size[i], size[first]):
            g, s_ = (i, first) if size[i] > size[first] else (first, i)
            rel = "holds it" if g == i else "inside it"
            ring = (np.asarray(M[:, g].todense()).ravel() > 0) & ~(np.asarray(M[:, s_].todense()).ravel() > 0)
            between = f"{int(ring.sum())}, {int((ring & planted).sum())}"
            if loss is not None and (ring & planted).any():
                between += f" ({loss[ring & planted].mean():.3f})"
            inner, ring = counts[s_][None, :], (counts[g] - counts[s_])[None, :]
            outside = (total - counts[g])[None, :]
            zs, zd = float(np.ravel(z_of(inner, ring))[0]), float(np.ravel(z_of(ring, outside))[0])
        mark = "**" if i == first else ("*" if i == best else "")
        print(f"| {mark}{fam.description(i)}{mark} | {int(size[i])} | {jac[i]:.2f} | {stat[i]:.3f} | {p_dir[i]:.4f} | "
              f"{bound[i]:.4f} | {'y' if sel.keep[i] else 'n'} | {full_rank.get(i, '')} | "
              f"{listed_rank.get(i, 'red.' if sel.keep[i] else '')} | {rel} | {zs:.2f} | {zd:.2f} | {between} |")


def bound_choice(rep, metric: str, planted: np.ndarray) -> tuple[float, float]:
    """(Jaccard of the first finding, Jaccard of the cut the bound rule would list first): among the first
    finding and its significant neighbouring cuts nested with it that the redundancy tests cannot separate from it
    (each redundant given the other, ``|z| <`` :data:`~aif360_subjective.detectors.redundancy.REDUNDANCY_Z` both
    ways), the one whose 95 % bound nearest the reference is farthest from it (the largest effect bound). A
    simulation of that rule on the report's numbers (the rest of the ranking as it is), for ``--diagnose``."""
    from aif360_subjective.detectors.ranking import check_query, significant_set
    from aif360_subjective.detectors.redundancy import REDUNDANCY_Z

    listed = rep.ranking(metric, kind="pattern", n=1)
    if not len(listed):
        return 0.0, 0.0
    sig = rep.significance
    fam = sig.candidates.family("pattern")
    pos = sig.candidates.positions("pattern")
    q = check_query(sig, metric, "pattern", None, "disadvantaged", 0.05, 1, 0.95, None, "fwer", True)
    big = np.ones(len(pos), dtype=bool)
    sel, bound, _ = significant_set(sig, q, pos, ("pattern",), big)
    counts, total, z_of = sig.metrics.redundancy_counts(pos, metric)
    first = int(listed.index[0])
    members = fam.members().tocsc()  # formed once (a mined family forms it from its bitsets)
    rows = {i: np.asarray(members[:, i].todense()).ravel().astype(bool) for i in neighbouring_cuts(fam, first)}
    best, key = first, -bound[first] if q.descending else bound[first]
    for i, r in rows.items():
        if i == first or not sel.keep[i]:
            continue
        f = rows[first]
        if (r & f).sum() not in (r.sum(), f.sum()):
            continue  # not nested
        g, s_ = (i, first) if r.sum() > f.sum() else (first, i)
        zs = np.ravel(z_of(counts[s_][None, :], (counts[g] - counts[s_])[None, :]))[0]
        zd = np.ravel(z_of((counts[g] - counts[s_])[None, :], (total - counts[g])[None, :]))[0]
        k = -bound[i] if q.descending else bound[i]
        if abs(zs) < REDUNDANCY_Z and abs(zd) < REDUNDANCY_Z and k < key:
            best, key = i, k
    return jaccard(rows[first], planted), jaccard(rows[best], planted)


# ------------------------------------------------------------------ printing
def binom_reading(k: int, n: int, b: int = 200, alpha: float = 0.05) -> str:
    """As ``null_exactness.py --counts``: P(at least k of n) under an exact test with b permutations, and the
    Wilson 95 % upper bound of k / n."""
    from null_exactness import wilson_upper

    rate = np.floor(alpha * (b + 1) + 1e-9) / (b + 1)
    return (f"{k}/{n} (P(>= {k}) exact {stats.binom.sf(k - 1, n, rate):.3f}; Wilson upper "
            f"{100 * wilson_upper(k, n):.1f} %)")


def main(argv: list[str] | None = None) -> None:
    global GRID_STEP  # --off-grid: the grid the planted edges keep away from
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=3, help="planted tables per shape x task (default 3)")
    ap.add_argument("--first", type=int, default=0, help="first planted table of each cell (default 0)")
    ap.add_argument("--null", type=int, default=20, help="null tables per task (default 20)")
    ap.add_argument("--first-null", type=int, default=0, help="first null table of each task (default 0)")
    ap.add_argument("--null-methods", default="ours_patterns,ours_default,SliceLine,DivExplorer,maxT",
                    help="methods run on the null tables")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--methods", default="ours_patterns,ours_default,SliceLine,DivExplorer,maxT")
    ap.add_argument("--permutations", type=int, default=200, help="permutations of the max-T baseline")
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--off-grid", type=float, default=GRID_STEP,
                    help=f"planted edges stay 1 %% of the rows away from every multiple of this share (default "
                         f"{GRID_STEP}: deciles, quintiles, ventiles; 0.0625 for a grid of sixteenths)")
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--timing-only", action="store_true")
    ap.add_argument("--candidates", nargs="+", default=None, metavar="THRESHOLDS",
                    help="print the candidates of discovery='patterns' for each thresholds (an int or None) instead")
    ap.add_argument("--timing-item", nargs=2, metavar=("WHAT", "ROWS"), default=None,
                    help=f"(internal) time one of {TIMED} on ROWS rows in this process and print it as JSON")
    ap.add_argument("--show", action="store_true", help="print every table's first finding (stderr)")
    ap.add_argument("--diagnose", action="store_true",
                    help="after each planted table ours misses, print its first finding and the neighbouring cuts "
                         "of it and of the pattern closest to the planted rows (discovery='patterns' only)")
    ap.add_argument("--option", type=parse_option, action="append", default=[], metavar="KEY=VALUE",
                    help="a detect_subgroups keyword of our methods, e.g. thresholds=20 (repeatable)")
    ap.add_argument("--records", type=Path, default=None,
                    help="append one CSV line per (table, method) here (for --summarise)")
    ap.add_argument("--label", default="", help="suffix of our methods' names in --records (e.g. 'main', 'h38')")
    ap.add_argument("--summarise", type=Path, nargs="+", default=None,
                    help="print the tables from these --records files instead of running")
    ap.add_argument("--per-shape", action="store_true",
                    help="with --summarise: per method, the issue's per-shape target over every task and block "
                         "(found-first k/n with its Wilson 95 %% interval), per shape x task, shape x block and "
                         "cell, and every miss")
    args = ap.parse_args(argv)
    shapes, tasks = args.shapes.split(","), args.tasks.split(",")
    if not set(shapes) <= set(SHAPES) or not set(tasks) <= set(TASKS):
        ap.error(f"--shapes from {SHAPES}, --tasks from {TASKS}")
    if args.summarise:
        df = pd.concat([pd.read_csv(f, keep_default_na=False, na_values=[""])  # "null" is a kind here
                        for f in args.summarise], ignore_index=True)
        (summarise_per_shape if args.per_shape else summarise)(df)
        return
    OURS_OPTIONS.update(dict(args.option))
    GRID_STEP = args.off_grid
    warnings.simplefilter("ignore")
    logging.getLogger("aif360_subjective").setLevel(logging.ERROR)
    if args.candidates:
        candidate_counts(args.candidates)
        return
    if args.timing_item:
        import json

        what, n = args.timing_item
        if what not in TIMED:
            ap.error(f"--timing-item WHAT from {TIMED}, got {what!r}")
        print(json.dumps(timing_item(what, int(n))))
        return
    print(f"# natural conditions: package from {Path(aif360_subjective.__file__).parent.parent.name}, "
          f"{args.rows} rows, {args.tables} planted tables per cell, {args.null} null tables per task, "
          f"baseline B = {args.permutations}, planted edges off the multiples of {GRID_STEP:g}"
          + (f", ours with {', '.join(f'{k}={v!r}' for k, v in OURS_OPTIONS.items())}" if OURS_OPTIONS else ""))
    meth, missing = methods(args.methods.split(","), args.permutations)
    null_meth, _ = methods(args.null_methods.split(","), args.permutations) if args.null_methods else ({}, [])
    for line in missing:
        print(line)
    start = time.perf_counter()
    if not args.timing_only:
        if args.tables > 0:
            print("\n## Planted slices: first finding describes the slice (Jaccard >= 0.7; window_cat >= 0.5)")
            print("| shape | task | method | found first | median Jaccard | s/table |")
            print("|---|---|---|---|---|---|")
            for shape in shapes:
                for task in tasks:
                    rec: dict[str, list] = {m: [] for m in meth}
                    bound_rule: list[float] = []
                    for k in range(args.first, args.first + args.tables):
                        seed = 1000 * SHAPES.index(shape) + 100 * TASKS.index(task) + k
                        t = natural_table(shape, args.rows, seed)
                        y, yhat = outcomes(task, t.planted, True, seed)
                        for name, fn in meth.items():
                            r = fn(task, t.X, y, yhat, seed)
                            j = jaccard(r.rows, t.planted)
                            rec[name].append((j, r.seconds))
                            record(args, "planted", shape, task, seed, name, j, r,
                                   f"{t.description} ({int(t.planted.sum())} rows)")
                            if args.show:
                                print(f"  {shape} {task} seed {seed} {name}: J {j:.2f} | planted {t.description} "
                                      f"({int(t.planted.sum())}) | first {r.description}", file=sys.stderr,
                                      flush=True)
                            if args.diagnose and name == "ours patterns":
                                if j < HIT[shape] - 1e-12:
                                    diagnose(r.report, METRIC[task], t.planted,
                                             f"{shape} {task} seed {seed}, planted {t.description} "
                                             f"({int(t.planted.sum())} rows)", row_loss(task, y, yhat))
                                bound_rule.append(bound_choice(r.report, METRIC[task], t.planted)[1])
                    for name, rs in rec.items():
                        js = np.array([r[0] for r in rs])
                        hits = int(np.sum(js >= HIT[shape] - 1e-12))
                        print(f"| {shape} | {task} | {name} | {hits}/{len(js)} | {np.median(js):.2f} | "
                              f"{np.mean([r[1] for r in rs]):.1f} |", flush=True)
                    if bound_rule:
                        js = np.array(bound_rule)
                        print(f"| {shape} | {task} | ours patterns, largest bound among inseparable neighbouring "
                              f"cuts (simulated) | {int(np.sum(js >= HIT[shape] - 1e-12))}/{len(js)} | "
                              f"{np.median(js):.2f} | |", flush=True)
        if args.null and null_meth:
            print("\n## Null tables (no effect; shapes in turn): reporting something, read against an exact test at "
                  "B = 200")
            print("| task | method | null tables reporting something | s/table |")
            print("|---|---|---|---|")
            for task in tasks:
                cnt = dict.fromkeys(null_meth, 0)
                secs = dict.fromkeys(null_meth, 0.0)
                for k in range(args.first_null, args.first_null + args.null):
                    seed = 100_000 + 1000 * TASKS.index(task) + k
                    t = natural_table(SHAPES[k % len(SHAPES)], args.rows, seed)
                    y, yhat = outcomes(task, t.planted, False, seed)
                    for name, fn in null_meth.items():
                        r = fn(task, t.X, y, yhat, seed)
                        cnt[name] += r.rows is not None
                        record(args, "null", t.shape, task, seed, name, float("nan"), r)
                        secs[name] += r.seconds
                        if args.show and r.rows is not None:
                            print(f"  null {task} seed {seed} {name}: {r.description}", file=sys.stderr, flush=True)
                for name in null_meth:
                    print(f"| {task} | {name} | {binom_reading(cnt[name], args.null)} | "
                          f"{secs[name] / args.null:.1f} |", flush=True)
    if not args.skip_timing:
        timing(args.rows)
    print(f"\ntotal runtime {time.perf_counter() - start:.0f} s")


def record(args, kind: str, shape: str, task: str, seed: int, method: str, j: float, r: Result,
           planted: str = "") -> None:
    """One CSV line of a (table, method) run, appended to ``--records`` (``planted``: the slice's description and
    rows; empty on null tables)."""
    if args.records is None:
        return
    name = f"{method} {args.label}".strip() if method.startswith("ours") else method  # the others: no package
    line = pd.DataFrame([{"kind": kind, "shape": shape, "task": task, "seed": seed, "method": name,
                          "jaccard": j, "reported": r.rows is not None, "seconds": r.seconds,
                          "first": r.description, "planted": planted}])
    line.to_csv(args.records, mode="a", header=not args.records.exists(), index=False)


def summarise(df: pd.DataFrame) -> None:
    """The tables of a run from its ``--records`` lines (several runs, methods labelled apart)."""
    order = {m: k for k, m in enumerate(pd.unique(df["method"]))}
    planted = df[df["kind"] == "planted"]
    print("## Planted slices: first finding describes the slice (Jaccard >= 0.7; window_cat >= 0.5)")
    print("| shape | task | method | found first | median Jaccard | s/table |")
    print("|---|---|---|---|---|---|")
    for (shape, task, method), g in sorted(planted.groupby(["shape", "task", "method"]),
                                           key=lambda kv: (SHAPES.index(kv[0][0]), TASKS.index(kv[0][1]),
                                                           order[kv[0][2]])):
        g = g.drop_duplicates("seed", keep="last")
        hits = int((g["jaccard"] >= HIT[shape] - 1e-12).sum())
        print(f"| {shape} | {task} | {method} | {hits}/{len(g)} | {g['jaccard'].median():.2f} | "
              f"{g['seconds'].mean():.1f} |")
    print("\n## Per shape, all tasks together")
    print("| shape | method | found first | median Jaccard |")
    print("|---|---|---|---|")
    for (shape, method), g in sorted(planted.groupby(["shape", "method"]),
                                     key=lambda kv: (SHAPES.index(kv[0][0]), order[kv[0][1]])):
        g = g.drop_duplicates(["task", "seed"], keep="last")
        hits = int((g["jaccard"] >= HIT[shape] - 1e-12).sum())
        print(f"| {shape} | {method} | {hits}/{len(g)} | {g['jaccard'].median():.2f} |")
    null = df[df["kind"] == "null"]
    if len(null):
        print("\n## Null tables: reporting something, read against an exact test at B = 200")
        print("| task | method | null tables reporting something | s/table |")
        print("|---|---|---|---|")
        for (task, method), g in sorted(null.groupby(["task", "method"]),
                                        key=lambda kv: (TASKS.index(kv[0][0]), order[kv[0][1]])):
            g = g.drop_duplicates("seed", keep="last")
            print(f"| {task} | {method} | {binom_reading(int(g['reported'].sum()), len(g))} | "
                  f"{g['seconds'].mean():.1f} |")


TARGET = {"cat_threshold": 0.9, "two_thresholds": 0.9, "window_cat": 0.8, "tail_cat": 0.9}  # issue 38's shares


def block_of(shape: str, task: str, seed: int) -> int:
    """The ``--first`` block (0, 100, 200, ...) of a planted table: its seed is 1000 shape + 100 task + k."""
    return (seed - 1000 * SHAPES.index(shape) - 100 * TASKS.index(task)) // 100 * 100


def _found(g: pd.DataFrame, shape: str) -> str:
    """``k/n`` found first at the shape's threshold, the Wilson 95 % interval and the median Jaccard."""
    from aif360_subjective.detectors import wilson_interval

    k, n = int((g["jaccard"] >= HIT[shape] - 1e-12).sum()), len(g)
    lo, hi = wilson_interval(k, n)
    return f"{k}/{n} | [{100 * float(lo):.1f} %, {100 * float(hi):.1f} %] | {g['jaccard'].median():.2f}"


def summarise_per_shape(df: pd.DataFrame) -> None:
    """Issue 38's target read per shape (``--summarise ... --per-shape``): for each method, the planted tables of
    every task and ``--first`` block together, found first at Jaccard >= 0.7 (0.5 for windows) in k of n, its
    Wilson 95 % interval and whether k/n reaches the target's share (9/10; 8/10 for windows); beneath, the same per
    shape x task and per shape x block, the cells (shape x task x block) under the target's share, and every miss
    with its seed, first finding, Jaccard and the planted slice."""
    planted = df[df["kind"] == "planted"].drop_duplicates(["shape", "task", "seed", "method"], keep="last")
    planted = planted.assign(block=[block_of(*r) for r in planted[["shape", "task", "seed"]].itertuples(False)])
    planted = planted.assign(shape_i=planted["shape"].map(SHAPES.index), task_i=planted["task"].map(TASKS.index))
    for method, m in planted.groupby("method", sort=False):
        blocks = sorted(m["block"].unique())
        print(f"## {method}: first finding describes the slice, per shape over {m['task'].nunique()} tasks and "
              f"blocks {', '.join(map(str, blocks))} (Jaccard >= 0.7; window_cat >= 0.5)")
        print("| shape | found first | Wilson 95 % | median Jaccard | target | met per shape | smallest cell |")
        print("|---|---|---|---|---|---|---|")
        for shape, g in m.sort_values("shape_i").groupby("shape", sort=False):
            hit = g["jaccard"] >= HIT[shape] - 1e-12
            cells = hit.groupby([g["task"], g["block"]]).agg(["sum", "size"])
            low = cells.iloc[int(np.argmin(cells["sum"] / cells["size"]))]
            print(f"| {shape} | {_found(g, shape)} | >= {TARGET[shape]:.0%} | "
                  f"{'yes' if hit.mean() >= TARGET[shape] - 1e-12 else 'no'} | {low['sum']}/{low['size']} |")
        for by in ("task", "block"):
            print(f"\n### {method}: per shape x {by}")
            print(f"| shape | {by} | found first | Wilson 95 % | median Jaccard |")
            print("|---|---|---|---|---|")
            for (shape, key), g in m.sort_values(["shape_i", f"{by}_i" if by == "task" else by]).groupby(
                    ["shape", by], sort=False):
                print(f"| {shape} | {key} | {_found(g, shape)} |")
        print(f"\n### {method}: cells (shape x task x block, 10 tables each) under the target's share")
        under = [(shape, task, block, int((g["jaccard"] >= HIT[shape] - 1e-12).sum()), len(g))
                 for (shape, task, block), g in m.sort_values(["shape_i", "task_i", "block"]).groupby(
                     ["shape", "task", "block"], sort=False)
                 if (g["jaccard"] >= HIT[shape] - 1e-12).mean() < TARGET[shape] - 1e-12]
        n_cells = m.groupby(["shape", "task", "block"]).ngroups
        print(f"{len(under)} of {n_cells} cells" + ("" if under else "."))
        for shape, task, block, k, n in under:
            print(f"- {shape} {task} block {block}: {k}/{n}")
        miss = m[m["jaccard"] < m["shape"].map(HIT) - 1e-12].sort_values(["shape_i", "task_i", "seed"])
        print(f"\n### {method}: misses ({len(miss)} of {len(m)})")
        print("| shape | task | block | seed | first finding | Jaccard | planted |")
        print("|---|---|---|---|---|---|---|")
        for r in miss.itertuples():
            first = r.first if isinstance(r.first, str) and r.first else "(nothing listed)"
            print(f"| {r.shape} | {r.task} | {r.block} | {r.seed} | {first} | {r.jaccard:.3f} | "
                  f"{getattr(r, 'planted', '')} |")


TIMED = ("default", "patterns", "DivExplorer")  # what --timing-item runs: ours by discovery, or the peer


def timing_item(what: str, n: int) -> dict[str, float]:
    """One timed run on the cat_threshold binary_sp table of ``n`` rows (seed 7), in this process: wall seconds and
    CPU seconds (``ru_utime + ru_stime`` of this process and its waited-for children, so the threads and any child
    process of the run count) of the call alone, the table made before."""
    import resource

    def cpu() -> float:
        return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                     resource.getrusage(resource.RUSAGE_CHILDREN)))

    t = natural_table("cat_threshold", n, 7)
    y, yhat = outcomes("binary_sp", t.planted, True, 7)
    c0, t0 = cpu(), time.perf_counter()
    if what == "DivExplorer":
        import slice_finders as sf

        sf.run_divexplorer(sf.discretise(t.X), y, yhat, "SP", min_support=0.01)
    else:
        run_ours(None if what == "default" else what, "binary_sp", t.X, y, yhat, 0)
    return {"seconds": time.perf_counter() - t0, "cpu": cpu() - c0}


def timed_in_child(what: str, n: int) -> dict[str, float]:
    """:func:`timing_item` in a fresh interpreter of its own (no warm caches or pools shared between the tools),
    with this run's ``--option`` keywords."""
    import json
    import subprocess

    opts = [a for k, v in OURS_OPTIONS.items() for a in ("--option", f"{k}={v}")]
    out = subprocess.run([sys.executable, __file__, "--timing-item", what, str(n), *opts], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def candidate_counts(grids: list[str]) -> None:
    """Items and mined patterns (the candidates of ``discovery="patterns"``) of the timing tables (cat_threshold,
    seed 7) at 5,000 and 20,000 rows for each ``thresholds`` of ``grids`` ("None": ranges only), with the
    defaults otherwise (10 bins, runs of up to 3, ``min_support=0.01``, up to 3 conditions, ``max_patterns``
    200,000) and the CPU seconds of building and mining them."""
    from aif360_subjective._param_tables import SUBGROUP_PARAMS
    from aif360_subjective.detectors.mining.pattern_mining import build_items, mine_patterns

    print("\n## Candidates of discovery='patterns' by the grid of one-sided conditions (cat_threshold tables, seed 7)")
    print("| rows | thresholds | items | mined patterns | conditions mined | patterns of the next length, not mined "
          "(at least) | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for n in (5000, 20_000):
        t = natural_table("cat_threshold", n, 7)
        for g in grids:
            grid = None if g == "None" else int(g)
            c0 = time.process_time()
            items = build_items(t.X, list(CATEGORICAL), SUBGROUP_PARAMS.default("n_bins"),
                                SUBGROUP_PARAMS.default("max_merge"), grid)
            mined = mine_patterns(items, max(1, int(np.ceil(0.01 * n))), SUBGROUP_PARAMS.default("max_length"),
                                  SUBGROUP_PARAMS.default("max_patterns"))
            print(f"| {n:,} | {g} | {len(items.labels):,} | {len(mined.slots):,} | up to {mined.mined_length} | "
                  f"{mined.skipped_count:,} | {time.process_time() - c0:.1f} |", flush=True)


def timing(rows: int) -> None:
    """20,000 rows ours (default discovery and ``patterns``) against DivExplorer (``min_support=0.01``); ours
    (``patterns``) at 50,000 and 200,000 rows, and the growth; each run in a child process of its own, in wall
    and CPU seconds (the CPU seconds are the measure on a shared machine)."""
    import os

    print(f"\n## Timing (one run each, each in its own process; cat_threshold binary_sp tables; load average "
          f"{os.getloadavg()[0]:.1f} at the start)")
    print("| what | rows | seconds | CPU seconds |")
    print("|---|---|---|---|")
    label = {"default": "ours default discovery + ranking", "patterns": "ours discovery='patterns' + ranking",
             "DivExplorer": "DivExplorer min_support=0.01 (discretisation included)"}
    got: dict[tuple[str, int], dict[str, float]] = {}
    for what, n in (("default", 20_000), ("patterns", 20_000), ("DivExplorer", 20_000), ("patterns", 50_000),
                    ("patterns", 200_000)):
        if what == "DivExplorer" and importlib.util.find_spec("divexplorer") is None:
            print("| DivExplorer: not installed (pip install divexplorer); skipped | | | |")
            continue
        r = got[what, n] = timed_in_child(what, n)
        print(f"| {label[what]} | {n:,} | {r['seconds']:.1f} | {r['cpu']:.1f} |", flush=True)
    if ("DivExplorer", 20_000) in got:
        d = got["DivExplorer", 20_000]
        for what in ("default", "patterns"):
            r = got[what, 20_000]
            print(f"| {label[what]} / DivExplorer | 20,000 | {r['seconds'] / d['seconds']:.2f}x | "
                  f"{r['cpu'] / d['cpu']:.2f}x |")
    a, b = got["patterns", 50_000], got["patterns", 200_000]
    print(f"| growth 50,000 -> 200,000 (patterns) | | {b['seconds'] / a['seconds']:.2f}x | "
          f"{b['cpu'] / a['cpu']:.2f}x |")


if __name__ == "__main__":
    main()
