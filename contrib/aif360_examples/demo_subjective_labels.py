# %% [markdown]
# # Fairness when labels are opinions, and the subgroups a model serves worst
#
# This notebook shows the two additions of this contribution on the seeds' own experiments:
#
# 1. **Opinion exclusion** (Balayn, Bozzon and Szlavik 2019, "Unfairness towards subjective opinions in Machine
#    Learning"). When several annotators label each item, a model trained on the majority vote can serve the
#    annotators who often disagree with the majority worse. `OpinionExclusionMetric` groups annotators by their
#    average disagreement rate with the majority vote (ADR) and measures each group's accuracy. We reproduce the
#    paper's **Figure 3** and **Table 2** (Model 1: item features and majority-vote labels; Model 2: item features
#    and annotator demographics, trained on every annotation) on simulated annotations with a minority opinion,
#    then add the test of equal service and an interval for the unfairness.
# 2. **Automated subgroup discovery** (Schäfer and Wiese, "ASDF-Dashboard: Automated Subgroup Detection and
#    Fairness Analysis"). `detect_subgroups` clusters the rows, describes each cluster by its entropy pattern and
#    mines attribute conjunctions, then measures statistical parity, equal opportunity, equalized odds and accuracy
#    of every subgroup. We reproduce the ASDF paper's COMPAS analysis on ProPublica's file (the ASDF-Dashboard's
#    own ranking of the entropy-based subgroups by statistical parity), then ask which of those subgroups survive a
#    correction for the search, and compare with `bias_scan`.

# %%
import os

import aif360
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from aif360_subjective.datasets import MultiAnnotatorDataset
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import OpinionExclusionMetric

# %% [markdown]
# ## 1. Opinion exclusion: Figure 3 of Balayn et al. (2019)
#
# The paper uses the Wikipedia Talk toxicity labels (ten annotators per comment, with their demographics). To keep
# the notebook self-contained we simulate the same situation: 600 comments described by 5 features, 60 annotators,
# each comment labelled by 10 of them. Most annotators judge toxicity from the same direction of the features; a
# quarter of them (one demographic group) weigh the features differently, so they often disagree with the majority.

# %%
rng = np.random.default_rng(0)
n_items, n_annotators, per_item, n_features = 600, 60, 10, 5
item_features = pd.DataFrame(rng.normal(size=(n_items, n_features)), columns=[f'f{j}' for j in range(n_features)])
item_features.index.name = 'item'
minority = rng.random(n_annotators) < 0.25
annotators = pd.DataFrame({'group': np.where(minority, 'minority', 'majority')},
                          index=pd.Index([f'a{i}' for i in range(n_annotators)], name='annotator'))

w_majority = np.array([2.0, 1.0, 0.0, 0.0, 0.0])
w_minority = np.array([0.0, 0.0, 2.0, 1.0, 0.0])
items = np.repeat(np.arange(n_items), per_item)
who = np.concatenate([rng.choice(n_annotators, per_item, replace=False) for _ in range(n_items)])
score = np.where(minority[who], item_features.to_numpy()[items] @ w_minority,
                 item_features.to_numpy()[items] @ w_majority)
label = (rng.random(len(items)) < 1 / (1 + np.exp(-2 * score))).astype(int)  # 1 = toxic
annotations = pd.DataFrame({'item': items, 'annotator': annotators.index[who], 'label': label})

ds = MultiAnnotatorDataset(annotations, annotators=annotators, items=item_features,
                           favorable_label=0, unfavorable_label=1)
train, test = ds.split([0.7], shuffle=True, seed=0)  # by item: no comment on both sides
print(ds.features.shape, ds.feature_names)

# %% [markdown]
# **Model 1** learns from the item features and the majority vote (one label per comment) and predicts that label
# for every annotator. **Model 2** learns from every annotation, with the annotator's demographic group as an
# input (and its interaction with the item features), so it can predict different labels for different annotators.

# %%
item_cols = [train.feature_names.index(c) for c in item_features.columns]
group_col = train.feature_names.index('group')


def model2_inputs(d):
    x = d.features[:, item_cols]
    g = d.features[:, [group_col]]
    return np.hstack([x, g, x * g])


