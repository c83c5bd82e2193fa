"""The task registry: every task is an object with its own metrics, default metric and label text, and no code
outside the registry (``detectors/tasks.py``) and the parameter table branches on a task's name."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import aif360_subjective
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.subgroup_metrics import ALL_METRICS
from aif360_subjective.detectors.tasks import (
    TASK_METRICS,
    TASK_TYPES,
    TASKS,
    BinaryTask,
    MultiClassTask,
    OrdinalTask,
    RegressionTask,
    names_decisions,
    names_label_task,
    resolve_task,
    task_type,
)

ROOT = Path(aif360_subjective.__file__).parent
#: Where a task's name may decide something: the registry itself and the parameter table holding the choices.
ALLOWED = {ROOT / "detectors" / "tasks.py", ROOT / "_param_tables.py"}
NAMES = frozenset(TASK_TYPES)


def _names_in(node: ast.expr) -> list[str]:
    """The task names a comparison operand spells out (a string, or a tuple/list/set of strings)."""
    if isinstance(node, ast.Constant) and node.value in NAMES:
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [n for e in node.elts for n in _names_in(e)]
    return []


def task_name_branches(source: str) -> list[tuple[int, str]]:
    """(line, what) of every branch on a task's name in ``source``: a comparison or membership test with a task
    name, a dict keyed by task names (a lookup is a branch), a ``match`` case on one. Docstrings, defaults and
    messages are not branches."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, f"comparison with {n!r}") for n in _names_in(operand)]
        elif isinstance(node, ast.Dict):
            found += [(node.lineno, f"dict keyed by {k.value!r}") for k in node.keys
                      if isinstance(k, ast.Constant) and k.value in NAMES]
        elif isinstance(node, ast.MatchValue):
            found += [(node.lineno, f"match case {n!r}") for n in _names_in(node.value)]
    return found


def test_the_finder_finds_branches_and_nothing_else():
    source = '''
def f(task, rep):
    """A docstring naming "binary" and "ordinal" tasks is no branch."""
    if task == "binary":
        pass
    if rep.task not in ("auto", "regression"):
        pass
    hint = {"ordinal": "x", "auto": "y"}[task]
    match task:
        case "multiclass":
            pass
    default: str = "binary"
    message = f"task={task!r}: pass task='binary'"
    return task == "auto"
'''
    found = task_name_branches(source)
    assert [line for line, _ in found] == [4, 6, 8, 10]
    assert [what for _, what in found] == ["comparison with 'binary'", "comparison with 'regression'",
                                           "dict keyed by 'ordinal'", "match case 'multiclass'"]


def test_no_branch_on_a_task_name_outside_the_registry():
    found = {str(p.relative_to(ROOT)): task_name_branches(p.read_text(encoding="utf-8"))
             for p in sorted(ROOT.rglob("*.py")) if p not in ALLOWED}
    assert {p: f for p, f in found.items() if f} == {}


def test_the_registry_holds_the_parameter_tables_tasks():
    assert tuple(TASK_TYPES) == tuple(t for t in TASKS if t != "auto")
    assert [t.name for t in (BinaryTask, MultiClassTask, OrdinalTask, RegressionTask)] == list(TASK_TYPES)
    assert task_type("ordinal") is OrdinalTask
    with pytest.raises(ValueError, match="task must be one of"):
        task_type("auto")
    assert [t for t in TASKS if names_decisions(t)] == ["binary"]
    assert [t for t in TASKS if names_label_task(t)] == ["multiclass", "ordinal", "regression"]


@pytest.mark.parametrize("name", list(TASK_TYPES))
def test_each_tasks_metrics_are_those_the_metric_registry_gives_it(name):
    # the two registries say the same: a metric lists a task exactly when the task lists the metric (mean_loss,
    # which joins any task with a loss, aside)
    listed = {m for m, spec in ALL_METRICS.items() if name in spec.tasks and m != "mean_loss"}
    assert set(TASK_TYPES[name].metrics) == listed
    assert TASK_METRICS[name] == TASK_TYPES[name].metrics


