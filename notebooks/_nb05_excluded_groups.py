"""Cells of notebook 05 (whose opinions are excluded: discovering the annotator groups a model serves worse);
``make_notebooks.py`` writes the notebook.

Every statement about results is printed by a code cell from the numbers it computes (or asserted), never written
in the markdown. The simulated parts run in seconds (300 annotators, 499 permutations, fixed seeds); the real-data
part reads POPQUORN from the data folder and is skipped with directions without it.
"""

from __future__ import annotations

from _nb_common import DATA_DIR, code, data_check, md

EXCLUDED = [
    md("""
# Whose opinions are excluded? Discovering the annotator groups a model serves worse

Notebook 01 compares groups of annotators someone chose: disagreement-rate bins, or one attribute. Here the
question is asked the other way round: **which annotators does the model serve worse than the others?**
`excluded_groups` searches every conjunction of up to `max_conditions` annotator attribute values
(`gender=woman`, `gender=woman AND education=phd`, `age ∈ [18, 46)`, ...), scores the model on each group's
annotators against the rest, and holds the **family-wise error** (the chance of naming *any* group that is not
served worse) at `alpha` over all of them.

Each annotator is the unit: a group's performance is a weighted mean of its annotators' accuracy against their own
labels, and the gap is studentized with a cluster-robust standard error. The p-values come from a max-T over every
candidate under two nulls, permutations of the annotators and a wild bootstrap. The guide
(`docs/guide/excluded_groups.rst`) gives the statistics and the benchmark behind them.
"""),
    code("""
import numpy as np
import pandas as pd

from aif360_subjective.opinion import excluded_groups

N_PERM = 499   # permutations (and as many wild-bootstrap draws); the default is 999
"""),
    md("""
## Simulated annotators, one intersection served worse

The function below generates annotators with four attributes (gender with a small non-binary group, age,
education, region), items of varying difficulty, and one binary label per annotation. The model predicts one
label per item; each annotator agrees with it with a probability that falls with the item's difficulty and
varies from annotator to annotator. `gap` lowers that probability for the **women with a PhD** only: the pair is
planted, and a single attribute such as `education=phd` carries only a diluted part of its gap.
`confounded=True` is used further down.
"""),
    code("""
def simulate(gap=0.0, confounded=False, seed=0, n_annotators=300, n_items=600, per_annotator=40):
    \"\"\"(y_true, y_pred, item ids, annotator ids, annotator table, planted mask) of one simulated audit.\"\"\"
    rng = np.random.default_rng(seed)
    who = pd.Index([f"a{i:03d}" for i in range(n_annotators)], name="annotator")
    table = pd.DataFrame({
        "gender": rng.choice(["woman", "man", "non-binary"], n_annotators, p=[0.48, 0.48, 0.04]),
        "age": rng.integers(18, 71, n_annotators),
        "education": rng.choice(["school", "college", "phd"], n_annotators, p=[0.4, 0.4, 0.2]),
        "region": rng.choice(["north", "south", "east", "west"], n_annotators),
    }, index=who)
    difficulty = rng.normal(0.0, 0.08, n_items)
    hard = np.arange(n_items) < n_items // 6          # a batch of items
    east = (table["region"] == "east").to_numpy()
    if confounded:                                     # the batch is harder, and region=east labels only it
        difficulty[hard] += 0.15
    allowed = np.where(east[:, None] & confounded, hard[None, :], True)
    items = np.argsort(np.where(allowed, rng.random((n_annotators, n_items)), 2.0), axis=1)[:, :per_annotator]
    a, i = np.repeat(np.arange(n_annotators), per_annotator), items.ravel()
    planted = ((table["gender"] == "woman") & (table["education"] == "phd")).to_numpy()
    skill = rng.normal(0.0, 0.05, n_annotators) - gap * planted
    p_agree = np.clip(0.8 + skill[a] - difficulty[i], 0.0, 1.0)
    y_pred = rng.integers(0, 2, n_items)[i]
    y_true = np.where(rng.random(len(a)) < p_agree, y_pred, 1 - y_pred)
    return y_true, y_pred, i, who[a].to_numpy(), table, pd.Series(planted, index=who)


GAP = 0.12   # accuracy lost by the planted group
y, pred, items, who, annotators, planted = simulate(gap=GAP)
print(f"{len(y):,} annotations of {len(np.unique(items))} items by {len(annotators)} annotators; "
      f"{planted.sum()} women with a PhD, served {GAP} worse by construction")
annotators.head()
"""),
    md("""
One call searches every group of up to two conditions (numeric `age` is cut into quantile ranges). `sentence()`
is the answer in one line.
"""),
    code("""
ex = excluded_groups(y, pred, item_ids=items, annotator_ids=who, annotators=annotators, max_conditions=2,
                     n_permutations=N_PERM, random_state=0)
print(ex.sentence())
"""),
    md("""
### Reading `findings()`

One row per group served worse, the most excluded first:

* `performance` / `rest_performance`: the model's accuracy on the group's annotators and on all the others
  (weighted means over annotators, each against its own labels);
* `gap` = rest minus group (group minus rest for measures where lower is better, such as MAE): **positive means
  served worse**;
* `ci_low`, `ci_high`: **simultaneous** bounds, holding for every candidate group at once with probability
  1 - `alpha`; a group is reported exactly when `ci_low > 0`;
* `p_adjusted`: the family-wise p-value, the **larger** of `p_permutation` (annotators permuted across groups)
  and `p_wild` (wild bootstrap: each annotator keeps its group and its own spread);
* `detectable_gap`: the gap this group would have been found with 80% of the time;
* `shared_items`: the share of the group's annotations on items other annotators also labelled.

The checks under the table confirm these relations on this output.
"""),
    code("""
found = ex.findings()
cols = ["description", "n_annotators", "n_annotations", "performance", "rest_performance", "gap", "ci_low",
        "ci_high", "p_permutation", "p_wild", "p_adjusted", "detectable_gap", "shared_items"]
display(found[cols].round(3))

allc = ex.candidates()
assert (found["gap"] > 0).all() and (found["ci_low"] > 0).all()
assert ((found["ci_low"] <= found["gap"]) & (found["gap"] <= found["ci_high"])).all()
assert np.allclose(allc["p_adjusted"], np.maximum(allc["p_permutation"], allc["p_wild"]))
assert ((allc["p_adjusted"] <= 0.05) == (allc["ci_low"] > 0)).all()
print(f"{len(found)} of {len(allc)} candidate groups reported; every reported gap is positive and inside its "
      "interval, every p_adjusted is the larger of the two p-values, and a group is reported exactly when its "
      "ci_low is above 0.")
"""),
    md("""
`members(i)` gives the annotator ids of the finding whose index label is `i`; here we can compare them with the
planted group.
"""),
    code("""
first = ex.members(found.index[0])   # an index label of findings()
truth = planted.index[planted]
print(f"finding 0, {found['description'].iloc[0]!r}: {len(first)} annotators, {len(first.intersection(truth))} "
      f"of them in the planted group of {len(truth)}; identical to it: {set(first) == set(truth)}")
"""),
    md("""
`summary()` says what was searched, tested and **not** tested, with counts: groups with fewer than
`min_annotators` annotators (default 5) are counted, never dropped silently.
"""),
    code("""
print(ex.summary())
"""),
    md("""
## The same annotators, no gap planted

When nothing is found, the sentence says how large a gap these annotators could have shown: the smallest gap that
would have been found with 80% power, from the largest single-condition group to the smallest group tested.
"""),
    code("""
y0, pred0, items0, who0, annotators0, _ = simulate(gap=0.0)
ex0 = excluded_groups(y0, pred0, item_ids=items0, annotator_ids=who0, annotators=annotators0, n_permutations=N_PERM,
                      random_state=0)
print(ex0.sentence())
print("groups reported:", len(ex0.findings()))
ex0.candidates().sort_values("detectable_gap")[["description", "n_annotators", "detectable_gap"]].round(3).head()
"""),
    md("""
## Item confounding: a group that labelled harder items

Now no gap is planted, but the `region=east` annotators label only one batch of items, and that batch is harder
(the other annotators label items from the whole pool, that batch included). Raw accuracy mixes the annotators
with the items they saw. `adjust="items"` compares each annotation with the other annotations of the **same
item** instead.
"""),
    code("""
yc, predc, itemsc, whoc, annotatorsc, _ = simulate(confounded=True)
east = np.isin(whoc, annotatorsc.index[annotatorsc["region"] == "east"])
on_batch = itemsc < 600 // 6                       # the batch: the first n_items // 6 items
print(f"{annotatorsc['region'].eq('east').sum()} annotators in region=east; {on_batch[east].mean():.0%} of their "
      f"annotations are on the hard batch, against {on_batch[~east].mean():.0%} of the others'")
naming_east = {}
for adjust in ("none", "items"):
    exc = excluded_groups(yc, predc, item_ids=itemsc, annotator_ids=whoc, annotators=annotatorsc, adjust=adjust,
                          n_permutations=N_PERM, random_state=0)
    named = exc.findings()["description"]
    print(f"\\nadjust={adjust!r}: {exc.sentence()}")
    naming_east[adjust] = int(named.str.contains("region=east").sum())
    print(f"  groups reported: {len(named)}, of them naming region=east: {naming_east[adjust]}")
assert naming_east["none"] > 0 and naming_east["items"] == 0  # the claim under this cell
"""),
    md("""
With raw scores the east annotators look excluded; compared item by item they are not. The item adjustment
needs other annotators on the same items: `shared_items` in `findings()` says how many of a group's annotations
have them.

## Balance: single attributes or intersections

By default (`balance="conditions"`) each number of conditions gets its own threshold (a balanced max-T), so the
few single attributes do not compete with the many pairs. `balance="none"` is the plain max-T: one threshold for
every candidate, lower for the pairs and higher for the single attributes than the balanced ones. Neither is
better everywhere; the guide's section "Balance" measures the trade-off on the benchmark's designs. Below, the
threshold each candidate's `t` must pass (median per number of conditions) on the planted data of the first
part.
"""),
    code("""
exn = excluded_groups(y, pred, item_ids=items, annotator_ids=who, annotators=annotators, balance="none",
                      n_permutations=N_PERM, random_state=0)
thresholds = pd.DataFrame({
    'balance="conditions"': ex.candidates().groupby("n_conditions")["threshold"].median(),
    'balance="none"': exn.candidates().groupby("n_conditions")["threshold"].median(),
})
thresholds.index.name = "conditions"
display(thresholds.round(2))
# the claim above: the plain threshold lies below the balanced one for pairs and above it for single attributes
assert thresholds.loc[2].iloc[1] < thresholds.loc[2].iloc[0] and thresholds.loc[1].iloc[1] > thresholds.loc[1].iloc[0]
print('balance="conditions":', ex.sentence())
print('balance="none":      ', exn.sentence())
"""),
    md("""
## Real data: POPQUORN

POPQUORN's offensiveness ratings by a US-representative sample with their demographics (gender, race, age,
occupation, education), read by the package's loader. The model is the command line's `--model majority`:
`MajorityVoteClassifier` (TF-IDF + logistic regression on the items' majority vote) trained on 70% of the items,
audited on the other 30% against each annotator's own label. The class face
`OpinionExclusionMetric(...).excluded_groups(...)` searches every demographic attribute, raw and item-adjusted.
Without the data folder the cells below say where to get the file and skip.
"""),
    code(DATA_DIR),
    code(data_check("popquorn", "POPQUORN", "https://github.com/Jiaxin-Pei/Potato-Prolific-Dataset (offensiveness "
                    "raw_data.csv)", "HAVE_POPQUORN")),
    code("""
if HAVE_POPQUORN:
    from aif360_subjective.algorithms.inprocessing import MajorityVoteClassifier
    from aif360_subjective.datasets import PopquornDataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    pq = PopquornDataset(DATA / "popquorn")
    train, test = pq.split([0.7], shuffle=True, seed=0)          # by item, as `audit --model majority`
    pq_pred = MajorityVoteClassifier(random_state=0).fit(train).predict(test)
    metric = OpinionExclusionMetric(test, pq_pred)
    print(f"{test.n_annotators} annotators, {len(test.item_ids):,} annotations of {test.n_items} held-out items; "
          f"attributes {list(test.annotators.columns)}")
    for adjust in ("none", "items"):
        pq_ex = metric.excluded_groups(adjust=adjust, n_permutations=N_PERM, random_state=0)
        print(f"\\nPOPQUORN, adjust={adjust!r}: {pq_ex.sentence()}")
        display(pq_ex.findings()[["description", "n_annotators", "n_annotations", "gap", "ci_low", "ci_high",
                                   "p_adjusted", "shared_items"]].round(3))
"""),
    code("""
if HAVE_POPQUORN:
    print(pq_ex.summary().removesuffix(pq_ex.sentence()).strip())
"""),
    md("""
The summary counts the attribute-value combinations with fewer than `min_annotators` annotators, which are not
tested. The same search runs from the command line with
`aif360-subjective audit DATA/popquorn --model majority --discover [--adjust items]` (999 permutations by default,
so its p-values differ slightly from these), and with `--out` the report gets a section "Whose opinions are
excluded".
"""),
]
