"""Write large synthetic annotation tables to Parquet in chunks (for the Dask path and its benchmark).

:func:`make_subjective_dataset` builds the whole table in memory; this writer follows the same
generative story chunk by chunk, so a 100-million-annotation table never exists in memory at once:
every Parquet file holds complete items (sorted by item, then annotator), which is what the Dask
path's "each item lives in one partition" check relies on (no shuffle needed).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_fraction, check_int, check_random_state
from .synthetic import AGE_GROUPS, assign_annotators, check_sizes


def write_synthetic_parquet(
    path: str | os.PathLike[str],
    n_items: int = 100_000,
    n_annotators: int = 1_000,
    annotations_per_item: int = 10,
    *,
    minority_fraction: float = 0.15,
    spammer_fraction: float = 0.05,
    contested_fraction: float = 0.3,
    noise: float = 0.05,
    base_rate: float = 0.3,
    model_error: float = 0.1,
    activity_skew: float = 0.5,
    items_per_file: int = 500_000,
    random_state: int | np.random.Generator | None = None,
) -> Path:
    """Write ``n_items * annotations_per_item`` synthetic annotations to a Parquet folder.

    The generative story is the one of :func:`make_subjective_dataset` (regular annotators flip the
    consensus label with probability ``noise``; the planted minority labels every contested item 1;
    spammers answer at random; annotators are drawn by a lognormal activity), applied chunk by chunk:
    each file holds ``items_per_file`` items, whose consensus labels (the ``base_rate`` share with the
    highest score) and contested items (the ``contested_fraction`` with the highest ``x0``) are chosen
    within the file. A model prediction per item (the consensus flipped with probability
    ``model_error``) is repeated on the item's annotations, so the table is ready for
    :func:`aif360_subjective.sklearn.metrics.opinion_exclusion`.

    Layout: ``path/annotations/part-00000.parquet, ...`` with columns ``item`` (int64), ``annotator``
    (int64), ``label`` (int8), ``prediction`` (int8), sorted by item then annotator; and
    ``path/annotators.parquet`` (index ``annotator``; columns ``kind`` and ``age_group``).

    Args:
        path: output folder (created; existing part files are overwritten).
        n_items: number of items.
        n_annotators: number of annotators.
        annotations_per_item: distinct annotators per item (<= n_annotators).
        minority_fraction, spammer_fraction, contested_fraction, noise, base_rate, activity_skew: as in
            :func:`make_subjective_dataset`.
        model_error: probability that the model's prediction differs from the consensus label.
        items_per_file: items per Parquet file (memory per chunk ~ 40 bytes per annotation).
        random_state: seed or numpy Generator; each file draws from its own spawned child seed.

    Returns:
        pathlib.Path: ``path``.

    Raises:
        TypeError: a size is not an int.
        ValueError: a size or fraction out of range.
    """
    n_items, n_annotators, k = check_sizes(n_items, n_annotators, annotations_per_item)
    items_per_file = check_int(items_per_file, "items_per_file", low=1)
    fractions = {
        name: check_fraction(value, name)
        for name, value in [("minority_fraction", minority_fraction), ("spammer_fraction", spammer_fraction),
                            ("contested_fraction", contested_fraction), ("noise", noise),
                            ("base_rate", base_rate), ("model_error", model_error)]
    }
    if fractions["minority_fraction"] + fractions["spammer_fraction"] > 1:
        raise ValueError("minority_fraction + spammer_fraction must be <= 1, got "
                         f"{fractions['minority_fraction'] + fractions['spammer_fraction']}")
    if isinstance(activity_skew, bool) or not isinstance(activity_skew, int | float) or activity_skew < 0:
        raise ValueError(f"activity_skew must be a number >= 0, got {activity_skew!r}")
    rng = check_random_state(random_state, "random_state")

    # Annotators, once: kind (planted minority, spammers) and the demographic that tracks the minority.
    n_spam = int(round(fractions["spammer_fraction"] * n_annotators))
    n_min = int(round(fractions["minority_fraction"] * n_annotators))
    kind = np.array(["spammer"] * n_spam + ["minority"] * n_min + ["regular"] * (n_annotators - n_spam - n_min),
                    dtype=object)[rng.permutation(n_annotators)]
    young = rng.random(n_annotators) < np.where(kind == "minority", 0.85, 0.1)
    older = rng.choice(np.array(AGE_GROUPS[1:], dtype=object), size=n_annotators, p=[0.5, 0.35, 0.15])
    age = np.where(young, AGE_GROUPS[0], older).astype(object)
    activity = (rng.lognormal(0.0, float(activity_skew), n_annotators) if activity_skew > 0
                else np.ones(n_annotators))
    kind_code = np.select([kind == "spammer", kind == "minority"], [2, 1], 0).astype(np.int8)

    out = Path(path)
    (out / "annotations").mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"kind": kind, "age_group": age},
                 index=pd.Index(np.arange(n_annotators, dtype=np.int64), name="annotator")
                 ).to_parquet(out / "annotators.parquet")
    n_files = -(-n_items // items_per_file)
    for f, child in enumerate(rng.spawn(n_files)):
        lo, hi = f * items_per_file, min(n_items, (f + 1) * items_per_file)
        _write_chunk(out / "annotations" / f"part-{f:05d}.parquet", child, lo, hi, k, kind_code, activity, fractions)
    return out


def _write_chunk(file: Path, rng: np.random.Generator, lo: int, hi: int, k: int, kind_code: np.ndarray,
                 activity: np.ndarray, fr: dict[str, Any]) -> None:
    m = hi - lo
    x0 = rng.standard_normal(m)
    score = rng.standard_normal(m)  # the consensus ignores x0, as in make_subjective_dataset
    consensus = np.zeros(m, dtype=np.int8)
    consensus[np.argsort(-score, kind="stable")[: int(round(fr["base_rate"] * m))]] = 1
    contested = np.zeros(m, dtype=bool)
    contested[np.argsort(-x0, kind="stable")[: int(round(fr["contested_fraction"] * m))]] = True
    prediction = np.where(rng.random(m) < fr["model_error"], 1 - consensus, consensus).astype(np.int8)

    who = np.sort(assign_annotators(rng, m, len(activity), k, activity), axis=1).ravel()  # sorted: item, annotator
    item = np.repeat(np.arange(m), k)
    truth = consensus[item]
    flip = rng.random(len(who)) < fr["noise"]
    regular = np.where(flip, 1 - truth, truth)
    minority = np.where(contested[item], np.where(flip, 0, 1), regular)
    spam = (rng.random(len(who)) < 0.5).astype(np.int8)
    kc = kind_code[who]
    label = np.where(kc == 2, spam, np.where(kc == 1, minority, regular)).astype(np.int8)
    pd.DataFrame({"item": (item + lo).astype(np.int64), "annotator": who.astype(np.int64), "label": label,
                  "prediction": prediction[item]}).to_parquet(file, index=False)