def test_default_metric_and_direction():
    assert (BinaryTask((), "").default_metric, BinaryTask((), "").default_direction) == ("statistical_parity",
                                                                                         "larger")
    assert (MultiClassTask(("a", "b", "c"), "").default_metric, MultiClassTask(("a",), "").default_direction) == (
        "accuracy_error", "smaller")
    assert OrdinalTask((1, 2, 3), "").default_metric == "mean_absolute_error"
    assert RegressionTask(None, "").default_direction == "larger"


def test_resolve_task_returns_the_tasks_object():
    assert isinstance(resolve_task([0, 1, 1], [1, 1, 0]), BinaryTask)
    m = resolve_task(["cat", "dog", "fox"], ["dog", "dog", "cat"])
    assert isinstance(m, MultiClassTask) and m.classes == ("cat", "dog", "fox") and not m.decisions
    assert isinstance(resolve_task([1, 2, 5, 3], [2, 2, 4, 1]), OrdinalTask)
    r = resolve_task([0.5, 1.25, 3.0], [0.4, 1.0, 2.0])
    assert isinstance(r, RegressionTask) and r.classes is None


def test_ranking_arguments_give_the_class_as_the_labels_hold_it():
    m = MultiClassTask((1, 2, 3), "")
    assert m.ranking_arguments("statistical_parity[2]") == ("statistical_parity", 2)
    assert m.ranking_arguments("accuracy_error") == ("accuracy_error", None)
    assert m.ranking_arguments("size") == ("size", None)


def test_label_text():
    b = BinaryTask((0, 1), "task='binary' (given)")
    assert b.label_line("1") == "favourable label: 1" and b.label_sentence("1") == "Favourable label 1."
    o = OrdinalTask((1, 2), "task='ordinal' (given)")
    assert o.label_line("None") == "task: ordinal" and o.label_sentence("None") == "Task='ordinal' (given)."
    assert o.sign_sentence(("mean_absolute_error", "mean_error"), str) == (
        "A positive mean_absolute_error or a negative mean_error means the subgroup is disadvantaged (means: "
        "subgroup minus rest); higher predictions count as favourable.")
    m = MultiClassTask(("cat", "dog", "fox"), "")
    text = m.sign_sentence(("accuracy_error", "statistical_parity[cat]"), str)
    assert "higher predictions" not in text
    assert text.endswith("being predicted that class as favourable (whether it is depends on the class).")


def test_the_multiclass_answer_does_not_call_higher_predictions_favourable():
    from aif360_subjective.report.answer import subgroup_answer

    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"a": rng.choice(["x", "y"], n), "b": rng.choice(["u", "v"], n)})
    y = rng.choice(["cat", "dog", "fox"], n)
    yhat = np.where((X["a"] == "x") & (rng.random(n) < 0.8), "cat", y)  # a=x predicted cat far more often
    rep = detect_subgroups(X, y, yhat, task="multiclass", discovery="patterns", random_state=0, n_permutations=199)
    assert isinstance(rep.task_type, MultiClassTask) and rep.task == "multiclass"
    text = " ".join(subgroup_answer(rep).lines)
    assert "significant finding" in text and "being predicted that class as favourable" in text
    assert "higher predictions" not in text


def test_a_non_binary_clustering_reads_no_outcome():
    # the clustering of another task has no fairness separation (it compares binary rates), and is the same
    # clustering as that of binary decisions on the same rows
    rng = np.random.default_rng(1)
    n = 120
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["u", "v", "w"], n)})
    y = rng.integers(1, 6, n)
    rep = detect_subgroups(X, y, np.clip(y + rng.integers(-1, 2, n), 1, 5), task="ordinal", discovery="asdf",
                           n_clusters=4, random_state=0)
    assert not any(str(i).startswith("fairness_separation") for i in rep.validity.index)
    binary = detect_subgroups(X, y > 3, y > 2, n_clusters=4, discovery="asdf", random_state=0)
    assert rep.clusters.equals(binary.clusters)
    assert rep.validity.equals(binary.validity.drop([i for i in binary.validity.index
                                                     if str(i).startswith("fairness_separation")]))


def test_task_metrics_old_home_warns():
    import aif360_subjective.detectors.subgroup_metrics as sm

    with pytest.warns(DeprecationWarning, match="TASK_METRICS"):
        assert sm.TASK_METRICS is TASK_METRICS