mv = train.majority_vote()
model1 = LogisticRegression().fit(mv.features[:, item_cols], mv.labels.ravel())
model2 = LogisticRegression().fit(model2_inputs(train), train.labels.ravel())

pred1 = test.with_predictions(model1.predict(test.features[:, item_cols]))
pred2 = test.with_predictions(model2.predict(model2_inputs(test)))
metric1 = OpinionExclusionMetric(test, pred1, grouping='adr', bins=5, random_state=0)
metric2 = OpinionExclusionMetric(test, pred2, grouping='adr', bins=5, random_state=0)

# Table 2 of the paper: unfairness (std of the groups' mean accuracy) and performance (their mean)
pd.DataFrame({'Model 1': [metric1.unfairness(), metric1.performance()],
              'Model 2': [metric2.unfairness(), metric2.performance()]},
             index=['unfairness', 'performance']).round(3)

# %% [markdown]
# Figure 3: each row is a group of annotators (their ADR bin), the bars the two models' accuracy on them. Model 1
# is accurate for the annotators who agree with the majority and poor for those who disagree most; Model 2's
# accuracy is more even across the rows.

# %%
g1, g2 = metric1.group_performance(), metric2.group_performance()
rows = np.arange(len(g1))
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.barh(rows + 0.2, g1['performance'], height=0.4, label='Model 1 (majority vote)')
ax.barh(rows - 0.2, g2['performance'], height=0.4, label='Model 2 (annotations + demographics)')
ax.set_yticks(rows)
ax.set_yticklabels([f'ADR {iv.left:.2f}-{iv.right:.2f} (n={n})' for iv, n in zip(g1.index, g1['n_annotators'])])
ax.set_xlabel('accuracy on the group\'s annotations')
ax.set_xlim(0, 1)
ax.legend(loc='lower left', fontsize=8)
ax.set_title('Accuracy by annotators\' disagreement with the majority (Figure 3)')
fig.tight_layout()

# %% [markdown]
# Is the spread more than chance? The **test of equal service** permutes annotators across the groups (for ADR
# bins it is cross-fitted: bins from one half of each annotator's comments, accuracy on the other half). The
# **interval** for the unfairness inverts that test (it can reach 0, which the bootstrap of a standard deviation
# cannot).

# %%
rows = []
for name, m in [('Model 1', metric1), ('Model 2', metric2)]:
    test_result = m.exclusion_test(n_permutations=999, random_state=0)
    interval = m.unfairness_ci(ci=0.95, n_boot=200, random_state=0)
    rows.append({'model': name, 'unfairness': m.unfairness(), 'interval low': interval[0],
                 'interval high': interval[1], 'p (equal service)': test_result.p_value})
pd.DataFrame(rows).set_index('model').round(4)

# %% [markdown]
# ## 2. Automated subgroup discovery on COMPAS (the ASDF paper)
#
# The ASDF paper analyses the COMPAS predictions as prepared by FairVis from ProPublica's
# `compas-scores-two-years.csv`, the file AIF360's `CompasDataset` reads: screening within 30 days of the arrest,
# `jail_length_days` from the jail dates, prediction `out` = decile score >= 5, truth `class` = re-offended.
# Download the file as `CompasDataset` asks (into `aif360/data/raw/compas/`).

# %%
compas_file = os.path.join(os.path.dirname(os.path.abspath(aif360.__file__)),
                           'data', 'raw', 'compas', 'compas-scores-two-years.csv')
raw = pd.read_csv(compas_file)
compas = raw[raw['days_b_screening_arrest'].abs() <= 30].copy()
compas['c_charge_degree'] = compas['c_charge_degree'].map({'F': 'Felony', 'M': 'Misdemeanor'})
compas['jail_length_days'] = (pd.to_datetime(compas['c_jail_out']) - pd.to_datetime(compas['c_jail_in'])).dt.days
compas['out'] = (compas['decile_score'] >= 5).astype(int)
compas['class'] = (compas['two_year_recid'] | compas['is_recid']).astype(int)
features = ['age', 'c_charge_degree', 'race', 'sex', 'priors_count', 'days_b_screening_arrest', 'jail_length_days']
compas = compas.reset_index(drop=True)
print(len(compas), 'rows (the paper: 6,172)')

