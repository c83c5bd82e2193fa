"""``subgroups --clusterings validated``: the models compared, the chosen one named (issue 40)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.cli import build_parser, main
from aif360_subjective.cli.subgroups import SubgroupsSpec


def test_flags_reach_the_spec():
    args = build_parser().parse_args(["subgroups", "t.csv", "--clusterings", "validated", "--clustering-models",
                                      "kmeans", "gmm"])
    spec = SubgroupsSpec.from_namespace(args)
    assert spec.clusterings == "validated" and spec.clustering_models == ("kmeans", "gmm")
    assert SubgroupsSpec.from_namespace(build_parser().parse_args(["subgroups", "t.csv"])).clusterings == "seed"


@pytest.mark.slow
def test_validated_run_prints_the_table_and_why(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "g": rng.choice(["u", "v"], n)})
    df["pred"] = (rng.random(n) < np.where(df["a"] > 0.8, 0.1, 0.7)).astype(int)
    df["y"] = df["pred"]
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    code = main(["subgroups", str(path), "--label-col", "y", "--prediction-col", "pred", "--discovery", "asdf",
                 "--clusterings", "validated", "--clustering-models", "kmeans"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Clustering models by fairness validation index" in out and "was chosen" in out


def test_unknown_algorithm_is_named(tmp_path, capsys):
    df = pd.DataFrame({"a": np.arange(60.0), "y": [0, 1] * 30, "pred": [1, 0] * 30})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    code = main(["subgroups", str(path), "--label-col", "y", "--prediction-col", "pred", "--clusterings",
                 "validated", "--clustering-models", "spectral"])
    assert code != 0 and "unknown algorithm 'spectral'" in capsys.readouterr().err
