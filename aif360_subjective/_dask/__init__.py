"""Shared helpers of the Dask back ends (optional extra ``[dask]``).

The back ends live beside what they parallelise: :mod:`aif360_subjective.opinion._dask` (majority vote, ADR,
per-annotator performance and the opinion-exclusion groups) and :mod:`aif360_subjective.quality._dask` (the
CrowdTruth 2.0 fixed point, one distributed pass per iteration). Their faces test the input with
:func:`is_dask_collection`, which never imports Dask itself (an object can only be a Dask collection if Dask is
already imported), and import the back end only then.

* :mod:`._partitions`: making sure each item (unit) lives in one partition, tree reductions.
* :func:`check_workers`: on a distributed cluster, every worker must import this package, at the client's
  version (the tasks are this package's functions, unpickled on the workers); the entry points call it before
  computing, so a worker without it is named in one clear error instead of a deserialisation failure deep in a
  task.
"""

from __future__ import annotations

import sys
from typing import Any

from .._workers import judge_worker_answers

INSTALL_HINT = "pip install 'aif360-subjective[dask]'"


def is_dask_collection(*objs: Any) -> bool:
    """Whether any of ``objs`` is a Dask collection (without importing Dask)."""
    if "dask" not in sys.modules:
        return False
    from dask.base import is_dask_collection as _is

    return any(_is(o) for o in objs)


def require_dask() -> None:
    """Import Dask's dataframe module or raise an ImportError naming the ``[dask]`` extra."""
    try:
        import dask.dataframe  # noqa: F401
    except ImportError as err:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"the Dask back end needs dask[dataframe]: {INSTALL_HINT}") from err


def active_client() -> Any | None:
    """The distributed ``Client`` the next ``compute`` will use, or None (Dask's local schedulers).

    None when ``distributed`` is not imported, when Dask's ``scheduler`` option names a local scheduler
    ("sync", "threads", "processes"), or when no client exists.
    """
    if "distributed" not in sys.modules:
        return None
    import dask
    from distributed import Client, default_client

    scheduler = dask.config.get("scheduler", None)
    if isinstance(scheduler, Client):  # dask.config.set(scheduler=client)
        return scheduler
    if scheduler not in (None, "dask.distributed", "distributed"):
        return None

    try:
        return default_client()
    except ValueError:  # no client
        return None


_CHECKED: set[tuple[str, tuple[str, ...]]] = set()  # (scheduler, workers) already probed: one probe per layout


def check_workers(client: Any | None = None) -> None:
    """Make sure every worker of a distributed cluster imports this package at the client's version.

    Each worker runs a probe (``client.run``; the probe is pickled by value, so it unpickles without the
    package) that imports ``aif360_subjective`` and reports its version or the import error. A cluster whose
    workers all passed is not probed again until its set of workers changes.

    Args:
        client: a ``distributed.Client``; default: the active one (:func:`active_client`). Nothing is checked
            without one (local schedulers run in this process, which has the package).

    Raises:
        RuntimeError: naming the workers that cannot import the package (with their error) or that run another
            version, and what to install.
    """
    client = active_client() if client is None else client
    if client is None:
        return
    # the package root is loaded before any of its modules (an import of it here would climb the floors)
    __version__ = str(sys.modules[__name__.split(".")[0]].__version__)
    workers = tuple(sorted(client.scheduler_info().get("workers", {})))
    key = (str(client.scheduler.address), workers)
    if key in _CHECKED:
        return

    root = __name__.split(".")[0]

    def probe() -> tuple[str, str]:  # nested: cloudpickle sends it by value, with the package's name
        import importlib

        try:
            return "ok", str(importlib.import_module(root).__version__)
        except Exception as err:  # noqa: BLE001 (any import failure is the answer)
            return "error", f"{type(err).__name__}: {err}"

    answers = client.run(probe)
    judge_worker_answers(((str(w), status, msg) for w, (status, msg) in answers.items()), __version__,
                         noun="Dask worker(s)", home="client", where="worker", hint=INSTALL_HINT,
                         fallback="compute without the cluster")
    _CHECKED.add(key)