# %% [markdown]
# The paper's setting: favourable label 0 (no recidivism), single linkage with k = 30 clusters, entropy threshold
# 0.65, categorical columns `c_charge_degree`, `race`, `sex`. The dashboard ranks the entropy-based subgroups by
# statistical parity (rest minus subgroup: negative = the subgroup gets the favourable prediction more often).
# `alpha=None` gives that raw ranking; it is the ASDF-Dashboard's own output on this data (subgroups 11, 7, 8, 10
# and 16, statistical parity -0.447 to -0.446).

# %%
report = detect_subgroups(compas[features], compas['class'], compas['out'], pos_label=0,
                          clustering='slink', n_clusters=30, entropy_threshold=0.65,
                          categorical_features=['c_charge_degree', 'race', 'sex'], discovery='asdf',
                          random_state=0)
ranking = report.ranking('statistical_parity', kind='entropy', n=5, direction='favoured', alpha=None)
assert list(ranking.index) == [11, 7, 8, 10, 16]  # the ASDF-Dashboard's ranking
ranking

# %%
top = ranking.index[0]
print('entropy-based subgroup', top, report.pattern_conditions(top))
report.subgroup_metrics(ci=None).loc[('entropy', top)]

# %% [markdown]
# These five subgroups hold 21, 19, 12, 2 and 1 people. With the default `alpha=0.05` a subgroup is ranked only if
# its gap is significant after a permutation max-T adjustment over every subgroup of the report (clusters and
# entropy patterns, both directions): larger subgroups come first.

# %%
report.ranking('statistical_parity', kind='entropy', n=5, direction='favoured', alpha=0.05)

# %% [markdown]
# The radar of the ASDF dashboard: mean absolute statistical parity, equal opportunity, equalized odds, the signed
# mean accuracy error and the mean accuracy, for the cluster-based and the entropy-based subgroups.

# %%
summary = report.summary()
angles = np.linspace(0, 2 * np.pi, len(summary.columns), endpoint=False)
fig = plt.figure(figsize=(4.5, 4.5))
ax = fig.add_subplot(projection='polar')
for kind, row in summary.iterrows():
    values = row.to_numpy(dtype=float)
    ax.plot(np.r_[angles, angles[:1]], np.r_[values, values[:1]], label=kind)
ax.set_xticks(angles)
ax.set_xticklabels(summary.columns, fontsize=8)
ax.legend(loc='lower right', fontsize=8)
summary.round(3)

# %% [markdown]
# ## 3. Beyond the clusters: mined patterns with family-wise error control
#
# Clusters describe where the rows are, not where the model errs. `discovery='patterns'` also mines every
# conjunction of up to three conditions (`attribute = value`, or a numeric range) and keeps a subgroup only if its
# gap survives a permutation max-T adjustment over *every* candidate (the family-wise error stays at `alpha`). The
# first row below is the subgroup whose accuracy is furthest below the rest, with its adjusted p-value.

# %%
patterns = detect_subgroups(compas[features], compas['class'], compas['out'], pos_label=0,
                            categorical_features=['c_charge_degree', 'race', 'sex'], discovery='patterns',
                            n_permutations=200, random_state=0)
patterns.ranking('accuracy_error', kind='pattern', n=5, direction='disadvantaged', alpha=0.05)

# %% [markdown]
# For comparison, MDSS's `bias_scan` (already in AIF360) returns the single highest-scoring subset for which the
# model over-predicts the favourable outcome (here: everyone over 25), with a score but no per-subgroup fairness
# metrics and no correction for the search:

# %%
from aif360.detectors import bias_scan

favourable_prediction = pd.Series(1.0 - compas['out'], name='expectation')
no_recidivism = pd.Series(1 - compas['class'], name='observation')
scan_data = compas[['c_charge_degree', 'race', 'sex']].assign(
    age_cat=pd.cut(compas['age'], [0, 25, 45, 120]).astype(str),
    priors=pd.cut(compas['priors_count'], [-1, 0, 3, 100]).astype(str))
subset, score = bias_scan(scan_data, no_recidivism, favourable_prediction, favorable_value=1,
                          overpredicted=True, penalty=20, num_iters=3)
in_subset = np.logical_and.reduce([scan_data[col].isin(values).to_numpy() for col, values in subset.items()])
print(subset, 'score', round(score, 2), 'rows', int(in_subset.sum()))
