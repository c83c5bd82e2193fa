"""excluded_groups: the statistic by hand, the permutation engine, the item adjustment, ADR, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aif360_subjective.opinion import ExcludedGroups, excluded_groups
from aif360_subjective.opinion.excluded_statistic import Sums as _Sums
from aif360_subjective.opinion.excluded_statistic import statistic as _statistic


def _hand_data():
    """Group A: a1 (1,1,1,0), a2 (1,1,0,0); group B: b1 (1,1,1,1), b2 (1,1,1,0); the model predicts 1."""
    correct = {"a1": [1, 1, 1, 0], "a2": [1, 1, 0, 0], "b1": [1, 1, 1, 1], "b2": [1, 1, 1, 0]}
    rows = [(f"i{j}", a, c) for a, cs in correct.items() for j, c in enumerate(cs)]
    df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    table = pd.DataFrame({"group": ["A", "A", "B", "B"]}, index=["a1", "a2", "b1", "b2"])
    return df, table


def test_statistic_by_hand():
    df, table = _hand_data()
    ex = excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"], annotator_ids=df["annotator"],
                         annotators=table, min_annotators=2)
    row = ex.candidates().set_index("description").loc["group=A"]
    # equal counts: equal weights; group means 0.625 and 0.875
    assert row["performance"] == pytest.approx(0.625)
    assert row["rest_performance"] == pytest.approx(0.875)
    assert row["gap"] == pytest.approx(0.25)
    # sigma^2 = within sum of squares 2.5 over N - k = 12; tau^2 = (4/3 * 0.125 - sigma^2 * 4 / 4) / 4 < 0, so 0:
    # weights w = n = 4. The sandwich 2 * (2 * 0.125^2) / 2^2 = 0.015625 is below the floor sigma^2 / 8 = 0.0260417
    # (per group), so se = sqrt(2 * 2.5 / 12 / 8)
    assert row["se"] == pytest.approx(np.sqrt(2 * 2.5 / 12 / 8))
    assert row["t"] == pytest.approx(0.25 / np.sqrt(2 * 2.5 / 12 / 8))
    # 4 annotators: all 24 permutations; the splits {a1 a2 | b1 b2} and {a1 b1 | a2 b2} give |T| = 1.095, the third
    # a gap of 0: p = 16 / 24; the smallest attainable p is 8 / 24
    assert ex.exact and ex.n_permutations == 24
    assert row["p_adjusted"] == pytest.approx(16 / 24)
    assert ex.smallest_p == pytest.approx(8 / 24)
    assert ex.sentence().startswith("Cannot decide")
    assert "0.333" in ex.sentence()


def _hand_weights(df):
    """Per annotator (sorted ids) its count ``n``, mean ``y`` and within sum of squares ``ss``; the pooled
    ``sigma^2``; ``tau^2``, the spread of the annotator means beyond their annotations' noise
    (studentized.group_moments with b = sigma^2: DerSimonian and Laird's moment estimate, every annotator in one
    group); and the random-effects weights ``n / (1 + (n - 1) rho)``, written out by hand."""
    nk = df.groupby("annotator", sort=True)["label"].agg(["size", "mean", lambda s: ((s - s.mean()) ** 2).sum()])
    nk.columns = ["n", "y", "ss"]
    N, k = nk["n"].sum(), len(nk)
    sigma2 = nk["ss"].sum() / (N - k)
    grand = (nk["n"] * nk["y"]).sum() / N
    tau2 = max(((nk["n"] * (nk["y"] - grand) ** 2).sum() - (k - 1) * sigma2) / (N - (nk["n"] ** 2).sum() / N), 0)
    rho = tau2 / (tau2 + sigma2)
    return nk, sigma2, tau2, nk["n"] / (1 + (nk["n"] - 1) * rho)


def test_sandwich_above_floor_by_hand():
    # unequal counts, spread annotators: weights from rho, the sandwich above the floor
    rng = np.random.default_rng(3)
    n = [10, 40, 25, 60, 15, 30]
    acc = [0.2, 0.9, 0.5, 0.95, 0.3, 0.85]
    group = ["A", "A", "A", "B", "B", "B"]
    rows = []
    for a, (k, p) in enumerate(zip(n, acc, strict=True)):
        c = (rng.random(k) < p).astype(int)
        rows += [(f"i{j}", f"a{a}", int(x)) for j, x in enumerate(c)]
    df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    table = pd.DataFrame({"group": group}, index=[f"a{a}" for a in range(6)])
    ex = excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"], annotator_ids=df["annotator"],
                         annotators=table, min_annotators=2)
    got = ex.candidates().set_index("description").loc["group=A"]
    # the same formulas written out annotator by annotator
    nk, sigma2, tau2, w = _hand_weights(df)
    assert tau2 > 0
    inA = table.loc[nk.index, "group"] == "A"

    def mean_var(sel):
        ws, ys, ns = w[sel], nk["y"][sel], nk["n"][sel]
        m = (ws * ys).sum() / ws.sum()
        kk = sel.sum()
        robust = kk / (kk - 1) * (ws**2 * (ys - m) ** 2).sum()
        floor = (ws**2 * sigma2 / ns).sum()
        assert robust > floor
        return m, robust / ws.sum() ** 2

    mA, vA = mean_var(inA)
    mB, vB = mean_var(~inA)
    assert got["gap"] == pytest.approx(mB - mA)
    assert got["se"] == pytest.approx(np.sqrt(vA + vB))
    assert got["performance"] == pytest.approx(mA)


def _simulate(rng, n_annotators=400, n_items=800, gap=0.0, planted=None, batch=False, per=(40, 80)):
    table = pd.DataFrame({
        "gender": rng.choice(["man", "woman", "x"], n_annotators, p=[0.45, 0.45, 0.10]),
        "education": rng.choice(["school", "college", "master", "phd"], n_annotators),
        "age": rng.integers(18, 71, n_annotators),
    }, index=[f"a{i:03d}" for i in range(n_annotators)])
    counts = rng.integers(per[0], per[1], n_annotators)
    member = np.zeros(n_annotators, bool) if planted is None else table.eval(planted).to_numpy()
    own = (table["gender"] == "x").to_numpy()
    items, who = [], []
    for a in range(n_annotators):
        pool = np.arange(n_items // 10) if (batch and own[a]) else np.arange(n_items // 10 if batch else 0, n_items)
        items.append(rng.choice(pool, min(counts[a], len(pool)), replace=False))
        who.append(np.full(len(items[-1]), a))
    item, ann = np.concatenate(items), np.concatenate(who)
    hard = np.where(item < n_items // 10, 0.35, 0.0) if batch else 0.0
    p = 0.85 - hard - gap * member[ann]
    ok = rng.random(len(item)) < p
    y = rng.integers(0, 2, len(item))
    return y, np.where(ok, y, 1 - y), item, table.index[ann].to_numpy(), table


def test_planted_intersection_found_first():
    rng = np.random.default_rng(11)
    y, pred, item, who, table = _simulate(rng, gap=0.12, planted="gender == 'woman' and education == 'phd'")
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0,
                         n_permutations=199)
    f = ex.findings()
    assert f.iloc[0]["description"] == "gender=woman AND education=phd"
    truth = set(table.index[(table["gender"] == "woman") & (table["education"] == "phd")])
    assert set(ex.members(f.index[0])) == truth
    assert f.iloc[0]["ci_low"] > 0 and f.iloc[0]["gap"] == pytest.approx(0.12, abs=0.04)
    assert "Served worse: gender=woman AND education=phd" in ex.sentence()


def test_reported_exactly_when_interval_excludes_zero():
    rng = np.random.default_rng(12)
    y, pred, item, who, table = _simulate(rng, gap=0.08, planted="education == 'phd'")
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=1,
                         n_permutations=199)
    t = ex.candidates()
    reported = (t["p_adjusted"] <= ex.alpha) & (t["gap"] > 0)
    assert reported.any()
    assert (reported == (t["ci_low"] > 0)).all()
    assert ((t["ci_low"] <= t["gap"]) & (t["gap"] <= t["ci_high"])).all()


def test_item_confounded_group_needs_adjust_items():
    rng = np.random.default_rng(13)
    # gender=x annotators label their own batch of harder items; on any item everyone is served alike
    y, pred, item, who, table = _simulate(rng, batch=True)
    raw = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0,
                          n_permutations=199)
    adj = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0,
                          n_permutations=199,
                          adjust="items")
    assert raw.findings()["description"].str.contains("gender=x").any()
    first = raw.findings().iloc[0]
    assert first["shared_items"] == 0.0  # their items were annotated by no one else
    assert "Only 0% of this group's annotations are on items other annotators also labelled" in raw.sentence()
    assert not adj.findings()["description"].str.contains("gender=x").any()


def test_no_finding_states_detectable_gap():
    rng = np.random.default_rng(14)
    y, pred, item, who, table = _simulate(rng, n_annotators=200)
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, attributes=["gender"],
                         random_state=0, n_permutations=199)
    assert len(ex.findings()) == 0
    assert ex.sentence().startswith("No annotator group is served worse")
    assert "would have been found about 80% of the time (normal approximation)" in ex.sentence()
    t = ex.candidates()
    # detectable gap = (c + offset + z_0.8) se, the threshold c + offset that T must exceed; the interval's lower end
    # is the gap minus threshold x se
    assert (t["threshold"] > 0).all()
    # z_0.8 times the spread of the candidate's T under the permutations, at least 1
    spread = (t["detectable_gap"] / t["se"] - t["threshold"]) / 0.8416212335729143
    assert (spread >= 1 - 1e-9).all() and (spread < 1.5).all()
    assert np.allclose(t["gap"] - t["ci_low"], t["threshold"] * t["se"])


def test_permutation_engine_matches_a_permuted_table():
    """The sums of a permutation equal the observed sums computed with the attribute rows permuted."""
    rng = np.random.default_rng(15)
    y, pred, item, who, table = _simulate(rng, n_annotators=60, per=(5, 30))
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table,
                         attributes=["gender", "education"], random_state=0, n_permutations=99, min_annotators=2)
    perm = rng.permutation(len(table))
    # slot i receives the data of annotator perm[i]: equivalently annotator perm[i] takes slot i's attributes
    shuffled = table.copy()
    shuffled.iloc[perm] = table.to_numpy()
    ex2 = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=shuffled,
                          attributes=["gender", "education"], random_state=0, n_permutations=99, min_annotators=2)
    a = ex2.candidates().set_index("description")[["gap", "se", "t"]]
    # the engine on ex's memberships with the permutation
    import scipy.sparse as sp

    data, totals = ex.engine
    sums = _Sums(ex.members_matrix, len(table), 1, data)
    gap, se, t, *_ = _statistic(sums.sums(perm[None, :]), totals, True)
    b = pd.DataFrame({"gap": gap[:, 0], "se": se[:, 0], "t": t[:, 0]},
                     index=ex.candidates()["description"])
    common = a.index.intersection(b.index)
    assert len(common) > 5
    assert np.allclose(a.loc[common].to_numpy(), b.loc[common].to_numpy())
    assert isinstance(ex.members_matrix, sp.csc_matrix)


def test_adr_halves_leave_other_candidates_unchanged():
    rng = np.random.default_rng(16)
    y, pred, item, who, table = _simulate(rng, n_annotators=120)
    kw = dict(item_ids=item, annotator_ids=who, annotators=table, random_state=0, n_permutations=99, max_conditions=1)
    plain = excluded_groups(y, pred, attributes=["gender", "education"], **kw)
    with_adr = excluded_groups(y, pred, attributes=["gender", "education", "adr"], **kw)
    a = plain.candidates().set_index("description")[["gap", "se", "t", "n_annotators", "n_annotations"]]
    b = with_adr.candidates().set_index("description")
    assert b.index.str.startswith("adr").any()
    assert np.allclose(a.to_numpy(dtype=float), b.loc[a.index, a.columns].to_numpy(dtype=float))
    assert "cross-fitted" in with_adr.summary()


def test_majority_model_excludes_high_adr():
    rng = np.random.default_rng(17)
    n_ann, n_items = 120, 300
    table = pd.DataFrame({"gender": rng.choice(["m", "w"], n_ann)}, index=[f"a{i}" for i in range(n_ann)])
    truth = rng.integers(0, 2, n_items)
    flip = np.where(np.arange(n_ann) < 20, 0.4, 0.05)  # 20 dissenters
    item = np.tile(np.arange(n_items), n_ann)
    who = np.repeat(np.arange(n_ann), n_items)
    keep = rng.random(len(item)) < 0.3
    item, who = item[keep], who[keep]
    y = np.where(rng.random(len(item)) < flip[who], 1 - truth[item], truth[item])
    ex = excluded_groups(y, truth[item], item_ids=item, annotator_ids=table.index[who], annotators=table,
                         attributes=["gender", "adr"], random_state=0, n_permutations=199)
    assert ex.findings().iloc[0]["description"].startswith("adr")
    assert set(ex.members(ex.findings().index[0])) & set(table.index[:20])


def test_mae_lower_is_better():
    rng = np.random.default_rng(18)
    y, pred, item, who, table = _simulate(rng, gap=0.0)
    ratings = rng.integers(1, 6, len(y))
    worse = (table["education"] == "phd").to_numpy()[pd.Index(table.index).get_indexer(who)]
    err = np.where(rng.random(len(y)) < np.where(worse, 0.5, 0.2), 1, 0)
    predicted = np.clip(ratings + err, 1, 5)
    ex = excluded_groups(ratings, predicted, item_ids=item, annotator_ids=who, annotators=table, performance="mae",
                         random_state=0, n_permutations=199, attributes=["education"])
    top = ex.findings().iloc[0]
    assert top["description"] == "education=phd"
    assert top["gap"] > 0 and top["performance"] > top["rest_performance"]


def test_small_groups_counted_and_items_dropped_counted():
    rng = np.random.default_rng(19)
    y, pred, item, who, table = _simulate(rng, n_annotators=60, per=(5, 15))
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0, n_permutations=99,
                         adjust="items", max_conditions=3)
    assert ex.counts["n_small_groups"] > 0
    assert f"{ex.counts['n_small_groups']} attribute-value groups with fewer than 5 annotators" in ex.summary()
    single = pd.Series(item).map(pd.Series(item).value_counts()) == 1
    assert ex.counts["n_single_annotation_items"] == int(single.sum()) > 0
    assert "annotated once dropped" in ex.summary()


def test_cannot_answer_when_no_group_is_large_enough():
    df, table = _hand_data()
    ex = excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"],
                         annotator_ids=df["annotator"], annotators=table)
    assert ex.counts["n_candidates"] == 0 and len(ex.findings()) == 0
    assert ex.counts["n_small_groups"] == 2  # group=A and group=B, 2 annotators each
    assert ex.sentence().startswith("Cannot answer")


def test_deterministic():
    rng = np.random.default_rng(20)
    data = _simulate(rng, n_annotators=100)
    y, pred, item, who, table = data
    a = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=5, n_permutations=99)
    b = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=5, n_permutations=99)
    pd.testing.assert_frame_equal(a.candidates(), b.candidates())
    assert isinstance(a, ExcludedGroups)


@pytest.mark.parametrize("kw, match", [
    (dict(attributes=["height"]), "attributes .*height.* not columns of the annotators table"),
    (dict(attributes=["constant"]), "attributes: 'constant' has a single value"),
    (dict(min_annotators=1), r"min_annotators must be >= 2, got 1"),
    (dict(max_conditions=0), r"max_conditions must be >= 1, got 0"),
    (dict(max_conditions=4), r"max_conditions must be <= 3, got 4"),
    (dict(adjust="annotators"), "adjust must be one of"),
    (dict(performance="balanced_accuracy"), "not a mean of per-annotation scores"),
    (dict(alpha=0.01, n_permutations=19), "cannot reach alpha"),
])
def test_bad_input(kw, match):
    df, table = _hand_data()
    table = table.assign(constant=1)
    with pytest.raises(ValueError, match=match):
        excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"], annotator_ids=df["annotator"],
                        annotators=table, **kw)


@pytest.mark.parametrize("kw, match", [
    (dict(max_conditions=2.5), r"max_conditions must be an int from 1 to 3, got 2.5"),
    (dict(min_annotators="3"), r"min_annotators must be an int >= 2, got '3'"),
])
def test_bad_option_types(kw, match):
    df, table = _hand_data()
    with pytest.raises(TypeError, match=match):
        excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"], annotator_ids=df["annotator"],
                        annotators=table, **kw)


def test_bad_annotator_table_type():
    df, _ = _hand_data()
    with pytest.raises(TypeError, match="annotators must be a pandas DataFrame"):
        excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"], annotator_ids=df["annotator"],
                        annotators={"a1": "A"})  # type: ignore[arg-type]


def test_annotator_table_with_a_repeated_id_or_an_infinite_value_is_refused_by_name():
    df, table = _hand_data()
    args = (df["label"], np.ones(len(df), dtype=int))
    kw = {"item_ids": df["item"], "annotator_ids": df["annotator"]}
    repeated = pd.concat([table, table.iloc[[0]]])
    with pytest.raises(ValueError, match=r"annotators holds 1 annotator id\(s\) on more than one row \(e.g. \['"
                                         + str(table.index[0]) + r"'\]\)"):
        excluded_groups(*args, **kw, annotators=repeated)
    numeric = table.assign(age=np.arange(len(table), dtype=float))
    numeric.loc[numeric.index[1], "age"] = np.inf
    with pytest.raises(ValueError, match=r"annotators: column 'age' holds 1 infinite value\(s\) \(e.g. annotator "
                                         + str(table.index[1]) + r"\)"):
        excluded_groups(*args, **kw, annotators=numeric)


def test_class_face_matches_function():
    from aif360_subjective.datasets import MultiAnnotatorDataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    rng = np.random.default_rng(21)
    y, pred, item, who, table = _simulate(rng, n_annotators=150, gap=0.15, planted="education == 'phd'")
    long = pd.DataFrame({"item": item, "annotator": who, "label": y})
    ds = MultiAnnotatorDataset(long, annotators=table[["gender", "education"]], favorable_label=1,
                               unfavorable_label=0)
    classified = ds.with_predictions(pred)
    metric = OpinionExclusionMetric(ds, classified, grouping="adr")
    face = metric.excluded_groups(attributes=["gender", "education", "adr"], random_state=3, n_permutations=199)
    func = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table[["gender", "education"]],
                           attributes=["gender", "education", "adr"], random_state=3, n_permutations=199)
    pd.testing.assert_frame_equal(face.candidates(), func.candidates())
    assert face.findings().iloc[0]["description"] == "education=phd"
    assert metric.excluded_groups(attributes=["gender", "education", "adr"], random_state=3, n_permutations=199) is face
    with pytest.raises(ValueError, match="max_conditions"):
        metric.excluded_groups(max_conditions=5)


def test_missing_values_in_no_condition_and_counted():
    rng = np.random.default_rng(22)
    y, pred, item, who, table = _simulate(rng, n_annotators=120)
    table = table.astype({"age": float})
    table.iloc[:7, table.columns.get_loc("gender")] = np.nan
    table.iloc[3:12, table.columns.get_loc("age")] = np.nan
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0, n_permutations=99)
    assert ex.counts["missing"] == {"gender": 7, "age": 9}
    assert "7 annotators without a value of gender" in ex.summary()
    no_gender = set(table.index[:7])
    no_age = set(table.index[3:12])
    t = ex.candidates()
    for i in t.index:
        ids = set(ex.members(i))
        if "gender=" in t.loc[i, "description"]:
            assert not ids & no_gender
        if "age ∈" in t.loc[i, "description"]:
            assert not ids & no_age


def test_measure_that_scores_nothing():
    df, table = _hand_data()
    with pytest.raises(ValueError, match="performance 'precision' scores none of the 16 annotations"):
        excluded_groups(df["label"], np.zeros(len(df), dtype=int), item_ids=df["item"],
                        annotator_ids=df["annotator"], annotators=table, min_annotators=2, performance="precision")


def test_small_groups_counted_exactly():
    # group A x 6, B x 5, C x 1; x = u for all but C's annotator (v). With min_annotators=5 and two conditions the
    # groups too small to test are C, x=v and C AND x=v: 3, never dropped silently
    ids = [f"a{i:02d}" for i in range(12)]
    table = pd.DataFrame({"group": ["A"] * 6 + ["B"] * 5 + ["C"], "x": ["u"] * 11 + ["v"]}, index=ids)
    rng = np.random.default_rng(2)
    who = np.repeat(ids, 10)
    item = np.tile(np.arange(10), 12)
    y = rng.integers(0, 2, len(who))
    ex = excluded_groups(y, y, item_ids=item, annotator_ids=who, annotators=table, random_state=0, n_permutations=99)
    assert ex.counts["n_small_groups"] == 3
    assert "3 attribute-value groups with fewer than 5 annotators not tested" in ex.summary()


def test_items_adjustment_cannot_decide_about_a_group_on_its_own_items():
    # gender=x annotators label only their own batch of items, which nobody else labels: compared item by item they
    # have no one to be compared with, so the answer says it cannot decide about them (and states no detectable gap
    # for them)
    rng = np.random.default_rng(31)
    y, pred, item, who, table = _simulate(rng, n_annotators=200, batch=True)
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0, n_permutations=99,
                         adjust="items")
    c = ex.candidates().set_index("description")
    assert c.loc["gender=x", "shared_items"] == 0.0
    assert "Cannot decide about" in ex.sentence() and "gender=x" in ex.sentence()
    raw = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=0,
                          n_permutations=99)
    assert "Cannot decide about" not in raw.sentence()


def test_monte_carlo_offsets_treat_the_observed_arrangement_like_the_permuted_ones():
    # A Monte Carlo max-T is exact when its statistic is the same function of the B + 1 arrangements (the observed
    # one and the B permuted ones) whichever of them is the observed: then under exchangeability the observed
    # arrangement's rank is uniform. Take B + 1 arrangements of two classes (one candidate each, so a class's
    # largest T is the candidate's T) and let each in turn be the observed one: the p-values must be exactly
    # 1/(B+1), 2/(B+1), ..., 1. Offsets from the median of the B permuted arrangements alone break this.
    from aif360_subjective.opinion.excluded import _Direction

    rng = np.random.default_rng(7)
    B = 9
    for _ in range(20):
        rows = rng.normal(size=(B + 1, 2)) * np.array([1.0, 3.0]) + np.array([0.0, 2.0])
        classes = np.array([0, 1])
        p = [float(_Direction.from_null(np.delete(rows, r, axis=0), classes, rows[r], 0.05, False).p_adjusted.min())
             for r in range(B + 1)]
        np.testing.assert_allclose(np.sort(p), np.arange(1, B + 2) / (B + 1))


def _eight_annotators():
    """8 annotators (two attributes, unequal counts, spread accuracies): small enough to enumerate every
    permutation."""
    rng = np.random.default_rng(8)
    n = [12, 30, 8, 25, 40, 15, 22, 35]
    acc = [0.4, 0.8, 0.5, 0.9, 0.95, 0.6, 0.85, 0.9]
    rows = []
    for a, (k, p) in enumerate(zip(n, acc, strict=True)):
        c = (rng.random(k) < p).astype(int)
        rows += [(f"i{j}", f"a{a}", int(x)) for j, x in enumerate(c)]
    df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    table = pd.DataFrame({"g": ["A"] * 4 + ["B"] * 4, "e": ["u", "u", "v", "v", "u", "v", "v", "v"]},
                         index=[f"a{a}" for a in range(8)])
    return df, table


def _t_of_every_subset(df):
    """T of every set of annotators (bit mask over the sorted annotator ids) against the others, written out from
    the module's formulas: random-effects weights, the sandwich floored at the annotations' noise."""
    nk, sigma2, _, w_s = _hand_weights(df)
    w, y, n, k = w_s.to_numpy(), nk["y"].to_numpy(), nk["n"].to_numpy(), len(nk)

    def mean_var(sel):
        ws, ys, ns = w[sel], y[sel], n[sel]
        m = (ws * ys).sum() / ws.sum()
        kk = sel.sum()
        robust = kk / (kk - 1) * (ws**2 * (ys - m) ** 2).sum() if kk > 1 else np.nan
        # Kish's effective number of annotators, less one: the degrees of freedom of this side's variance
        dof = max(ws.sum() ** 2 / (ws**2).sum() - 1, 1)
        return m, max(robust, (ws**2 * sigma2 / ns).sum()) / ws.sum() ** 2, dof

    t = np.full(2**k, -np.inf)
    z = np.full(2**k, -np.inf)
    dfs = np.full(2**k, np.nan)
    for mask in range(1, 2**k - 1):
        sel = np.array([(mask >> a) & 1 for a in range(k)], dtype=bool)
        if sel.sum() < 2 or (~sel).sum() < 2:
            continue
        (ms, vs, ds), (mr, vr, dr) = mean_var(sel), mean_var(~sel)
        t[mask] = (mr - ms) / np.sqrt(vs + vr)  # accuracy: rest minus group, positive = served worse
        dfs[mask] = (vs + vr) ** 2 / (vs**2 / ds + vr**2 / dr)  # Welch-Satterthwaite
        # on the normal scale: the same tail probability under Student's t on dfs[mask] degrees of freedom
        z[mask] = np.sign(t[mask]) * stats.norm.isf(stats.t.sf(abs(t[mask]), dfs[mask]))
    return t, list(nk.index), z, dfs


@pytest.mark.slow
def test_balance_none_is_the_plain_max_t_by_brute_force():
    # every candidate against one threshold (offset 0), and the p-values of the plain single-step max-T: the share
    # of the 8! permutations whose largest T over all candidates reaches the candidate's T, computed here from the
    # T of every set of annotators written out by hand
    df, table = _eight_annotators()
    kw = dict(item_ids=df["item"], annotator_ids=df["annotator"], annotators=table, min_annotators=2)
    y, p = df["label"], np.ones(len(df), dtype=int)
    ex = excluded_groups(y, p, balance="none", **kw)
    assert ex.exact and ex.balance == "none"
    c = ex.candidates()
    assert len(c) >= 6 and set(c["n_conditions"]) == {1, 2}
    t_sub, ids, z_sub, df_sub = _t_of_every_subset(df)
    bit = {a: 1 << i for i, a in enumerate(ids)}
    masks = np.array([sum(bit[a] for a in ex.members(i)) for i in c.index])
    np.testing.assert_allclose(t_sub[masks], c["t"].to_numpy())
    np.testing.assert_allclose(df_sub[masks], c["df"].to_numpy())
    np.testing.assert_allclose(z_sub[masks], c["z"].to_numpy())
    # one threshold for every candidate on the normal scale: on the scale of T, Student's quantile of the same tail
    expected = stats.t.isf(stats.norm.sf(ex.critical_value), c["df"].to_numpy())
    np.testing.assert_allclose(c["threshold"].to_numpy(), expected)
    # under permutation pi the candidate holding annotators S holds pi(S)
    perms = np.array(list(itertools.permutations(range(8))))
    member = np.array([[(m >> a) & 1 for a in range(8)] for m in masks], dtype=bool)  # (candidates, annotators)
    keys = np.stack([(1 << perms[:, member[j]]).sum(axis=1) for j in range(len(masks))], axis=1)
    null = z_sub[keys].max(axis=1)
    p_plain = np.array([(null >= zj - 1e-9).mean() for zj in c["z"]])
    np.testing.assert_allclose(c["p_adjusted"].to_numpy(), p_plain)
    assert ex.critical_value == pytest.approx(np.sort(null)[::-1][int(0.05 * len(null))])
    np.testing.assert_allclose(c["ci_low"], c["gap"] - np.maximum(c["threshold"], 0) * c["se"])
    assert "balance='none'" in ex.summary()
    # the default balances: its classes (1 and 2 conditions) get different thresholds, and the summary is silent
    bal = excluded_groups(y, p, **kw)
    assert bal.balance == "conditions" and "balance" not in bal.summary()
    assert bal.candidates().groupby("n_conditions")["threshold"].first().nunique() == 2
    pd.testing.assert_series_equal(bal.candidates().set_index("description")["t"].sort_index(),
                                   c.set_index("description")["t"].sort_index())


def test_balance_none_monte_carlo_p_values_by_hand():
    # two classes, B = 9 permutations: unbalanced, p = (1 + #{largest T over every candidate >= t}) / (B + 1)
    from aif360_subjective.opinion.excluded import _Direction

    rng = np.random.default_rng(4)
    rows = rng.normal(size=(9, 2)) * np.array([1.0, 3.0])
    t = np.array([1.5, 2.5, 0.2])
    classes = np.array([0, 1, 1])
    d = _Direction.from_null(rows, classes, t, 0.2, False, balanced=False)
    np.testing.assert_array_equal(d.offset, 0.0)
    largest = rows.max(axis=1)
    np.testing.assert_allclose(d.p_adjusted, [(1 + (largest >= x).sum()) / 10 for x in t])
    # reported when p <= 0.2, i.e. at most one of the 9 maxima reaches T: above the second largest maximum
    assert d.critical_value == np.sort(largest)[::-1][1]
    balanced = _Direction.from_null(rows, classes, t, 0.2, False)
    assert not np.allclose(balanced.offset, 0.0)


@pytest.mark.parametrize("balance", ["x", 1, None])
def test_bad_balance(balance):
    df, table = _hand_data()
    with pytest.raises(ValueError, match=r"balance must be one of \['conditions', 'none'\], got"):
        excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"], annotator_ids=df["annotator"],
                        annotators=table, balance=balance)


def test_class_face_balance():
    from aif360_subjective.datasets import MultiAnnotatorDataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    rng = np.random.default_rng(21)
    y, pred, item, who, table = _simulate(rng, n_annotators=120)
    ds = MultiAnnotatorDataset(pd.DataFrame({"item": item, "annotator": who, "label": y}),
                               annotators=table[["gender", "education"]], favorable_label=1, unfavorable_label=0)
    metric = OpinionExclusionMetric(ds, ds.with_predictions(pred), grouping="adr")
    face = metric.excluded_groups(random_state=3, n_permutations=99, balance="none")
    func = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table[["gender", "education"]],
                           random_state=3, n_permutations=99, balance="none")
    pd.testing.assert_frame_equal(face.candidates(), func.candidates())
    assert face.balance == "none"
    # the cache tells the balances apart
    assert metric.excluded_groups(random_state=3, n_permutations=99).balance == "conditions"


def _data_from_scores(data, y_units):
    """The engine's annotator columns rebuilt from unit scores ``y_units`` (one array per half), weights kept."""
    from aif360_subjective.opinion.excluded_statistic import _F, _K, _W
    from aif360_subjective.opinion.excluded_statistic import AnnotatorData as _Data

    halves = []
    for d, y in zip(data.halves, y_units, strict=True):
        w = d[:, _W]
        halves.append(np.column_stack([w, w * y, w * w, w * w * y, w * w * y * y, d[:, _F], d[:, _K]]))
    cross = None
    if data.cross is not None:
        ww = data.halves[0][:, _W] * data.halves[1][:, _W]
        cross = np.column_stack([ww, ww * (y_units[0] + y_units[1]), ww * y_units[0] * y_units[1], data.cross[:, 3]])
    return _Data(halves, cross)


