"""Jury verdicts (Gordon et al., "Jury Learning", CHI 2022): whose voices decide an item's label.

Instead of the majority of whoever happened to annotate an item, a *jury* of ``jury_size`` annotators with a
stated composition over an annotator attribute (e.g. half women, half men) is sampled from the annotators for
whom a prediction exists (those who annotated the item, or every annotator when an annotator-aware model
predicts for all of them). Each jury's verdict is the majority of its jurors' predicted labels; repeated over
``n_juries`` juries, the item gets the share of juries that return the positive label and the median verdict.

Sampling is vectorised: every candidate row gets one uniform key per jury; sorting ``item code + key`` orders
each item's candidates at random, independently per jury, and the first ``k`` of each (item, stratum) form
that stratum's seats. Only the strata of the composition are looped over.

References:
    M. L. Gordon, M. S. Lam, J. S. Park, K. Patel, J. T. Hancock, T. Hashimoto, M. S. Bernstein,
    "Jury Learning: Integrating Dissenting Voices into Machine Learning Models", CHI 2022.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._labels import check_tie, majority_vote, vote_counts
from .._validation import check_choice, check_random_state
from .._validation import plain as _plain
from ..datasets.multi_annotator import check_multi_annotator_dataset

__all__ = ["JuryVerdicts", "jury_verdicts", "jury_seats"]

_SHORTFALL = ("error", "skip")


@dataclass(frozen=True)
class JuryVerdicts:
    """The result of :func:`jury_verdicts`.

    Attributes:
        items: indexed by item id (items with a full jury): ``n_candidates`` (annotators with a prediction),
            ``verdict_share`` (share of the juries whose verdict is ``pos_label``), ``median_verdict`` (the
            median verdict over the juries, ties by the tie policy), ``majority_vote`` (the plain majority of
            all the item's predictions, same tie policy), ``label_majority`` (the majority of the annotators'
            own labels in ``dataset``), ``changed`` (median verdict != plain majority vote of the predictions).
        share_changed: share of items whose jury verdict differs from the plain majority vote of the predictions.
        share_changed_vs_labels: share of items whose jury verdict differs from the annotators' majority label.
        seats: the number of seats per stratum of the composition.
        n_skipped: items left out because the composition could not be met (``on_shortfall="skip"``).
        skipped: those items' ids.
    """

    items: pd.DataFrame
    share_changed: float
    share_changed_vs_labels: float
    seats: dict[Any, int]
    n_skipped: int = 0
    skipped: list[Any] = field(default_factory=list)


def jury_seats(shares: dict[Any, Any], jury_size: int) -> dict[Any, int]:
    """Seats per stratum from shares (floats summing to 1) or counts (ints summing to ``jury_size``).

    Shares are turned into seats by the largest-remainder method (ties broken by the stratum order given).

    Raises:
        ValueError: shares not summing to 1, counts not summing to ``jury_size``, negative values.
    """
    if not isinstance(shares, dict) or not shares:
        raise ValueError(f"a composition maps attribute values to shares or seat counts, got {shares!r}")
    vals = list(shares.values())
    if not all(isinstance(v, Real) and not isinstance(v, bool) and float(v) >= 0 for v in vals):
        raise ValueError(f"composition shares must be non-negative numbers, got {shares!r}")
    if all(isinstance(v, Integral) for v in vals) and sum(vals) == jury_size:
        return {k: int(v) for k, v in shares.items()}
    total = float(sum(vals))
    if abs(total - 1.0) > 1e-9:
        raise ValueError(f"composition shares must sum to 1 (or seat counts to jury_size={jury_size}); "
                         f"{ {k: _plain(v) for k, v in shares.items()} } sums to {total}")
    exact = np.asarray(vals, dtype=np.float64) * jury_size
    seats = np.floor(exact).astype(int)
    rest = jury_size - int(seats.sum())
    order = np.argsort(-(exact - seats), kind="stable")
    seats[order[:rest]] += 1
    return dict(zip(shares, seats.tolist()))


def jury_verdicts(
    dataset: Any,
    classified_dataset: Any,
    composition: dict[str, dict[Any, Any]],
    jury_size: int = 12,
    n_juries: int = 100,
    random_state: Any = None,
    *,
    pos_label: float | None = None,
    tie: str = "favorable",
    on_shortfall: str = "error",
) -> JuryVerdicts:
    """Sample juries of stated composition per item and take their majority verdicts.

    Args:
        dataset (MultiAnnotatorDataset): the annotations: annotator attributes (``dataset.annotators``) and
            the annotators' own labels (for ``label_majority``).
        classified_dataset (MultiAnnotatorDataset): a prediction per (item, annotator) row; its rows are the
            candidate jurors of each item (the annotators who annotated it, or all annotators if an
            annotator-aware model predicted for every one). Its annotators must be in ``dataset.annotators``.
        composition: ``{attribute: {value: share}}`` for one annotator attribute, shares summing to 1
            (e.g. ``{"gender": {"Woman": 0.5, "Man": 0.5}}``) or seat counts summing to ``jury_size``.
            Annotators with another or a missing value are never seated.
        jury_size: jurors per jury.
        n_juries: juries sampled per item.
        random_state: None, an int seed or a numpy Generator (numpy's global state is never used).
        pos_label: the label counted in ``verdict_share`` (default: the unfavourable label, e.g. 1 = toxic).
        tie: a jury (or the plain majority) split evenly returns the favourable (default) or unfavourable label.
        on_shortfall: an item without enough candidates in a stratum: ``"error"`` (default) or ``"skip"``
            (left out, counted in ``n_skipped``).

    Returns:
        JuryVerdicts

    Raises:
        TypeError: datasets of the wrong type, bad ``random_state``.
        ValueError: an unknown attribute or value, shares not summing to 1, a non-positive size, or (with
            ``on_shortfall="error"``) an item whose candidates cannot fill a stratum (names the item, the
            stratum, the seats and the candidates).

    References:
        M. L. Gordon et al., "Jury Learning: Integrating Dissenting Voices into Machine Learning Models",
        CHI 2022.
    """
    check_multi_annotator_dataset(dataset, "dataset")
    check_multi_annotator_dataset(classified_dataset, "classified_dataset")
    for name, v in (("jury_size", jury_size), ("n_juries", n_juries)):
        if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    check_tie(tie, allow_drop=False)  # a jury always gives a verdict
    check_choice(on_shortfall, "on_shortfall", _SHORTFALL)
    if not isinstance(composition, dict) or len(composition) != 1:
        raise ValueError(f"composition must map one annotator attribute to its shares, e.g. "
                         f"{{'gender': {{'Woman': 0.5, 'Man': 0.5}}}}; got {composition!r}")
    (attribute, shares), = composition.items()
    if attribute not in dataset.annotators.columns:
        raise ValueError(f"composition attribute {attribute!r} is not an annotator attribute of dataset; "
                         f"attributes are {list(dataset.annotators.columns)}")
    seats = jury_seats(shares, int(jury_size))
    present = set(dataset.annotators[attribute].dropna().unique().tolist())
    unknown = [k for k in seats if k not in present]
    if unknown:
        raise ValueError(f"composition values {unknown} of {attribute!r} do not occur; values are "
                         f"{sorted(present, key=str)}")
    rng = check_random_state(random_state, "random_state")
    fav, unfav = classified_dataset.favorable_label, classified_dataset.unfavorable_label
    pos = unfav if pos_label is None else pos_label
    if pos not in (fav, unfav):
        raise ValueError(f"pos_label={pos_label!r} is not a label of classified_dataset ({fav}, {unfav})")
    tie_positive = (fav if tie == "favorable" else unfav) == pos

    ann_pos = dataset.annotators.index.get_indexer(pd.Index(classified_dataset.annotator_ids))
    if (ann_pos < 0).any():
        missing = pd.unique(classified_dataset.annotator_ids[ann_pos < 0])[:5]
        raise ValueError(f"{int((ann_pos < 0).sum())} prediction row(s) are for annotators not in dataset.annotators, "
                         f"e.g. {[_plain(m) for m in missing]}")
    stratum_of_row = dataset.annotators[attribute].to_numpy(dtype=object)[ann_pos]
    item_codes, items = pd.factorize(classified_dataset.item_ids)
    n_items = len(items)
    is_pos = (classified_dataset.labels.ravel() == pos).astype(np.float64)

    # candidates per (item, stratum), and the items that cannot seat a full jury
    short = np.zeros(n_items, dtype=bool)
    first_short: tuple[Any, Any, int, int, int] | None = None
    masks = {}
    for value, k in seats.items():
        mask = pd.Series(stratum_of_row).eq(value).to_numpy()
        masks[value] = mask
        have = np.bincount(item_codes[mask], minlength=n_items)
        lacking = have < k
        if lacking.any() and first_short is None:
            i = int(np.flatnonzero(lacking)[0])
            first_short = (items[i], value, k, int(have[i]), int(lacking.sum()))
        short |= lacking
    if short.any() and on_shortfall == "error":
        assert first_short is not None  # set with the first lacking stratum
        item, value, k, have_k, n = first_short
        raise ValueError(
            f"composition cannot be met: item {_plain(item)!r} has {have_k} candidate(s) with {attribute}={value!r} "
            f"for {k} seat(s) ({n} item(s) short in this stratum, {int(short.sum())} in all); lower jury_size, "
            "change the composition, predict for every annotator, or pass on_shortfall='skip'"
        )
    keep_item = ~short
    n_pos = np.zeros((n_items, n_juries))
    for value, k in seats.items():
        if k == 0:
            continue
        rows = np.flatnonzero(masks[value] & keep_item[item_codes])
        codes = item_codes[rows]
        # one random key per (row, jury): sorting code + key shuffles every item's candidates per jury
        keys = codes[:, None] + rng.random((len(rows), n_juries))
        order = np.argsort(keys, axis=0, kind="stable")
        sorted_codes = codes[order]
        start = np.searchsorted(codes[np.argsort(codes, kind="stable")], np.arange(n_items))
        rank = np.arange(len(rows))[:, None] - start[sorted_codes]
        seated = rank < k
        jury_idx = np.broadcast_to(np.arange(n_juries), order.shape)
        votes = sp.csr_matrix(
            (is_pos[rows][order][seated], (sorted_codes[seated], jury_idx[seated])), shape=(n_items, n_juries)
        )
        n_pos += votes.toarray()
    # the shared majority vote works in positive-indicator space: its "favorable" tie means "positive"
    tie_policy = "favorable" if tie_positive else "unfavorable"
    verdicts = majority_vote(jury_size, n_pos, tie_policy)
    share = verdicts.mean(axis=1)
    median = majority_vote(n_juries, verdicts.sum(axis=1), tie_policy)

    n_cand = np.bincount(item_codes, minlength=n_items)
    plain = majority_vote(n_cand, np.bincount(item_codes, weights=is_pos, minlength=n_items), tie_policy)
    lab_codes = pd.Index(items).get_indexer(pd.Index(dataset.item_ids))
    own = dataset.labels.ravel() == pos
    ok = lab_codes >= 0
    n_lab, n_lab_pos = vote_counts(lab_codes[ok], own[ok], n_items)
    label_mv = np.where(n_lab == 0, np.nan, majority_vote(n_lab, n_lab_pos, tie_policy))
    neg = fav if pos == unfav else unfav

    def _lab(x: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(x), np.nan, np.where(x == 1.0, pos, neg))

    table = pd.DataFrame(
        {"n_candidates": n_cand, "verdict_share": share, "median_verdict": _lab(median),
         "majority_vote": _lab(plain), "label_majority": _lab(label_mv), "changed": median != plain},
        index=pd.Index(items, name=getattr(dataset, "item_col", "item")),
    )[keep_item]
    if table.empty:
        raise ValueError("composition cannot be met for any item: no jury could be seated")
    has_lab = table["label_majority"].notna()
    return JuryVerdicts(
        items=table,
        share_changed=float(table["changed"].mean()),
        share_changed_vs_labels=float((table["median_verdict"] != table["label_majority"])[has_lab].mean()),
        seats=seats,
        n_skipped=int(short.sum()),
        skipped=[_plain(i) for i in np.asarray(items)[short]],
    )
