"""A seeded generator of tabular classifier outputs with (or without) one planted disadvantaged subgroup.

Used to check that subgroup discovery names real disparities and stays quiet on noise: with ``effect=0`` the
predictions (and the truths) are independent of the features, so every flagged subgroup is a false
discovery; with ``effect > 0`` the rows matching two categorical conditions get the favourable prediction
less often, by ``effect`` (:func:`make_subgroup_benchmark`). :func:`make_planted_slice` plants harder
subgroups: a random conjunction of 2-3 categorical conditions or a box over numeric features, treated worse
in the favourable-prediction rate or in the error rate (the tables of ``benchmarks/slice_finders.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_fraction, check_int, check_random_state

__all__ = ["SubgroupBenchmark", "make_planted_slice", "make_subgroup_benchmark", "SLICE_SHAPES", "SLICE_TARGETS"]

LEVELS = tuple("abcdefghijklmnop")


@dataclass
class SubgroupBenchmark:
    """One generated table.

    Attributes:
        X: features ``cat0..`` (strings ``"a"``, ``"b"``, ...) then ``num0..`` (uniform on [0, 1]).
        y_true: truth, 1 = favourable.
        y_pred: prediction, 1 = favourable.
        planted: boolean mask of the rows matching the planted conditions (returned with ``effect=0`` too,
            where those rows are treated like all others).
        conditions: the planted subgroup's conditions, ``{"cat0": "a", "cat1": "a"}``; a numeric condition is
            a half-open range ``(low, high)``: ``low <= x < high``.
        effect: how much lower the planted rows' favourable-prediction rate (or accuracy, with
            ``target="error_rate"``) is.
        target: what the effect shifts: ``"statistical_parity"`` or ``"error_rate"``.
    """

    X: pd.DataFrame
    y_true: np.ndarray
    y_pred: np.ndarray
    planted: np.ndarray
    conditions: dict[str, object]
    effect: float
    target: str = "statistical_parity"


def _check_columns(n_categorical: int, n_numeric: int, n_levels: int, *, min_categorical: int) -> tuple[int, int, int]:
    """The table's column counts and levels per categorical column, checked (the levels are named a, b, ...)."""
    n_cat = check_int(n_categorical, "n_categorical", low=min_categorical)
    n_num = check_int(n_numeric, "n_numeric", low=0)
    levels = check_int(n_levels, "n_levels", low=2)
    if levels > len(LEVELS):
        raise ValueError(f"n_levels must be at most {len(LEVELS)}, got {levels}")
    return n_cat, n_num, levels


def _outcomes(rng: np.random.Generator, planted: np.ndarray, target: str, effect: float, base_rate: float,
              accuracy: float) -> tuple[np.ndarray, np.ndarray]:
    """Truths and predictions (1 = favourable), the planted rows treated worse by ``effect``.

    ``target="statistical_parity"``: the prediction is favourable with probability ``base_rate`` (planted rows:
    ``base_rate - effect``), the truth equals it with probability ``accuracy``. ``target="error_rate"``: the truth
    is favourable with probability ``base_rate``, the prediction equals it with probability ``accuracy`` (planted
    rows: ``accuracy - effect``). Two uniform draws per row, in that order.
    """
    n = len(planted)
    if target == "statistical_parity":
        y_pred = (rng.random(n) < np.where(planted, base_rate - effect, base_rate)).astype(np.int64)
        correct = rng.random(n) < accuracy
        return np.where(correct, y_pred, 1 - y_pred), y_pred
    y_true = (rng.random(n) < base_rate).astype(np.int64)
    correct = rng.random(n) < np.where(planted, accuracy - effect, accuracy)
    return y_true, np.where(correct, y_true, 1 - y_true)


