"""A seeded generator of realistic subjective annotation data with known ground truth."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_fraction, check_int, check_random_state
from .multi_annotator import MultiAnnotatorDataset

AGE_GROUPS = ("18-30", "30-45", "45-60", "60+")
GENDERS = ("female", "male", "nonbinary")
EDUCATION = ("hs", "bachelors", "masters", "doctorate")
PROTECTED = ("gender", "age_group", "education")


def check_sizes(n_items: Any, n_annotators: Any, annotations_per_item: Any) -> tuple[int, int, int]:
    """The three sizes of a generated job (ints >= 1, each item annotated by at most every annotator)."""
    n_items = check_int(n_items, "n_items", low=1)
    n_annotators = check_int(n_annotators, "n_annotators", low=1)
    k = check_int(annotations_per_item, "annotations_per_item", low=1)
    if k > n_annotators:
        raise ValueError(f"annotations_per_item={k} exceeds n_annotators={n_annotators}")
    return n_items, n_annotators, k


def assign_annotators(rng: np.random.Generator, n_items: int, n_annotators: int, k: int,
                      activity: np.ndarray) -> np.ndarray:
    """k distinct annotators per item, drawn in proportion to ``activity``.

    Rows are drawn with replacement and redrawn while they hold a repeated annotator: the result is a
    weighted sample conditioned on distinctness, in O(n_items * k) work whatever the number of
    annotators (a few redraw rounds; an item whose k draws keep colliding falls back to a uniform
    permutation after 50 rounds).
    """
    p = activity / activity.sum()
    out = rng.choice(n_annotators, size=(n_items, k), p=p)
    todo = np.arange(n_items)
    for _ in range(50):
        s = np.sort(out[todo], axis=1)
        todo = todo[(s[:, 1:] == s[:, :-1]).any(axis=1)] if k > 1 else todo[:0]
        if not len(todo):
            return out
        out[todo] = rng.choice(n_annotators, size=(len(todo), k), p=p)
    for i in todo:  # pathological weights only: k close to n_annotators
        out[i] = rng.permutation(n_annotators)[:k]
    return out


def make_subjective_dataset(
    n_items: int = 1000,
    n_annotators: int = 100,
    annotations_per_item: int = 5,
    n_features: int = 5,
    minority_fraction: float = 0.15,
    spammer_fraction: float = 0.05,
    contested_fraction: float = 0.3,
    noise: float = 0.05,
    base_rate: float = 0.3,
    missing_demographics: float = 0.05,
    activity_skew: float = 0.5,
    random_state: int | np.random.Generator | None = None,
) -> MultiAnnotatorDataset:
    """Generate multi-annotator binary labels with planted opinion groups and spammers.

    The generative story (label 1 = "toxic", the unfavourable label; 0 is favourable):

    * Items have ``n_features`` standard-normal features ``x0..``. Their consensus label is 1 for the
      ``base_rate`` share with the highest score ``x @ w + noise`` (``w`` ignores ``x0``).
    * Contested items are the ``contested_fraction`` with the highest ``x0``: a topic the minority
      reads differently.
    * Regular annotators give the consensus label, flipped with probability ``noise``.
    * Minority annotators (``minority_fraction``) label every contested item 1 (they find it toxic,
      flipped with probability ``noise``) and otherwise behave as regular annotators. They are mostly
      young (age_group "18-30" with probability 0.85, against 0.1 for the others): their disagreement
      is consistent and predictable from a demographic.
    * Spammers (``spammer_fraction``) label at random (probability 1/2).
    * Each item gets ``annotations_per_item`` distinct annotators, drawn in proportion to a lognormal
      activity (``activity_skew`` = its sigma; 0 = uniform), so a few annotators label much more.
    * ``missing_demographics`` of the annotators have no demographics (NaN), as in real crowdsourcing.

    Args:
        n_items: number of items.
        n_annotators: number of annotators.
        annotations_per_item: annotators per item (<= n_annotators).
        n_features: number of numeric item features (>= 2).
        minority_fraction: share of minority-opinion annotators.
        spammer_fraction: share of spammers.
        contested_fraction: share of contested items.
        noise: regular annotators' error rate.
        base_rate: share of items whose consensus label is 1.
        missing_demographics: share of annotators without demographics.
        activity_skew: sigma of the lognormal annotator activity.
        random_state: seed or numpy Generator (numpy's global state is never used).

    Returns:
        MultiAnnotatorDataset: favourable label 0. ``annotators`` holds gender, age_group, education
        (the protected attributes) and the ground truth ``kind`` ("regular", "minority", "spammer");
        ``items`` holds the features, ``contested``, ``consensus_label`` and a short ``text``.

    Raises:
        TypeError: a size is not an int, or ``random_state`` is not None, an int or a Generator.
        ValueError: a size or fraction out of range.
    """
    n_items, n_annotators, k = check_sizes(n_items, n_annotators, annotations_per_item)
    n_features = check_int(n_features, "n_features", low=2)
    minority_fraction = check_fraction(minority_fraction, "minority_fraction")
    spammer_fraction = check_fraction(spammer_fraction, "spammer_fraction")
    if minority_fraction + spammer_fraction > 1:
        raise ValueError(
            f"minority_fraction + spammer_fraction must be <= 1, got {minority_fraction + spammer_fraction}"
        )
    contested_fraction = check_fraction(contested_fraction, "contested_fraction")
    noise = check_fraction(noise, "noise")
    base_rate = check_fraction(base_rate, "base_rate")
    missing_demographics = check_fraction(missing_demographics, "missing_demographics")
    if not isinstance(activity_skew, numbers.Real) or activity_skew < 0:
        raise ValueError(f"activity_skew must be a number >= 0, got {activity_skew!r}")
    rng = check_random_state(random_state, "random_state")

    # Items.
    x = rng.standard_normal((n_items, n_features))
    w = rng.uniform(0.5, 1.5, n_features) * rng.choice([-1.0, 1.0], n_features)
    w[0] = 0.0
    score = x @ w + 0.5 * rng.standard_normal(n_items)
    n_pos = int(round(base_rate * n_items))
    consensus = np.zeros(n_items, dtype=np.int64)
    consensus[np.argsort(-score, kind="stable")[:n_pos]] = 1
    contested = np.zeros(n_items, dtype=bool)
    contested[np.argsort(-x[:, 0], kind="stable")[: int(round(contested_fraction * n_items))]] = True

    # Annotators.
    n_spam = int(round(spammer_fraction * n_annotators))
    n_min = int(round(minority_fraction * n_annotators))
    kind = np.array(["spammer"] * n_spam + ["minority"] * n_min + ["regular"] * (n_annotators - n_spam - n_min),
                    dtype=object)
    kind = kind[rng.permutation(n_annotators)]
    minority = kind == "minority"
    young_p = np.where(minority, 0.85, 0.1)
    young = rng.random(n_annotators) < young_p
    older = rng.choice(np.array(AGE_GROUPS[1:], dtype=object), size=n_annotators, p=[0.5, 0.35, 0.15])
    age = np.where(young, AGE_GROUPS[0], older).astype(object)
    gender = rng.choice(np.array(GENDERS, dtype=object), size=n_annotators, p=[0.48, 0.48, 0.04])
    education = rng.choice(np.array(EDUCATION, dtype=object), size=n_annotators, p=[0.35, 0.4, 0.2, 0.05])
    no_demo = rng.random(n_annotators) < missing_demographics
    annotator_ids = np.array([f"A{i:05d}" for i in range(n_annotators)], dtype=object)
    annotators = pd.DataFrame(
        {"gender": gender, "age_group": age, "education": education, "kind": kind},
        index=pd.Index(annotator_ids, name="annotator"),
    )
    annotators.loc[no_demo, list(PROTECTED)] = np.nan
    activity = rng.lognormal(0.0, float(activity_skew), n_annotators) if activity_skew > 0 else np.ones(
        n_annotators)

    # Annotations: one row per (item, assigned annotator), labels by the annotator's kind.
    who = assign_annotators(rng, n_items, n_annotators, k, activity).ravel()
    item = np.repeat(np.arange(n_items), k)
    truth = consensus[item]
    flip = rng.random(len(who)) < noise
    regular_label = np.where(flip, 1 - truth, truth)
    minority_label = np.where(contested[item], np.where(flip, 0, 1), regular_label)
    spam_label = (rng.random(len(who)) < 0.5).astype(np.int64)
    kind_of_row = kind[who]
    label = np.where(kind_of_row == "spammer", spam_label,
                     np.where(kind_of_row == "minority", minority_label, regular_label))
    order = np.lexsort((who, item))  # rows sorted by item, then annotator: stable, readable output
    annotations = pd.DataFrame({"item": item[order], "annotator": annotator_ids[who[order]],
                                "label": label[order]})

    feat_names = [f"x{j}" for j in range(n_features)]
    items = pd.DataFrame(x, columns=feat_names, index=pd.Index(np.arange(n_items), name="item"))
    items["contested"] = contested
    items["consensus_label"] = consensus
    items["text"] = [f"synthetic item {i}" for i in range(n_items)]
    return MultiAnnotatorDataset(
        annotations, item_col="item", annotator_col="annotator", label_col="label",
        annotators=annotators, items=items, favorable_label=0, unfavorable_label=1,
        protected_attribute_names=list(PROTECTED), item_features=feat_names,
        metadata={"generator": "make_subjective_dataset", "random_state": random_state
                  if not isinstance(random_state, np.random.Generator) else "Generator"},
    )
