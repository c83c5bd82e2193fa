"""The engines' shared judgement of their worker probes (:func:`aif360_subjective._workers.judge_worker_answers`)."""

from __future__ import annotations

import pytest

from aif360_subjective._workers import judge_worker_answers

_KW = {"noun": "Dask worker(s)", "home": "client", "where": "worker", "hint": "pip install x",
       "fallback": "compute without the cluster"}


def test_every_worker_at_the_callers_version_passes():
    judge_worker_answers([("w1", "ok", "1.2"), ("w2", "ok", "1.2"), ("w2", "ok", "1.2")], "1.2", **_KW)
    judge_worker_answers([], "1.2", **_KW)  # no worker answered: nothing to name


def test_a_worker_without_the_package_is_named_with_its_error_first():
    # w3's import error outranks w2's other version; repeated answers (Spark probes a host per partition) count once
    lost = ("w3", "error", "ModuleNotFoundError: no")
    answers = [("w2", "ok", "0.9"), lost, lost, ("w1", "ok", "1.2")]
    with pytest.raises(RuntimeError) as err:
        judge_worker_answers(answers, "1.2", **_KW)
    assert str(err.value) == ("1 of 3 Dask worker(s) cannot import aif360_subjective: w3 (ModuleNotFoundError: no); "
                              "install the client's version (1.2) on every worker (pip install x), or compute "
                              "without the cluster")


def test_workers_of_another_version_are_named_in_order():
    answers = [("w2", "ok", "0.9"), ("w1", "ok", "1.0"), ("w0", "ok", "1.2")]
    with pytest.raises(RuntimeError) as err:
        judge_worker_answers(answers, "1.2", noun="Spark worker host(s)", home="driver", where="executor",
                             hint="pip", fallback="run Spark locally")
    assert str(err.value) == ("2 of 3 Spark worker host(s) run another version of aif360_subjective than the driver "
                              "(1.2): w1 (1.0), w2 (0.9); install the same version on the driver and every executor")