def make_subgroup_benchmark(
    n_samples: int = 6000,
    n_categorical: int = 4,
    n_numeric: int = 2,
    n_levels: int = 3,
    planted_share: float = 0.07,
    effect: float = 0.25,
    base_rate: float = 0.5,
    accuracy: float = 0.8,
    random_state: int | np.random.Generator | None = None,
) -> SubgroupBenchmark:
    """Generate features, truths and predictions with one planted subgroup whose favourable rate is lower.

    The generative story (vectorised, one numpy Generator):

    * ``cat1..`` are uniform over ``n_levels`` levels a, b, ...; ``cat0`` takes level a with probability
      ``planted_share * n_levels`` and the others uniformly (default 3 levels: a 0.21, b and c 0.395; with 4
      levels: a 0.28, b-d 0.24 each); ``num0..`` are uniform on [0, 1]. All columns are independent.
    * The planted subgroup is ``cat0 == "a" and cat1 == "a"``: ``planted_share`` of the rows in expectation
      (default 7 %).
    * The prediction is favourable with probability ``base_rate``, or ``base_rate - effect`` in the planted
      subgroup: with ``effect=0`` the predictions are independent of the features (null data).
    * The truth equals the prediction with probability ``accuracy`` (independently per row), so the truths
      carry no feature signal beyond the prediction's.

    Args:
        n_samples: rows.
        n_categorical: categorical columns (>= 2: the planted conditions use two).
        n_numeric: numeric columns (>= 0).
        n_levels: levels per categorical column (>= 2, at most 16 and ``1 / planted_share``).
        planted_share: expected share of rows in the planted subgroup, in (0, 1 / n_levels].
        effect: drop of the planted subgroup's favourable-prediction rate, in [0, base_rate].
        base_rate: favourable-prediction rate elsewhere, in [0, 1].
        accuracy: probability that a prediction is correct, in [0, 1].
        random_state: None, int seed or numpy Generator.

    Returns:
        SubgroupBenchmark

    Raises:
        TypeError: non-integer counts.
        ValueError: counts or rates out of range (``effect > base_rate``, ``n_categorical < 2``,
            ``n_samples < 2``, ``planted_share * n_levels > 1``).
    """
    n = check_int(n_samples, "n_samples", low=2)
    n_cat, n_num, n_levels = _check_columns(n_categorical, n_numeric, n_levels, min_categorical=2)
    share = check_fraction(planted_share, "planted_share")
    if share <= 0 or share * n_levels > 1:
        raise ValueError(
            f"planted_share must be in (0, 1 / n_levels] = (0, {1 / n_levels:.4g}] (cat0 == 'a' has probability "
            f"planted_share * n_levels), got {planted_share}"
        )
    effect = check_fraction(effect, "effect")
    base_rate = check_fraction(base_rate, "base_rate")
    accuracy = check_fraction(accuracy, "accuracy")
    if effect > base_rate:
        raise ValueError(f"effect must be at most base_rate ({base_rate}), got {effect}")
    rng = check_random_state(random_state, "random_state")
    levels = np.array(LEVELS[:n_levels], dtype=object)
    p0 = np.full(n_levels, (1.0 - share * n_levels) / (n_levels - 1))
    p0[0] = share * n_levels
    cols = {"cat0": levels[rng.choice(n_levels, size=n, p=p0 / p0.sum())]}
    for j in range(1, n_cat):
        cols[f"cat{j}"] = levels[rng.integers(0, n_levels, size=n)]
    for j in range(n_num):
        cols[f"num{j}"] = rng.random(n)
    X = pd.DataFrame(cols)
    conditions: dict[str, object] = {"cat0": "a", "cat1": "a"}
    planted = (X["cat0"].to_numpy() == "a") & (X["cat1"].to_numpy() == "a")
    y_true, y_pred = _outcomes(rng, planted, "statistical_parity", effect, base_rate, accuracy)
    return SubgroupBenchmark(X=X, y_true=y_true, y_pred=y_pred, planted=planted, conditions=conditions,
                             effect=effect)


#: Shapes of the planted subgroup of :func:`make_planted_slice`.
SLICE_SHAPES = ("conjunction", "numeric_region")
#: What the effect of :func:`make_planted_slice` shifts.
SLICE_TARGETS = ("statistical_parity", "error_rate")