@pytest.mark.parametrize("attributes", [["gender", "education"], ["gender", "adr"]])
def test_wild_bootstrap_sums_equal_the_statistic_of_sign_flipped_scores(attributes):
    # a wild draw gives annotator a the scores mean + v_a (y - mean) (both halves the same sign): the engine's
    # linear update must equal the statistic computed afresh from those scores
    from aif360_subjective.opinion.excluded_statistic import _A, _W
    from aif360_subjective.opinion.excluded_statistic import Flips as _Flips
    from aif360_subjective.opinion.excluded_statistic import wild_parts as _wild_parts

    rng = np.random.default_rng(21)
    y, pred, item, who, table = _simulate(rng, n_annotators=50, per=(5, 30))
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, attributes=attributes,
                         random_state=0, n_permutations=99, min_annotators=2)
    data, totals = ex.engine
    H = len(data.halves)
    k = data.halves[0].shape[0]
    mean = totals["h"][_A] / totals["h"][_W]
    sums = _Sums(ex.members_matrix, k, H, data)
    flips = _Flips(sums, *_wild_parts(data, mean))
    signs = rng.choice([-1.0, 1.0], size=(3, k))
    parts, tot = flips.sums_and_totals(signs)
    got = _statistic(parts, tot, True)
    for j in range(3):
        y_units = []
        for d in data.halves:
            w = d[:, _W]
            yu = np.where(w > 0, d[:, _A] / np.where(w > 0, w, 1.0), 0.0)
            y_units.append(np.where(w > 0, mean + signs[j] * (yu - mean), 0.0))
        fresh = _data_from_scores(data, y_units)
        fresh_sums = _Sums(ex.members_matrix, k, H, fresh)
        fresh_totals = {"h": np.sum([d.sum(axis=0) for d in fresh.halves], axis=0)}
        if fresh.cross is not None:
            fresh_totals["c"] = fresh.cross.sum(axis=0)
        want = _statistic(fresh_sums.sums(np.arange(k)[None, :]), fresh_totals, True)
        for field in ("gap", "se", "t", "df", "z"):
            np.testing.assert_allclose(getattr(got, field)[:, j], getattr(want, field)[:, 0], rtol=1e-9, atol=1e-12)
    # all signs +1 is the observed data
    same = _statistic(*flips.sums_and_totals(np.ones((1, k))), True)
    np.testing.assert_allclose(same.t[:, 0], ex.candidates()["t"].to_numpy(), rtol=1e-9)


