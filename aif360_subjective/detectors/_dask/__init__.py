"""The Dask back end of :func:`~aif360_subjective.detectors.detect_subgroups`: the discovery (:mod:`.detect`, whose
``detect_subgroups_dask`` the face calls), the functions of one partition its passes send to the workers
(:mod:`.passes`), the per-partition counts (:mod:`.counts`) and the table summary (:mod:`.summary`). Like every Dask
back end of the package (``opinion._dask``, ``quality._dask``), left out of the AIF360 patch series
(``contrib/make_aif360_patches.py``).

This package imports nothing itself: a worker imports it as the parent of :mod:`.passes`, and must not import the
analysis with it (see :data:`aif360_subjective.detectors._LAZY`)."""
