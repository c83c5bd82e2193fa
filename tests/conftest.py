"""Shared fixtures.

Tests that read the shared data folder use the ``shared_data`` fixture (``$AIF360_SUBJECTIVE_DATA``, else
``shared/data`` beside the checkout), tests that compare with reference outputs the ``reference_dir`` fixture
(``$AIF360_SUBJECTIVE_REFERENCE``, else ``shared/reference`` beside the checkout): "beside" is the nearest folder
above the checkout holding ``shared/<name>`` (``../shared``, or ``../../shared`` for a git worktree kept in a
folder of worktrees), so the golden tests run without a variable wherever the data folder is found. When the
folder is missing they FAIL under CI (``CI=true``) and skip elsewhere, naming the folder looked for and the
variable that sets it. A test that reads either folder carries the ``data`` marker (checked here and by
tests/test_conftest_paths.py), and a test that takes 0.7 s or more of one core the ``slow`` marker:
``pytest -m "not slow"`` is the edit-test loop, CI runs everything.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
def shared_default(name: str, repo: Path = REPO) -> Path:
    """``<ancestor>/shared/<name>`` for the nearest ancestor of ``repo`` that has it, else ``../shared/<name>``:
    a checkout in a folder of worktrees (``work/wt/branch``) finds ``work/shared`` as a plain clone finds
    ``../shared``, for the reference outputs as for the data."""
    for parent in repo.parents:
        if (parent / "shared" / name).is_dir():
            return parent / "shared" / name
    return repo.parent / "shared" / name


DATA_VAR = "AIF360_SUBJECTIVE_DATA"
REFERENCE_VAR = "AIF360_SUBJECTIVE_REFERENCE"


def _root(variable: str, default: Path) -> Path:
    env = os.environ.get(variable)
    return Path(env).expanduser() if env else default


def _require(path: Path, what: str, variable: str, default: Path) -> Path:
    if path.exists():
        return path
    msg = f"{what} not found at {path} (set {variable} to the {what} folder; default {default})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data folder (``$AIF360_SUBJECTIVE_DATA`` or :func:`shared_default`)."""
    default = shared_default("data")
    return _require(_root(DATA_VAR, default), "shared data", DATA_VAR, default)


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The reference outputs folder (``$AIF360_SUBJECTIVE_REFERENCE`` or :func:`shared_default`)."""
    default = shared_default("reference")
    return _require(_root(REFERENCE_VAR, default), "reference outputs", REFERENCE_VAR, default)


#: The fixtures that read the shared folders: a test using one, directly or through another fixture, carries the
#: ``data`` marker, so that ``-m "not data"`` runs without the folders (tests/test_conftest_paths.py checks the
#: modules that read them otherwise, e.g. ``request.getfixturevalue`` or the variable itself).
DATA_FIXTURES = ("shared_data", "reference_dir")
#: Markers whose tests are slow by nature (a browser, a notebook kernel, a download and a fresh venv).
SLOW_BY_NATURE = ("browser", "notebook", "upstream")


def marker_faults(fixturenames, markers) -> list[str]:
    """What a test's markers lack: ``data`` for a data fixture among ``fixturenames`` (its fixture closure),
    ``slow`` for a browser, notebook or upstream test."""
    faults = []
    used = [f for f in DATA_FIXTURES if f in fixturenames]
    if used and "data" not in markers:
        faults.append(f"uses {', '.join(used)} without the data marker")
    nature = [m for m in SLOW_BY_NATURE if m in markers]
    if nature and "slow" not in markers:
        faults.append(f"is marked {', '.join(nature)} but not slow")
    return faults


@pytest.fixture(autouse=True)
def _markers_complete(request):
    """A test reading the shared folders is marked ``data``; a browser, notebook or upstream test ``slow``."""
    faults = marker_faults(request.fixturenames, {m.name for m in request.node.iter_markers()})
    if faults:
        pytest.fail(f"{request.node.nodeid} {'; '.join(faults)}: add the marker (@pytest.mark.NAME, or "
                    "pytestmark = [...] for a module)", pytrace=False)


@pytest.fixture(autouse=True)
def _global_numpy_state_untouched():
    """No test (hence no library call) may change numpy's global random state."""
    before = np.random.get_state()[1].copy()
    yield
    after = np.random.get_state()[1]
    assert np.array_equal(before, after), "numpy's global random state was modified"


# Property tests draw a fixed sequence of examples, so a CI run can never fail on an example no one has seen
# locally; `HYPOTHESIS_PROFILE=explore` searches afresh.
try:
    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("ci", derandomize=True, print_blob=True)
    _hyp_settings.register_profile("explore", derandomize=False)
    _hyp_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass


@pytest.fixture()
def subgroup_csv(tmp_path):
    """A CSV table (sex, age, score, truth y, prediction pred) with one planted disadvantaged subgroup."""
    rng = np.random.default_rng(1)
    n = 400
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "age": rng.choice(["<25", "25-45", ">45"], n),
                       "score": rng.integers(0, 5, n)})
    df["y"] = rng.integers(0, 2, n)
    # the model withholds the favourable label from young women: a planted disadvantaged subgroup
    df["pred"] = np.where((df["sex"] == "f") & (df["age"] == "<25"), 0, df["y"])
    path = tmp_path / "data.csv"
    df.to_csv(path, index=False)
    return path, df


@pytest.fixture()
def annotations_csv(tmp_path):
    """annotations.csv (item, annotator, label and an 80 %-accurate prediction column pred) and annotators.csv
    of a small generated dataset; returns (path of annotations.csv, its frame, the dataset)."""
    from aif360_subjective.datasets import make_subjective_dataset

    ds = make_subjective_dataset(n_items=120, n_annotators=30, annotations_per_item=5, random_state=3)
    df = pd.DataFrame({"item": ds.item_ids, "annotator": ds.annotator_ids, "label": ds.original_labels().astype(int)})
    rng = np.random.default_rng(0)
    df["pred"] = np.where(rng.random(len(df)) < 0.8, df["label"], 1 - df["label"])
    path = tmp_path / "annotations.csv"
    df.to_csv(path, index=False)
    ann = ds.annotators.drop(columns="kind").rename_axis("annotator").reset_index()
    ann.to_csv(tmp_path / "annotators.csv", index=False)
    return path, df, ds


@pytest.fixture()
def named_groups_metric():
    """A factory: the majority-vote OpinionExclusionMetric of a generated dataset whose annotators are grouped by
    ``name(i)`` (i = the annotator's position), thin-group warnings silenced (the tests read the lines instead)."""
    import warnings

    from aif360_subjective.datasets import make_subjective_dataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    def make(name, *, n_annotators: int, n_items: int = 200, random_state: int = 3):
        ds = make_subjective_dataset(n_items=n_items, n_annotators=n_annotators, random_state=random_state)
        grouping = pd.Series({a: name(i) for i, a in enumerate(ds.annotators.index)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return OpinionExclusionMetric(ds, ds.with_predictions(ds.majority_labels()), grouping=grouping)

    return make