def test_p_value_is_the_larger_of_permutation_and_wild_bootstrap():
    rng = np.random.default_rng(22)
    y, pred, item, who, table = _simulate(rng, n_annotators=120, gap=0.1, planted="education == 'phd'")
    ex = excluded_groups(y, pred, item_ids=item, annotator_ids=who, annotators=table, random_state=3,
                         n_permutations=199)
    c = ex.candidates()
    assert not ex.exact and np.isfinite(ex.wild_critical_value)
    np.testing.assert_array_equal(c["p_adjusted"], np.maximum(c["p_permutation"], c["p_wild"]))
    assert (c["p_wild"] != c["p_permutation"]).any()
    assert "wild-bootstrap draws, p the larger of the two" in ex.summary()
    # enumerated permutations: the wild bootstrap is not run, and the summary says so
    df, small = _eight_annotators()
    ex8 = excluded_groups(df["label"], np.ones(len(df), dtype=int), item_ids=df["item"],
                          annotator_ids=df["annotator"], annotators=small, min_annotators=2)
    assert ex8.exact and ex8.candidates()["p_wild"].isna().all() and np.isnan(ex8.wild_critical_value)
    assert "wild bootstrap" in ex8.summary() and "was not run" in ex8.summary()


def test_detectable_gap_solves_the_gap_with_the_variance_it_moves():
    # g = c se(g): for 0/1 scores the group's annotation-noise part F / W^2 = sigma^2 sum w^2/n / W^2 grows with
    # the moved mean, (mu - g)(1 - mu + g) = mu (1 - mu) + g (2 mu - 1) - g^2 per annotation
    from scipy.optimize import brentq

    from aif360_subjective.opinion.excluded_statistic import _F, _W
    from aif360_subjective.opinion.excluded_statistic import detectable_gap as _detectable_gap

    sigma2, mu = 0.16, 0.8
    W = np.array([40.0, 10.0])
    F = sigma2 * np.array([2.0, 0.9])  # sum w^2 sigma^2 / n
    obs = {"h0": np.zeros((2, 1, 7))}
    obs["h0"][:, 0, _W], obs["h0"][:, 0, _F] = W, F
    totals = {"h": np.zeros(7)}
    totals["h"][_W], totals["h"][1] = 100.0, 100.0 * mu
    se = np.array([0.03, 0.1])
    c = np.array([3.2, 2.5])
    got = _detectable_gap(c, se, obs, np.array([0, 1]), sigma2, totals, binary=True, higher=True)
    for i in range(2):
        within = F[i] / W[i] ** 2  # the annotations' share of the group's variance
        def excess(g, i=i, within=within):
            return g - c[i] * np.sqrt(se[i] ** 2 + within * (g * (2 * mu - 1) - g * g) / sigma2)

        g = brentq(excess, 1e-9, 1)
        assert got[i] == pytest.approx(g, rel=1e-10)
        assert got[i] > c[i] * se[i]  # above 1/2 a lower mean is a noisier one
    # lower is better (a rate that rises): b = 1 - 2 mu; other scores keep c se
    low = _detectable_gap(c, se, obs, np.array([0, 1]), sigma2, totals, binary=True, higher=False)
    assert (low < c * se).all()
    np.testing.assert_allclose(_detectable_gap(c, se, obs, np.array([0, 1]), sigma2, totals, binary=False,
                                               higher=True), c * se)


