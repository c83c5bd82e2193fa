"""The judgement of the engines' worker probes: does every worker import this package, at the caller's version?

The Dask and Spark back ends each ask their workers (``_dask.check_workers``: ``client.run``;
``_spark.check_workers``: a tiny ``mapInPandas``) to import the package and answer with its version or the import
error; only the transport differs. :func:`judge_worker_answers` reads the answers the same way for both, so a
worker without the package, or with another version, is named in one clear error instead of a deserialisation
failure deep in a task.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["judge_worker_answers"]

PACKAGE = "aif360_subjective"


def judge_worker_answers(answers: Iterable[tuple[str, str, str]], version: str, *, noun: str, home: str,
                         where: str, hint: str, fallback: str) -> None:
    """Raise when a worker could not import the package or imports another version than ``version``.

    Args:
        answers: one ``(worker, status, message)`` per worker: status ``"ok"`` with the version it imported, or any
            other status with its import error (repeated answers count once).
        version: the caller's (client's, driver's) version of the package.
        noun: what the workers are called in the message (``"Dask worker(s)"``).
        home: the process that asks (``"client"``, ``"driver"``).
        where: where the package must be installed (``"worker"``, ``"executor"``).
        hint: the install command.
        fallback: what else the user can do (``"compute without the cluster"``).

    Raises:
        RuntimeError: naming the workers that cannot import the package (with their error), else those that run
            another version; nothing when every answer is ``"ok"`` at ``version``.
    """
    unique = sorted(set(answers))
    missing = [f"{w} ({msg})" for w, status, msg in unique if status != "ok"]
    other = [f"{w} ({msg})" for w, status, msg in unique if status == "ok" and msg != version]
    if missing:
        raise RuntimeError(
            f"{len(missing)} of {len(unique)} {noun} cannot import {PACKAGE}: {', '.join(missing)}; install the "
            f"{home}'s version ({version}) on every {where} ({hint}), or {fallback}")
    if other:
        raise RuntimeError(
            f"{len(other)} of {len(unique)} {noun} run another version of {PACKAGE} than the {home} ({version}): "
            f"{', '.join(other)}; install the same version on the {home} and every {where}")