def make_planted_slice(
    n_samples: int = 5000,
    shape: str = "conjunction",
    n_conditions: int = 2,
    planted_share: float = 0.05,
    effect: float = 0.2,
    target: str = "statistical_parity",
    n_categorical: int = 6,
    n_numeric: int = 2,
    n_levels: int = 4,
    base_rate: float = 0.5,
    accuracy: float = 0.8,
    random_state: int | np.random.Generator | None = None,
) -> SubgroupBenchmark:
    """Generate a table with one planted subgroup at a random place: a conjunction or a numeric box.

    The generative story (vectorised, one numpy Generator):

    * ``shape="conjunction"``: ``n_conditions`` of the ``n_categorical`` columns ``cat0..`` are drawn at
      random, and for each one of its ``n_levels`` levels (a, b, ...). Each chosen column takes its chosen
      level with probability ``q = planted_share ** (1 / n_conditions)`` and the other levels uniformly; the
      other categorical columns are uniform. The planted subgroup is the conjunction of the chosen
      conditions: ``planted_share`` of the rows in expectation (columns are independent).
    * ``shape="numeric_region"``: ``n_conditions`` of the ``n_numeric`` columns ``num0..`` (uniform on
      [0, 1]) are drawn at random; on each, a range of width ``s = planted_share ** (1 / n_conditions)``
      starting uniformly in [0, 1 - s]. The planted subgroup is the box, ``planted_share`` of the rows in
      expectation; categorical columns are uniform.
    * ``target="statistical_parity"``: the prediction is favourable with probability ``base_rate``, or
      ``base_rate - effect`` in the planted subgroup; the truth equals the prediction with probability
      ``accuracy``.
    * ``target="error_rate"``: the truth is favourable with probability ``base_rate``; the prediction equals
      the truth with probability ``accuracy``, or ``accuracy - effect`` in the planted subgroup (its error
      rate is ``effect`` higher, both true-positive and true-negative rates drop).
    * ``effect=0`` gives null tables: truths and predictions independent of the features.

    Args:
        n_samples: rows (>= 2).
        shape: ``"conjunction"`` or ``"numeric_region"``.
        n_conditions: conditions of the planted subgroup (>= 1; at most ``n_categorical`` or ``n_numeric``).
        planted_share: expected share of rows in the planted subgroup, in (0, 1).
        effect: shift of the planted subgroup's favourable-prediction rate or accuracy, in [0, base_rate] or
            [0, accuracy].
        target: ``"statistical_parity"`` or ``"error_rate"``.
        n_categorical: categorical columns (>= 0; >= n_conditions for a conjunction).
        n_numeric: numeric columns (>= 0; >= n_conditions for a numeric region).
        n_levels: levels per categorical column, in [2, 16].
        base_rate: favourable-prediction rate (``"statistical_parity"``) or favourable-truth rate
            (``"error_rate"``) outside the subgroup, in [0, 1].
        accuracy: probability that a prediction is correct outside the subgroup, in [0, 1].
        random_state: None, int seed or numpy Generator.

    Returns:
        SubgroupBenchmark: ``conditions`` maps the chosen columns to their level or their ``(low, high)``
        range; ``planted`` is the boolean mask of the matching rows.

    Raises:
        TypeError: non-integer counts.
        ValueError: unknown shape or target, counts or rates out of range.
    """
    n = check_int(n_samples, "n_samples", low=2)
    if shape not in SLICE_SHAPES:
        raise ValueError(f"shape must be one of {SLICE_SHAPES}, got {shape!r}")
    if target not in SLICE_TARGETS:
        raise ValueError(f"target must be one of {SLICE_TARGETS}, got {target!r}")
    c = check_int(n_conditions, "n_conditions", low=1)
    n_cat, n_num, n_levels = _check_columns(n_categorical, n_numeric, n_levels, min_categorical=0)
    pool, pool_name = (n_cat, "n_categorical") if shape == "conjunction" else (n_num, "n_numeric")
    if c > pool:
        raise ValueError(f"n_conditions ({c}) must be at most {pool_name} ({pool}) for shape={shape!r}")
    share = check_fraction(planted_share, "planted_share")
    if not 0 < share < 1:
        raise ValueError(f"planted_share must be in (0, 1), got {planted_share}")
    effect = check_fraction(effect, "effect")
    base_rate = check_fraction(base_rate, "base_rate")
    accuracy = check_fraction(accuracy, "accuracy")
    limit, limit_name = (base_rate, "base_rate") if target == "statistical_parity" else (accuracy, "accuracy")
    if effect > limit:
        raise ValueError(f"effect must be at most {limit_name} ({limit}) for target={target!r}, got {effect}")
    rng = check_random_state(random_state, "random_state")
    levels = np.array(LEVELS[:n_levels], dtype=object)
    q = share ** (1.0 / c)
    chosen = np.sort(rng.choice(pool, size=c, replace=False))
    conditions: dict[str, object] = {}
    cols: dict[str, np.ndarray] = {}
    planted = np.ones(n, dtype=bool)
    for j in range(n_cat):
        if shape == "conjunction" and j in chosen:
            level = int(rng.integers(0, n_levels))
            probs = np.full(n_levels, (1.0 - q) / (n_levels - 1))
            probs[level] = q
            codes = rng.choice(n_levels, size=n, p=probs / probs.sum())
            conditions[f"cat{j}"] = str(levels[level])
            planted &= codes == level
        else:
            codes = rng.integers(0, n_levels, size=n)
        cols[f"cat{j}"] = levels[codes]
    for j in range(n_num):
        x = rng.random(n)
        if shape == "numeric_region" and j in chosen:
            low = float(rng.uniform(0.0, 1.0 - q))
            conditions[f"num{j}"] = (low, low + q)
            planted &= (x >= low) & (x < low + q)
        cols[f"num{j}"] = x
    X = pd.DataFrame(cols, index=pd.RangeIndex(n))
    y_true, y_pred = _outcomes(rng, planted, target, effect, base_rate, accuracy)
    return SubgroupBenchmark(X=X, y_true=y_true, y_pred=y_pred, planted=planted, conditions=conditions,
                             effect=effect, target=target)