# ------------------------------------------------------------------ issue 41: sentences true to their numbers
def _equal_design(n_annotators=40, per=20, seed=0):
    """Every annotator labels the same ``per`` items; two attributes of two values each."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({"gender": np.repeat(["m", "f"], n_annotators // 2),
                          "age": np.tile(["young", "old"], n_annotators // 2)},
                         index=[f"a{i:02d}" for i in range(n_annotators)])
    ann = np.repeat(table.index.to_numpy(), per)
    item = np.tile(np.arange(per), n_annotators)
    y = rng.integers(0, 2, len(ann))
    return y, item, ann, table, rng


def test_every_score_equal_names_the_cause():
    y, item, ann, table, _ = _equal_design()
    ex = excluded_groups(y, y, item_ids=item, annotator_ids=ann, annotators=table, n_permutations=99,
                         random_state=0)
    assert ex.sentence().startswith("Cannot answer: every scored annotation has the same accuracy score (1), so no "
                                    "annotator group can be served worse or better")
    assert "holds at least" not in ex.sentence()


def test_one_scored_annotation_per_annotator_cannot_answer():
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"gender": np.repeat(["m", "f"], 20)}, index=[f"a{i:02d}" for i in range(40)])
    y = rng.integers(0, 2, 40)
    p = np.where(rng.random(40) < 0.8, y, 1 - y)
    ex = excluded_groups(y, p, item_ids=np.zeros(40, int), annotator_ids=table.index, annotators=table,
                         n_permutations=99, random_state=0)
    assert ex.sentence().startswith("Cannot answer: each of the 40 annotators has one scored annotation")
    assert "would have been found" not in ex.sentence()


def test_groups_on_their_own_items_without_the_adjustment_cannot_answer():
    # each annotator labels items no one else labels (one annotation per item): accuracy measures the items
    rng = np.random.default_rng(4)
    table = pd.DataFrame({"gender": np.repeat(["m", "f"], 20)}, index=[f"a{i:02d}" for i in range(40)])
    ann = np.repeat(table.index.to_numpy(), 15)
    item = np.arange(len(ann))
    y = rng.integers(0, 2, len(ann))
    p = np.where(rng.random(len(ann)) < 0.8, y, 1 - y)
    ex = excluded_groups(y, p, item_ids=item, annotator_ids=ann, annotators=table, n_permutations=99,
                         random_state=0)
    assert ex.sentence().startswith("Cannot answer: under 5% of every group's annotations are on items someone "
                                    "outside the group also labelled")
    assert ex.counts["shared_share"] == 0.0
    # Wikipedia Talk's design: 2 of 40 annotators also label one item each of another's (98% single-annotation)
    item2 = item.copy()
    item2[[0, 15]] = item2[[30, 45]]
    ex2 = excluded_groups(y, p, item_ids=item2, annotator_ids=ann, annotators=table, n_permutations=99,
                          random_state=0)
    assert 0 < ex2.counts["shared_share"] < 0.05
    assert ex2.sentence().startswith("Cannot answer: under 5% of every group's annotations")
    with pytest.raises(ValueError, match=r"adjust='items' compares each annotation with the other annotations of its "
                                         r"item, and every item scored here carries one annotation"):
        excluded_groups(y, p, item_ids=item, annotator_ids=ann, annotators=table, adjust="items",
                        n_permutations=99, random_state=0)


def test_a_stated_detectable_gap_is_never_beyond_what_the_measure_allows():
    # twelve groups of 2 annotators with 6 annotations each, accuracy 0.95: one group's normal-approximation gap
    # passes what accuracy allows (the rest's accuracy: the group cannot fall below 0)
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"c": np.repeat(list("abcdefghijkl"), 2)}, index=[f"a{i:02d}" for i in range(24)])
    ann = np.repeat(table.index.to_numpy(), 6)
    item = np.tile(np.arange(6), 24)
    y = rng.integers(0, 2, len(ann))
    p = np.where(rng.random(len(ann)) < 0.95, y, 1 - y)
    ex = excluded_groups(y, p, item_ids=item, annotator_ids=ann, annotators=table, min_annotators=2,
                         n_permutations=99, random_state=0)
    bound = ex.gap_bound()
    np.testing.assert_allclose(bound, ex.table["rest_performance"])  # raw accuracy: the rest's accuracy
    beyond = (ex.table["detectable_gap"] > bound).to_numpy()
    assert beyond.sum() == 1
    low, high = ex.table["detectable_gap"][~beyond].min(), ex.table["detectable_gap"][~beyond].max()
    assert ex.sentence() == (
        "No annotator group is served worse at alpha = 0.05 among 12 annotator groups of up to 2 conditions; with "
        f"these annotators a gap of {low:.3f} (largest single-condition group) to {high:.3f} (smallest) would have "
        "been found about 80% of the time (normal approximation); for 1 other group no gap accuracy allows would be "
        "found that reliably.")


def test_a_finding_at_the_edge_of_alpha_is_called_borderline():
    n, per = 40, 30
    table = pd.DataFrame({"gender": np.repeat(["m", "f"], n // 2), "age": np.tile(["young", "old"], n // 2)},
                         index=[f"a{i:02d}" for i in range(n)])
    ann = np.repeat(table.index.to_numpy(), per)
    item = np.tile(np.arange(per), n)
    hit = table["gender"].eq("f").to_numpy()[np.repeat(np.arange(n), per)]
    rng = np.random.default_rng(3)  # a planted gap of 0.06 that lands at adjusted p = 0.03 (found by a search)
    y = rng.integers(0, 2, len(ann))
    p = np.where(rng.random(len(y)) < 0.85 - 0.06 * hit, y, 1 - y)
    ex = excluded_groups(y, p, item_ids=item, annotator_ids=ann, annotators=table, n_permutations=199,
                         random_state=0)
    top = ex.findings().iloc[0]
    assert 0.025 < top["p_adjusted"] <= 0.05
    assert (f"Borderline: the adjusted p is above alpha / 2 = 0.025 and the interval starts at {top['ci_low']:.3f}, "
            "near no gap.") in ex.sentence()
    # a clear finding is not called borderline
    p2 = np.where(rng.random(len(y)) < 0.85 - 0.2 * hit, y, 1 - y)
    ex2 = excluded_groups(y, p2, item_ids=item, annotator_ids=ann, annotators=table, n_permutations=199,
                          random_state=0)
    assert ex2.findings()["p_adjusted"].iloc[0] <= 0.025 and "Borderline" not in ex2.sentence()


def _brute_step_down(s, null):
    """Westfall-Young's free step-down of an enumerated null (draws, candidates), written as its definition."""
    order = np.argsort(-s, kind="stable")
    out, running = np.empty(len(s)), 0.0
    for j, i in enumerate(order):
        reach = null[:, order[j:]].max(axis=1) >= s[i] - 1e-9 * max(1.0, abs(s[i]))
        running = max(running, reach.mean())
        out[i] = running
    return out


@pytest.mark.parametrize("balance", ["none", "conditions"])
def test_step_down_by_brute_force_on_every_permutation(balance):
    # 8 annotators, every permutation enumerated: each candidate's z under each permutation is the z of the set of
    # annotators the permutation maps it to, written out by hand; the step-down over the (offset) statistics
    df, table = _eight_annotators()
    kw = dict(item_ids=df["item"], annotator_ids=df["annotator"], annotators=table, min_annotators=2)
    y, p = df["label"], np.ones(len(df), dtype=int)
    single = excluded_groups(y, p, balance=balance, **kw)
    sd = excluded_groups(y, p, balance=balance, step_down=True, **kw)
    assert sd.exact and sd.step_down and not single.step_down
    c, d = single.candidates(), sd.candidates()
    pd.testing.assert_frame_equal(c.drop(columns=["p_adjusted", "p_permutation"]),
                                  d.drop(columns=["p_adjusted", "p_permutation"]))  # intervals: the single step's
    assert sd.critical_value == single.critical_value
    _, ids, z_sub, _ = _t_of_every_subset(df)
    bit = {a: 1 << i for i, a in enumerate(ids)}
    masks = np.array([sum(bit[a] for a in sd.members(i)) for i in d.index])
    perms = np.array(list(itertools.permutations(range(8))))
    member = np.array([[(m >> a) & 1 for a in range(8)] for m in masks], dtype=bool)
    null = z_sub[np.stack([(1 << perms[:, member[j]]).sum(axis=1) for j in range(len(masks))], axis=1)]
    classes = d["n_conditions"].to_numpy()
    offset = np.zeros(len(d))
    if balance == "conditions":  # each class's offset: the median of its largest z over the permutations
        for k in np.unique(classes):
            offset[classes == k] = np.median(null[:, classes == k].max(axis=1))
    s = d["z"].to_numpy() - offset
    want = _brute_step_down(s, null - offset[None, :])
    np.testing.assert_allclose(d["p_adjusted"].to_numpy(), want)
    single_p = c.loc[d.index, "p_adjusted"].to_numpy()
    assert np.all(want <= single_p + 1e-12)
    top = int(np.argmax(s))
    assert want[top] == pytest.approx(single_p[top])
    assert (want < single_p - 1e-12).any()  # the step-down does lower some p-values here
    assert "step-down" in sd.summary() and "step-down" not in single.summary()


def test_step_down_monte_carlo_never_above_the_single_step():
    df, table = _eight_annotators()
    extra = df.assign(annotator=df["annotator"] + "x")  # 16 annotators: Monte Carlo, both nulls
    df2 = pd.concat([df, extra], ignore_index=True)
    table2 = pd.concat([table, table.set_axis(table.index + "x")])
    kw = dict(item_ids=df2["item"], annotator_ids=df2["annotator"], annotators=table2, min_annotators=2,
              n_permutations=199, random_state=3)
    y, p = df2["label"], np.ones(len(df2), dtype=int)
    single, sd = excluded_groups(y, p, **kw), excluded_groups(y, p, step_down=True, **kw)
    assert not sd.exact
    c, d = single.candidates(), sd.candidates()
    for col in ("p_permutation", "p_wild", "p_adjusted"):
        assert np.all(d[col].to_numpy() <= c[col].to_numpy() + 1e-12), col
    assert d["p_permutation"].min() == c["p_permutation"].min()
    with pytest.raises(TypeError, match="step_down must be True or False"):
        excluded_groups(y, p, step_down="yes", **kw)


def test_class_maxima_keeps_the_step_down_parts_of_served_worse_only():
    from aif360_subjective.opinion.excluded_statistic import Stat, class_maxima

    z = np.array([2.0, 1.0, 3.0, np.nan])
    draws = np.array([[0.5, 1.5], [2.5, -1.0], [0.0, 0.2], [np.nan, 4.0]])  # (candidates, draws)
    st = Stat(*([np.zeros((4, 2))] * 6), z=draws)
    cls = np.array([0, 0, 1, 1])
    pos, neg = class_maxima([st], cls, 2, z=z, keep=1)
    np.testing.assert_array_equal(pos.class_max, [[2.5, 0.0], [1.5, 4.0]])  # NaN is -inf, never a maximum
    np.testing.assert_array_equal(neg.class_max, [[-0.5, -0.0], [1.0, -0.2]])
    kept, rest = pos.kept_null()  # each class's largest observed z: candidates 0 and 2
    np.testing.assert_array_equal(kept, [[0.5, 0.0], [1.5, 0.2]])
    np.testing.assert_array_equal(rest, [[2.5, -np.inf], [-1.0, 4.0]])
    with pytest.raises(ValueError, match="keep=0"):
        neg.kept_null()
    with pytest.raises(ValueError, match="needs the observed z"):
        class_maxima([st], cls, 2, keep=1)


def test_item_adjusted_false_positive_rate_of_one_label_per_item_names_the_cause():
    # issue 41: POPQUORN's majority model predicts one label per item, so among an item's negative annotations it
    # errs on all or none: every item-adjusted false positive score is 0, not "no group holds 5 annotators"
    y, item, ann, table, rng = _equal_design(n_annotators=40, per=30, seed=7)
    per_item = rng.integers(0, 2, 30)
    p = per_item[item]  # one prediction per item, whatever the annotator
    raw = excluded_groups(y, p, item_ids=item, annotator_ids=ann, annotators=table, performance="false_positive_rate",
                          n_permutations=99, random_state=0)
    assert raw.counts["n_candidates"] > 0  # unadjusted, the groups are tested
    ex = excluded_groups(y, p, item_ids=item, annotator_ids=ann, annotators=table, performance="false_positive_rate",
                         adjust="items", n_permutations=99, random_state=0)
    assert ex.sentence().startswith("Cannot answer: every item-adjusted false_positive_rate score is 0: on each item "
                                    "the annotations scored all get the same score")
    assert "holds at least" not in ex.sentence()
