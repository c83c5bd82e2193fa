"""Generate the AIF360 patch series (``contrib/aif360/NNNN-*.patch``) from the package's own modules.

The series lands the plugin's core in AIF360 0.6.1's source release (the sdist: ``aif360/``, ``tests/``,
``examples/``, ``docs/``): ``MultiAnnotatorDataset`` and the LeWiDi loader, CrowdTruth 2.0 and
``CrowdTruthFilter``, ``detect_subgroups`` (ASDF and mined patterns with max-T) with ``SubgroupDiscoveryMetric``,
``OpinionExclusionMetric``, tests, an example notebook and the API pages. Nothing is copied by hand:

1. **Which modules.** The import graph is walked with :mod:`ast` from the modules that define the exported names
   (:data:`EXPORTS`), through package-internal imports only. A name imported from a subpackage's ``__init__`` is
   followed to the module that defines it, so a restructure of a subpackage changes the module set by itself.
   The Dask and Spark back ends (any module named ``_dask`` or ``_spark``, or under one) are left out; the command
   line, the dashboard, the report and the plotting modules must not be reached (an error says from where).
2. **Where they go.** :func:`target_module` maps every module onto AIF360's layout (:data:`FACES` for the
   modules that define the public names, :data:`SUBPACKAGES` for the rest).
3. **What changes.** Package-internal imports become absolute ``aif360`` imports of the defining module; a
   statement ``if <uses a Dask name>: ... else: ...`` keeps its ``else`` branch; the few definitions that use a
   dependency AIF360 does not have (pyclustering, mlpack, tqdm) are replaced or removed by name
   (:data:`REPLACE`, :data:`DROP`); imports left unused are removed; ``aif360_subjective`` in docstrings becomes
   the AIF360 path (or names the plugin where the target stays in the plugin).
4. **Checks.** Every import of the generated modules is the standard library, numpy, scipy, pandas,
   scikit-learn, matplotlib or ``aif360`` itself (AIF360 0.6.1's ``install_requires``); the text holds no
   ``aif360_subjective``; no name is left undefined or unused (ruff's pyflakes rules); a name to replace or drop
   is defined at most once (a missing one is noted). A failed check raises
   :class:`GenerationError` naming the module and what to update here.

Tests (``tests/contrib/upstream/test_upstream_*.py``) and the example notebook
(``contrib/aif360_examples/*.py``, percent format) are written against the plugin's public names and go
through the same import rewriting, so they also run in the plugin's own test suite.

Usage (regenerate after any change to the modules above, e.g. after a merge)::

    python contrib/make_aif360_patches.py            # writes contrib/aif360/
    python contrib/make_aif360_patches.py --out DIR  # writes DIR (the currency test compares the two)

References:
    git-format-patch(1), git-apply(1): the patch format written here.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PKG = "aif360_subjective"
PKG_DIR = REPO / PKG
TESTS_DIR = REPO / "tests" / "contrib" / "upstream"
EXAMPLES_DIR = REPO / "contrib" / "aif360_examples"
OUT_DIR = REPO / "contrib" / "aif360"

#: Public names the series adds, per AIF360 package: (plugin package that exports it, name).
EXPORTS: dict[str, list[tuple[str, str]]] = {
    "aif360.datasets": [(f"{PKG}.datasets", "MultiAnnotatorDataset"), (f"{PKG}.datasets", "LeWiDiDataset")],
    "aif360.metrics.crowdtruth": [(f"{PKG}.quality", "crowdtruth_scores"), (f"{PKG}.quality", "CrowdTruthResult")],
    "aif360.algorithms.preprocessing": [(f"{PKG}.algorithms.preprocessing", "CrowdTruthFilter")],
    "aif360.detectors": [(f"{PKG}.detectors", "detect_subgroups"), (f"{PKG}.detectors", "SubgroupReport"),
                         (f"{PKG}.detectors", "AnalysisOptions")],
    "aif360.metrics": [(f"{PKG}.metrics", "OpinionExclusionMetric"), (f"{PKG}.metrics", "SubgroupDiscoveryMetric")],
    "aif360.metrics.opinion": [(f"{PKG}.opinion", "OpinionExclusionResult"), (f"{PKG}.opinion", "OpinionOptions")],
}

#: The AIF360 module of the plugin module that defines each name (AIF360 names a module after its class:
#: ``compas_dataset.py``, ``mdss_classification_metric.py``, ``mdss_detector.py``).
FACES: dict[str, str] = {
    "MultiAnnotatorDataset": "aif360.datasets.multi_annotator_dataset",
    "LeWiDiDataset": "aif360.datasets.lewidi_dataset",
    "CrowdTruthFilter": "aif360.algorithms.preprocessing.crowdtruth_filter",
    "OpinionExclusionMetric": "aif360.metrics.opinion_exclusion_metric",
    "SubgroupDiscoveryMetric": "aif360.metrics.subgroup_discovery_metric",
    "detect_subgroups": "aif360.detectors.subgroup_detector",
}

#: Every other module keeps its name inside the AIF360 package of its plugin subpackage. The package-level
#: helpers (``_validation``, ``_labels``, ``_compat``) become private top-level modules of ``aif360``.
SUBPACKAGES: dict[str, str] = {
    "": "aif360",
    "datasets": "aif360.datasets",
    "quality": "aif360.metrics.crowdtruth",
    "detectors": "aif360.detectors.subgroups",
    "opinion": "aif360.metrics.opinion",
    "metrics": "aif360.metrics",
    "algorithms.preprocessing": "aif360.algorithms.preprocessing",
}

#: Docstrings of the new AIF360 subpackages.
NEW_PACKAGE_DOCS: dict[str, str] = {
    "aif360.metrics.crowdtruth": "CrowdTruth 2.0 quality scores of units, workers and annotations "
                                 "(the engine of :class:`aif360.algorithms.preprocessing.CrowdTruthFilter`).",
    "aif360.metrics.opinion": "The opinion-exclusion engine behind :class:`aif360.metrics.OpinionExclusionMetric`.",
    "aif360.detectors.subgroups": "Automated subgroup discovery (ASDF clusters and entropy patterns, mined "
                                  "patterns, permutation max-T) behind :func:`aif360.detectors.detect_subgroups`.",
}

def _plugin_package_doc(plan: Plan, package: str) -> str:
    """The docstring of the plugin package whose modules become AIF360 package ``package``."""
    plugin = {m.rsplit(".", 1)[0] for m, target in plan.targets.items() if target.rsplit(".", 1)[0] == package}
    if len(plugin) != 1:
        raise GenerationError(f"{package} comes from {sorted(plugin)}: one plugin package expected")
    init = PKG_DIR.joinpath(*plugin.pop().split(".")[1:], "__init__.py")
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) if init.is_file() else None
    if not doc:
        raise GenerationError(f"{init} needs a docstring: it becomes {package}'s")
    return doc


#: Plugin-only parts: reaching one of these from an exported name is an error (they stay in the plugin).
FORBIDDEN = ("cli", "dashboard", "report", "plotting", "sklearn", "explainers", "__main__")
#: Left out with their call sites (``if <dask test>: ...`` keeps its ``else``): the Dask and Spark back ends.
DROPPED_PARTS = ("_dask", "_spark")

#: Third-party imports allowed in the series: AIF360 0.6.1's install_requires (and aif360 itself).
ALLOWED_ROOTS = {"numpy", "scipy", "pandas", "sklearn", "matplotlib", "aif360"}

#: An ``if`` whose branch imports one of these (a progress bar drawn only when asked) keeps its ``else`` branch.
OPTIONAL_BRANCH_ROOTS = {"tqdm"}

#: Definitions removed by name (they serve pyclustering, mlpack or the plugin's import-time set-up).
DROP: tuple[str, ...] = (
    "import_pyclustering", "_OptionalDependencyFilter", "import_aif360_quietly", "_QuietAif360Finder",
    "install_quiet_aif360_import", "_pyclustering_xmeans", "mlpack_available",
    "euclidean_mst", "_emst_in_child", "_EMST_CHILD", "EMST_CHILD_ROWS", "EMST_LEAF_SIZE",
    "XMEANS_FAST_WORK", "TqdmReporter", "_TqdmStage", "_BAR",
)

#: Definitions replaced by name: x-means is the package's own vectorised one (no pyclustering), single linkage
#: is scikit-learn's (no mlpack), progress bars are off (no tqdm), the bitset counts are NumPy's (no Numba).
REPLACE: dict[str, str] = {
    "_compiled": '''
        def _compiled() -> _Kernel | None:
            """None: AIF360 does not depend on Numba, so the NumPy path counts (the same counts)."""
            return None
    ''',
    "XMEANS_METHODS": '''
        XMEANS_METHODS = ("auto", "fast")
    ''',
    "choose_n_clusters": '''
        def choose_n_clusters(
            Z: np.ndarray, kmax: int | None = None, random_state: Any = None, method: str = "auto"
        ) -> int:
            """Automatic k by x-means (BIC splitting, k-means++ start with 2 centres), vectorised.

            The rule and its stopping condition are those of pyclustering's x-means (Pelleg and Moore's BIC),
            computed by :func:`.xmeans.fast_xmeans` with its own random trial splits.

            Args:
                Z: the encoded matrix.
                kmax: the largest k allowed (default ``floor(sqrt(n / 2))``).
                random_state: int, Generator or None.
                method: ``"auto"`` or ``"fast"`` (the same here).

            Returns:
                int: the number of clusters.

            Raises:
                ValueError: unknown method.

            References:
                D. Pelleg, A. Moore, "X-means: Extending K-means with Efficient Estimation of the Number of
                Clusters", ICML 2000.
            """
            check_choice(method, "method", XMEANS_METHODS)
            n = Z.shape[0]
            kmax = default_kmax(n) if kmax is None else int(kmax)
            return fast_xmeans(Z, kmax, np.random.default_rng(_seed(as_generator(random_state))))
    ''',
    "xmeans_n_clusters": '''
        def xmeans_n_clusters(
            Z: np.ndarray, kmax: int | None = None, random_state: Any = None
        ) -> tuple[int, np.ndarray]:
            """Number of clusters by x-means (vectorised, BIC splitting) and a k-means partition into that many.

            Args:
                Z: the encoded matrix.
                kmax: the largest k allowed (default ``floor(sqrt(n / 2))``, the ASDF-Dashboard's bound).
                random_state: int, Generator or None.

            Returns:
                tuple: ``(k, labels)`` the number of x-means clusters and scikit-learn k-means labels for it.

            References:
                D. Pelleg, A. Moore, "X-means: Extending K-means with Efficient Estimation of the Number of
                Clusters", ICML 2000.
            """
            from sklearn.cluster import KMeans

            n = Z.shape[0]
            kmax = default_kmax(n) if kmax is None else int(kmax)
            rng = as_generator(random_state)
            k = fast_xmeans(Z, kmax, np.random.default_rng(_seed(rng)))
            labels = KMeans(n_clusters=k, n_init=10, random_state=_seed(rng)).fit_predict(Z)
            return k, np.asarray(labels, dtype=np.intp)
    ''',
    "MST_METHODS": '''
        #: Values accepted by ``mst=``: ``"auto"`` and ``"sklearn"`` (scikit-learn's Prim), the same here.
        MST_METHODS = ("auto", "sklearn")
    ''',
    "resolve_mst": '''
        def resolve_mst(mst: str, n_rows: int, n_cols: int = 1) -> str:
            """The MST back-end to run: scikit-learn's Prim.

            Raises:
                ValueError: unknown name.
            """
            check_choice(mst, "mst", MST_METHODS)
            if n_rows > SLOW_NOTICE_ROWS:
                log.warning("single linkage on %d rows with scikit-learn's O(n^2) Prim", n_rows)
            return "sklearn"
    ''',
    "single_linkage": '''
        def single_linkage(
            Z: np.ndarray, mst: str = "auto", progress: bool | None = None
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
            """Single-linkage merges of ``Z`` (scikit-learn's ``children_`` and ``distances_``).

            Args:
                Z: (n, d) encoded matrix.
                mst: ``"auto"`` or ``"sklearn"`` (see :data:`MST_METHODS`).
                progress: accepted for compatibility; no progress bar is shown.

            Returns:
                tuple: ``(children, distances, None)``.
            """
            from sklearn.cluster import AgglomerativeClustering

            Z = np.ascontiguousarray(Z, dtype=np.float64)
            resolve_mst(mst, len(Z), Z.shape[1])
            model = AgglomerativeClustering(
                n_clusters=2, linkage="single", compute_full_tree=True, compute_distances=True
            ).fit(Z)
            children = np.asarray(model.children_, dtype=np.intp)
            return children, np.asarray(model.distances_, dtype=np.float64), None
    ''',
    "_steps": '''
        def _steps(show: bool, desc: str, total: int) -> Any:
            """No progress bar (the plugin draws one with tqdm)."""
            return _NoBar()
    ''',
    "_bar": '''
        def _bar(progress: bool | None, n: int, kmax: int) -> Any:
            """No progress bar (the plugin draws one with tqdm)."""
            return _NoBar()
    ''',
    "reporter_for": '''
        def reporter_for(progress: Any) -> Reporter:
            """The reporter of ``progress``: :data:`NO_PROGRESS` when False, :class:`PlainReporter`'s lines on
            stderr when True.

            Raises:
                TypeError: ``progress`` is not True or False.
            """
            return PlainReporter() if PROGRESS.check(progress) else NO_PROGRESS
    ''',
}

#: Literal text replacements in the generated files (examples in docstrings that name the plugin's data folder).
TEXT: dict[str, str] = {
    "~/aif360_subjective_data/": "~/data/",
    "pip install 'aif360-subjective[dask]'": "pip install 'dask[dataframe]'",
}

#: Words in the generated text that name plugin-only parts (docstrings and comments are not rewritten beyond the
#: module paths): listed by ``--notes`` for an edit before submitting.
PLUGIN_WORDS = re.compile(r"\b(Dask|dask|mlpack|tqdm|benchmarks/|aif360-subjective)\b")

AUTHOR = "aif360-subjective contributors <aif360-subjective@users.noreply.github.com>"
DATE = "Mon, 1 Jun 2026 00:00:00 +0000"


class GenerationError(RuntimeError):
    """The package changed in a way the generator cannot follow: the message says what to update."""


# ---------------------------------------------------------------------------------------------------------------
# The plugin's modules


def module_file(name: str) -> Path | None:
    """The file of plugin module ``name`` (dotted), or None when there is none."""
    parts = name.split(".")
    if parts[0] != PKG:
        return None
    base = REPO.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def is_package(name: str) -> bool:
    f = module_file(name)
    return f is not None and f.name == "__init__.py"


_TREES: dict[str, ast.Module] = {}


def tree_of(name: str) -> ast.Module:
    if name not in _TREES:
        f = module_file(name)
        if f is None:
            raise GenerationError(f"module {name} not found")
        _TREES[name] = ast.parse(f.read_text(encoding="utf-8"))
    return _TREES[name]


def absolute(current: str, node: ast.ImportFrom, current_is_package: bool) -> str:
    """The absolute module of a ``from ... import`` in module ``current``."""
    if not node.level:
        return node.module or ""
    base = current.split(".")
    if not current_is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def top_level_names(tree: ast.Module) -> set[str]:
    """Names a module defines itself (functions, classes, assignments) at top level or under ``if``/``try``."""
    out: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(st.name)
            elif isinstance(st, ast.Assign):
                for t in st.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.add(n.id)
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                out.add(st.target.id)
            elif isinstance(st, ast.If | ast.Try):
                visit(st.body)
                visit(st.orelse)

    visit(tree.body)
    return out


def defining_module(module: str, name: str, _seen: frozenset[tuple[str, str]] = frozenset()) -> tuple[str, str]:
    """Follow re-exports: the plugin module that defines ``name`` as seen from ``module``, and its own name."""
    if (module, name) in _seen:
        raise GenerationError(f"import cycle while resolving {module}.{name}")
    seen = _seen | {(module, name)}
    sub = f"{module}.{name}"
    if is_package(module) and module_file(sub) is not None:
        return sub, ""  # a submodule
    tree = tree_of(module)
    if name in top_level_names(tree):
        return module, name
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            src = absolute(module, node, is_package(module))
            for a in node.names:
                if (a.asname or a.name) == name and src.startswith(PKG):
                    return defining_module(src, a.name, seen)
    raise GenerationError(f"cannot find where {module} gets {name!r}")


def is_dropped(module: str) -> bool:
    return any(part in module.split(".") for part in DROPPED_PARTS)


def is_forbidden(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 1 and parts[1] in FORBIDDEN


def internal_imports(module: str) -> Iterable[tuple[ast.ImportFrom | ast.Import, str, list[tuple[str, str]]]]:
    """Each package-internal import of ``module``: (node, source module, [(imported name, defining module)])."""
    tree = tree_of(module)
    # a definition dropped or replaced by name takes its own imports with it (the compiled kernel's lazy import)
    gone = [range(st.lineno, (st.end_lineno or st.lineno) + 1) for st in tree.body
            if isinstance(st, ast.FunctionDef | ast.ClassDef) and st.name in (*DROP, *REPLACE)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and any(node.lineno in span for span in gone):
            continue
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == PKG:
                    raise GenerationError(f"{module}: write `from ... import name` instead of `import {a.name}`")
        if not isinstance(node, ast.ImportFrom):
            continue
        src = absolute(module, node, is_package(module))
        if not src.startswith(PKG):
            continue
        resolved = []
        for a in node.names:
            if is_dropped(src):
                resolved.append((a.name, src))
                continue
            mod, _ = defining_module(src, a.name)
            resolved.append((a.name, mod))
        yield node, src, resolved


def closure(roots: Iterable[str]) -> list[str]:
    """Plugin modules reachable from ``roots`` through package-internal imports (Dask back ends left out)."""
    seen: dict[str, str] = {}
    stack = [(r, "an exported name") for r in roots]
    while stack:
        mod, via = stack.pop()
        if mod in seen or is_dropped(mod):
            continue
        if is_forbidden(mod):
            raise GenerationError(f"{via} imports {mod}, which stays in the plugin: move what it needs into the core")
        seen[mod] = via
        for _node, src, resolved in internal_imports(mod):
            if is_dropped(src):
                continue
            for _name, defining in resolved:
                stack.append((defining, mod))
    return sorted(seen)


# ---------------------------------------------------------------------------------------------------------------
# Where modules go


@dataclass
class Plan:
    """The module set and its AIF360 names."""

    modules: list[str]
    targets: dict[str, str]
    exports: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # package -> (name, module, src)

    def public_path(self, defining: str, name: str) -> str | None:
        """``aif360.<package>`` when ``name`` (defined in plugin module ``defining``) is exported there."""
        for package, rows in self.exports.items():
            for exported, mod, _src in rows:
                if exported == name and mod == defining:
                    return package
        return None


def make_plan() -> Plan:
    faces: dict[str, str] = {}
    exports: dict[str, list[tuple[str, str, str]]] = {}
    roots = []
    for package, names in EXPORTS.items():
        for src, name in names:
            mod, own = defining_module(src, name)
            if not own:
                raise GenerationError(f"{src}.{name} is a module, not a name")
            exports.setdefault(package, []).append((own, mod, src))
            roots.append(mod)
            if name in FACES:
                faces[mod] = FACES[name]
    modules = closure(roots)
    targets = {}
    for mod in modules:
        targets[mod] = faces.get(mod) or target_module(mod)
    dupes = {t for t in targets.values() if list(targets.values()).count(t) > 1}
    if dupes:
        raise GenerationError(f"two modules map onto {sorted(dupes)}: add a FACES entry")
    return Plan(modules, targets, exports)


def target_module(mod: str) -> str:
    """The AIF360 module of plugin module ``mod`` (not a face): its subpackage's AIF360 package + its name."""
    parts = mod.split(".")[1:]
    for i in range(len(parts) - 1, -1, -1):
        key = ".".join(parts[:i])
        if key in SUBPACKAGES:
            rest = parts[i:]
            return ".".join([SUBPACKAGES[key], *rest])
    raise GenerationError(f"no AIF360 package for {mod}: add its subpackage to SUBPACKAGES")


def target_path(module: str) -> str:
    return module.replace(".", "/") + ".py"


# ---------------------------------------------------------------------------------------------------------------
# Source transformation


def _offsets(text: str) -> list[int]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _span(starts: list[int], node: ast.AST, whole_lines: bool = True) -> tuple[int, int]:
    """Character span of ``node``; with ``whole_lines`` from the start of its first line to after its newline."""
    if whole_lines:
        return starts[node.lineno - 1], starts[node.end_lineno]  # type: ignore[attr-defined]
    return (starts[node.lineno - 1] + node.col_offset,  # type: ignore[attr-defined]
            starts[node.end_lineno - 1] + node.end_col_offset)  # type: ignore[attr-defined]


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _import_lines(indent: str, groups: dict[str, list[str]]) -> str:
    lines = []
    for mod, names in groups.items():
        line = f"{indent}from {mod} import {', '.join(names)}"
        if len(line) > 120:
            inner = "".join(f"{indent}    {n},\n" for n in names)
            line = f"{indent}from {mod} import (\n{inner}{indent})"
        lines.append(line + "\n")
    return "".join(lines)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    for (_s1, e1, _), (s2, _e2, _) in zip(edits, edits[1:]):
        if s2 < e1:
            raise GenerationError("overlapping edits (an import inside a replaced definition?)")
    for s, e, rep in reversed(edits):
        text = text[:s] + rep + text[e:]
    return text


def _definition_span(text: str, starts: list[int], st: ast.stmt) -> tuple[int, int]:
    """A top-level definition with its decorators and the comment block just above it (``#:`` documents a
    constant: it goes with it)."""
    first = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", [])])
    s, e = starts[first - 1], starts[st.end_lineno]  # type: ignore[index]
    lines = text[:s].splitlines(keepends=True)
    while lines and lines[-1].lstrip().startswith("#"):
        s -= len(lines.pop())
    return s, e


def _defined_name(st: ast.stmt) -> str | None:
    if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return st.name
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        return st.targets[0].id
    if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
        return st.target.id
    return None


def prune_private(text: str, imported_elsewhere: set[str]) -> str:
    """Remove private top-level definitions (``_name``) that nothing uses any more: helpers of a dropped
    definition (e.g. the source of mlpack's child process) go with it, whatever they are called."""
    tree = ast.parse(text)
    # names each top-level statement uses (a definition's references to itself do not keep it)
    uses = [{n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            for st in tree.body]
    starts = _offsets(text)
    edits = []
    for i, st in enumerate(tree.body):
        name = _defined_name(st)
        used = any(name in u for j, u in enumerate(uses) if j != i)
        if name and name.startswith("_") and not name.startswith("__") and not used \
                and name not in imported_elsewhere:
            s, e = _definition_span(text, starts, st)
            edits.append((s, e, ""))
    return _apply(text, edits) if edits else text


def _sole_statement(tree: ast.AST, node: ast.stmt) -> bool:
    for parent in ast.walk(tree):
        for fld in ("body", "orelse", "finalbody"):
            body = getattr(parent, fld, None)
            if isinstance(body, list) and node in body:
                return len(body) == 1
    return False


def transform_module(mod: str, plan: Plan, *, prefer_public: bool = False, text: str | None = None,
                     tree: ast.Module | None = None, used: dict[str, int] | None = None) -> str:
    """The AIF360 source of plugin module ``mod`` (or of a test/notebook ``text`` with ``prefer_public``)."""
    if text is None:
        f = module_file(mod)
        assert f is not None
        text = f.read_text(encoding="utf-8")
        tree = tree_of(mod)
    assert tree is not None
    starts = _offsets(text)
    edits: list[tuple[int, int, str]] = []
    dropped: set[str] = set()
    removed: list[tuple[int, int]] = []

    # 1. definitions replaced or dropped by name (top level only)
    for st in tree.body:
        names = set()
        if isinstance(st, ast.FunctionDef | ast.ClassDef):
            names = {st.name}
        elif isinstance(st, ast.Assign | ast.AnnAssign):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
        hit = names & (set(DROP) | set(REPLACE))
        if not hit:
            continue
        (name,) = hit
        if used is not None:
            used[name] = used.get(name, 0) + 1
        s, e = _definition_span(text, starts, st)
        rep = textwrap.dedent(REPLACE[name]).strip("\n") + "\n" if name in REPLACE else ""
        edits.append((s, e, rep))
        removed.append((s, e))

    def inside_removed(s: int, e: int) -> bool:
        return any(rs <= s and e <= re_ for rs, re_ in removed)

    # 2. imports: absolute aif360 paths of the defining modules; Dask back ends dropped
    import_nodes = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        src = absolute(mod, node, is_package(mod)) if mod else node.module
        if not src or not src.startswith(PKG):
            continue
        import_nodes.append((node, src))
    for node, src in import_nodes:
        s, e = _span(starts, node)
        if inside_removed(s, e):
            continue
        indent = text[s: s + node.col_offset]
        groups: dict[str, list[str]] = {}
        for a in node.names:
            local = a.asname or a.name
            if is_dropped(src):
                dropped.add(local)
                continue
            defining, own = defining_module(src, a.name)
            if is_dropped(defining):
                dropped.add(local)
                continue
            if defining not in plan.targets:
                raise GenerationError(f"{mod or 'a test'} imports {src}.{a.name}, which is not in the series "
                                      f"(defined in {defining}): export it in EXPORTS or avoid it")
            tgt = plan.targets[defining]
            if not own:  # a module
                parent, last = tgt.rsplit(".", 1)
                groups.setdefault(parent, []).append(last if last == local else f"{last} as {local}")
                continue
            where = (plan.public_path(defining, own) if prefer_public else None) or tgt
            groups.setdefault(where, []).append(own if own == local else f"{own} as {local}")
        rep = _import_lines(indent, groups)
        if not rep and _sole_statement(tree, node):
            rep = f"{indent}pass\n"
        edits.append((s, e, rep))

    # 3. statements using a dropped (Dask) name, or drawing an optional progress bar: ``if`` keeps its else
    # branch; any other use of a dropped name is an error
    def optional_branch(node: ast.If) -> bool:
        for st in node.body:
            if isinstance(st, ast.Import) and any(a.name.split(".")[0] in OPTIONAL_BRANCH_ROOTS for a in st.names):
                return True
            if isinstance(st, ast.ImportFrom) and (st.module or "").split(".")[0] in OPTIONAL_BRANCH_ROOTS:
                return True
        return False

    if True:
        for node in ast.walk(tree):
            if not isinstance(node, ast.If) or not (_names_in(node.test) & dropped or optional_branch(node)):
                continue
            if inside_removed(*_span(starts, node)):
                continue
            s, e = _span(starts, node)
            if node.orelse and isinstance(node.orelse[0], ast.If) and len(node.orelse) == 1 and \
                    text[starts[node.orelse[0].lineno - 1]:].lstrip().startswith("elif"):
                raise GenerationError(f"{mod}: `elif` after a Dask test is not handled: write else: if ...")
            rep = ""
            if node.orelse:
                os_, oe = starts[node.orelse[0].lineno - 1], starts[node.orelse[-1].end_lineno]
                body = textwrap.dedent(text[os_:oe])
                rep = textwrap.indent(body, " " * node.col_offset)
            elif _sole_statement(tree, node):
                rep = " " * node.col_offset + "pass\n"
            edits = [ed for ed in edits if not (s <= ed[0] and ed[1] <= e)]
            edits.append((s, e, rep))
            removed.append((s, e))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in dropped:
                s, e = _span(starts, node, whole_lines=False)
                if not inside_removed(s, e):
                    raise GenerationError(f"{mod}:{node.lineno}: {node.id} (Dask back end) is used outside an "
                                          "`if` on it: the generator cannot drop that")

    out = _apply(text, edits)
    out = prune_unused_imports(out)
    out = prune_all(out)
    out = re.sub(r"\n{4,}", "\n\n\n", rewrite_text(out, plan))  # dropped definitions leave blank runs
    return out.rstrip("\n") + "\n"


def prune_unused_imports(text: str) -> str:
    """Remove imported names nothing uses any more (after Dask branches and replaced definitions went)."""
    while True:
        tree = ast.parse(text)
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        exported: set[str] = set()
        for st in tree.body:
            if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in st.targets):
                exported |= {c.value for c in ast.walk(st.value) if isinstance(c, ast.Constant)}
        # names in string annotations and docstring doctests are not counted: none of the modules rely on them
        starts = _offsets(text)
        edits = []
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            keep, gone = [], []
            for a in node.names:
                local = (a.asname or a.name).split(".")[0]
                (keep if local in used or local in exported else gone).append(a)
            if not gone:
                continue
            s, e = _span(starts, node)
            indent = " " * node.col_offset
            if not keep:
                rep = f"{indent}pass\n" if _sole_statement(tree, node) else ""
            elif isinstance(node, ast.Import):
                rep = f"{indent}import " + ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in keep)
                rep += "\n"
            else:
                mod = "." * node.level + (node.module or "")
                rep = _import_lines(indent, {mod: [a.name + (f" as {a.asname}" if a.asname else "") for a in keep]})
            # a comment on the import line (e.g. "# noqa: F401  (named in the docstrings)") goes with it
            edits.append((s, e, rep))
        if not edits:
            return text
        text = _apply(text, edits)


def prune_all(text: str) -> str:
    """Drop entries of ``__all__`` whose definition was dropped."""
    tree = ast.parse(text)
    defined = top_level_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
    starts = _offsets(text)
    edits = []
    for st in tree.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in st.targets) \
                and isinstance(st.value, ast.List | ast.Tuple):
            for elt in st.value.elts:
                if isinstance(elt, ast.Constant) and elt.value not in defined:
                    s, e = _span(starts, elt, whole_lines=False)
                    # take the following comma and spaces (or a whole line) with it
                    m = re.match(r",[ \t]*(\n[ \t]*)?", text[e:])
                    e += m.end() if m else 0
                    edits.append((s, e, ""))
    return _apply(text, edits) if edits else text


_REF = re.compile(r"(:(?P<role>\w+):`(?P<tilde>~?))?(?P<path>" + PKG + r"(?:\.\w+)*)(?P<close>`)?")


def rewrite_text(text: str, plan: Plan) -> str:
    """``aif360_subjective.x.y`` in docstrings and comments -> the AIF360 path (or the plugin, named)."""
    for old, new in TEXT.items():
        text = text.replace(old, new)

    def sub(m: re.Match[str]) -> str:
        path = m.group("path")
        parts = path.split(".")
        new = None
        for i in range(len(parts), 0, -1):
            mod = ".".join(parts[:i])
            if module_file(mod) is None:
                continue
            rest = parts[i:]
            try:
                if rest and is_package(mod):
                    defining, own = defining_module(mod, rest[0])
                    pub = plan.public_path(defining, own) if own else None
                    if defining in plan.targets:
                        base = pub or plan.targets[defining]
                        new = ".".join([base, *([own] if own else []), *rest[1:]])
                        break
                elif mod in plan.targets:
                    new = ".".join([plan.targets[mod], *rest])
                    break
                elif mod == PKG:
                    new = "aif360"
                    break
            except GenerationError:
                pass
            break
        if m.group("role"):
            if new is not None:
                return f":{m.group('role')}:`{m.group('tilde')}{new}{m.group('close') or ''}"
            return f"``{'.'.join(parts[1:])}`` (aif360-subjective plugin)"
        return new if new is not None else "aif360-subjective's " + ".".join(parts[1:])

    return _REF.sub(sub, text)


# ---------------------------------------------------------------------------------------------------------------
# Checks


def check_module(path: str, text: str, extra_roots: frozenset[str] = frozenset()) -> None:
    """Imports only from AIF360's dependencies (``extra_roots`` too: pytest in tests), no plugin name left."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        roots = []
        if isinstance(node, ast.Import):
            roots = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            roots = [node.module.split(".")[0]]
        for r in roots:
            if r not in ALLOWED_ROOTS | extra_roots and r not in sys.stdlib_module_names and r != "__future__":
                raise GenerationError(f"{path}:{node.lineno} imports {r!r}, which AIF360 0.6.1 does not depend "
                                      "on: add the definition to REPLACE or DROP")
    if PKG in text:
        line = next(i + 1 for i, ln in enumerate(text.splitlines()) if PKG in ln)
        raise GenerationError(f"{path}:{line} still names {PKG}: add a TEXT entry")


# ---------------------------------------------------------------------------------------------------------------
# Edits of existing AIF360 0.6.1 files (context lines as in the sdist)


@dataclass
class Insert:
    """Lines added to an existing AIF360 file after ``after`` (the file's lines there, used as context)."""

    path: str
    line: int  # 1-based number of the last context line in 0.6.1
    after: list[str]
    lines: list[str]
    no_newline_at_end: bool = False  # the last context line is the file's last and has no newline
    before: list[str] = field(default_factory=list)  # context lines after the insertion


#: The tails of the ``__init__.py`` files that get export lines (AIF360 0.6.1): path, number of lines, last
#: lines, whether the last line lacks its newline.
INIT_TAILS: dict[str, tuple[str, int, list[str], bool]] = {
    "aif360.datasets": ("aif360/datasets/__init__.py", 12, [
        "from aif360.datasets.meps_dataset_panel21_fy2016 import MEPSDataset21",
        "from aif360.datasets.regression_dataset import RegressionDataset",
        "from aif360.datasets.law_school_gpa_dataset import LawSchoolGPADataset"], False),
    "aif360.metrics": ("aif360/metrics/__init__.py", 7, [
        "from aif360.metrics.sample_distortion_metric import SampleDistortionMetric",
        "from aif360.metrics.mdss_classification_metric import MDSSClassificationMetric ",
        "from aif360.metrics.regression_metric import RegressionDatasetMetric"], False),
    "aif360.algorithms.preprocessing": ("aif360/algorithms/preprocessing/__init__.py", 4, [
        "from aif360.algorithms.preprocessing.lfr import LFR",
        "from aif360.algorithms.preprocessing.optim_preproc import OptimPreproc",
        "from aif360.algorithms.preprocessing.reweighing import Reweighing"], False),
    "aif360.detectors": ("aif360/detectors/__init__.py", 2, [
        "from aif360.detectors.mdss.MDSS import MDSS",
        "from aif360.detectors.mdss_detector import bias_scan"], True),
}


def init_inserts(plan: Plan, owner_of: Callable[[str], str], order: list[str]) -> list[tuple[str, Insert]]:
    """The export lines of the existing ``__init__.py`` files, each in the patch that adds the module it
    imports from (a later patch's context holds the earlier patches' lines)."""
    out = []
    for package, (path, n_lines, tail, no_newline) in INIT_TAILS.items():
        by_patch: dict[str, list[str]] = {}
        for name, mod, _src in plan.exports.get(package, []):
            tgt = plan.targets[mod]
            by_patch.setdefault(owner_of(target_path(tgt)), []).append(f"from {tgt} import {name}")
        lines = list(tail)
        for slug in sorted(by_patch, key=order.index):
            added = by_patch[slug]
            out.append((slug, Insert(path, n_lines, lines[-3:], added, no_newline_at_end=no_newline)))
            no_newline = False
            n_lines += len(added)
            lines += added
    return out


DOC_INSERTS = [
    Insert("docs/source/modules/datasets.rst", 26,
           ["   datasets.StandardDataset", "   datasets.RegressionDataset", ""],
           ["Multi-annotator datasets", "------------------------", "", ".. currentmodule:: aif360", "",
            ".. autosummary::", "   :toctree: generated/", "   :template: class.rst", "",
            "   datasets.MultiAnnotatorDataset", "   datasets.LeWiDiDataset", ""],
           before=["Common datasets", "---------------"]),
    Insert("docs/source/modules/metrics.rst", 22,
           ["   metrics.ClassificationMetric", "   metrics.SampleDistortionMetric",
            "   metrics.MDSSClassificationMetric"],
           ["   metrics.OpinionExclusionMetric", "   metrics.SubgroupDiscoveryMetric"],
           before=["", ":mod:`aif360.metrics.utils`"]),
    Insert("docs/source/modules/algorithms.rst", 21,
           ["   algorithms.preprocessing.LFR", "   algorithms.preprocessing.OptimPreproc",
            "   algorithms.preprocessing.Reweighing"],
           ["   algorithms.preprocessing.CrowdTruthFilter"],
           before=["", ":mod:`aif360.algorithms.inprocessing`"]),
    Insert("docs/source/index.rst", 20,
           ["   modules/algorithms", "   modules/datasets"],
           ["   modules/detectors"],
           before=["   modules/explainers", "   modules/metrics"]),
    Insert("docs/source/modules/metrics.rst", 42,
           ["   metrics.utils.compute_num_TF_PN", "   metrics.utils.compute_num_gen_TF_PN",
            "   metrics.utils.compute_distance"],
           [],  # METRICS_MORE_RST, set below
           no_newline_at_end=True),
]

def _autosummary(template: str, names: list[str]) -> str:
    """One ``autosummary`` block of AIF360's API pages (functions use base.rst, classes class.rst)."""
    body = "".join(f"   {name}\n" for name in names)
    return f".. autosummary::\n   :toctree: generated/\n   :template: {template}\n\n{body}"


def _module_section(module: str, functions: list[str], classes: list[str], level: str = "=") -> str:
    """A module's section in the style of AIF360's docs/source/modules/*.rst: title, automodule, summaries."""
    title = f":mod:`aif360.{module}`"
    parts = [f"{title}\n{level * len(title)}\n\n.. automodule:: aif360.{module}\n    :no-members:\n"
             "    :no-inherited-members:\n\n.. currentmodule:: aif360\n"]
    parts += [_autosummary("base.rst", [f"{module}.{n}" for n in functions])] if functions else []
    parts += [_autosummary("class.rst", [f"{module}.{n}" for n in classes])] if classes else []
    return "\n".join(parts)


DETECTORS_RST = "=========\nDetectors\n=========\n\n" + _module_section(
    "detectors", ["bias_scan", "detect_subgroups"], ["SubgroupReport", "AnalysisOptions"])

METRICS_MORE_RST = "\n" + _module_section(
    "metrics.crowdtruth", ["crowdtruth_scores"], ["CrowdTruthResult"]) + "\n" + _module_section(
    "metrics.opinion", [], ["OpinionOptions", "OpinionExclusionResult"])

DOC_INSERTS[-1].lines = METRICS_MORE_RST.splitlines()


# ---------------------------------------------------------------------------------------------------------------
# Patches


@dataclass
class FileChange:
    path: str
    new: str | None = None  # a new file's content
    inserts: list[Insert] = field(default_factory=list)  # or lines added to an existing file


@dataclass
class Patch:
    slug: str
    subject: str
    body: str
    changes: list[FileChange] = field(default_factory=list)


def blob_hash(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:7]


def diff_new(path: str, content: str) -> tuple[str, int, int]:
    lines = content.splitlines()
    body = "".join(f"+{ln}\n" for ln in lines)
    if content and not content.endswith("\n"):
        body += "\\ No newline at end of file\n"
    head = (f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..{blob_hash(content.encode())}\n"
            f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n")
    return head + body, len(lines), 0


def diff_inserts(path: str, inserts: list[Insert]) -> tuple[str, int, int]:
    """One diff of an existing file with a hunk per insertion (line numbers of AIF360 0.6.1)."""
    out = [f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"]
    shift, plus, minus = 0, 0, 0
    for ins in sorted(inserts, key=lambda i: i.line):
        n_old = len(ins.after) + len(ins.before)
        start = ins.line - len(ins.after) + 1
        out.append(f"@@ -{start},{n_old} +{start + shift},{n_old + len(ins.lines)} @@\n")
        if ins.no_newline_at_end:
            # the file's last line gains its newline: git shows it removed and added again
            out += [f" {ln}\n" for ln in ins.after[:-1]]
            out += [f"-{ins.after[-1]}\n", "\\ No newline at end of file\n", f"+{ins.after[-1]}\n"]
            plus, minus = plus + 1, minus + 1
        else:
            out += [f" {ln}\n" for ln in ins.after]
        out += [f"+{ln}\n" for ln in ins.lines]
        out += [f" {ln}\n" for ln in ins.before]
        plus += len(ins.lines)
        shift += len(ins.lines)
    return "".join(out), plus, minus


def render_patch(patch: Patch, number: int, total: int) -> str:
    diffs, stats = [], []
    for ch in sorted(patch.changes, key=lambda c: c.path):
        if ch.new is not None:
            d, plus, minus = diff_new(ch.path, ch.new)
        else:
            d, plus, minus = diff_inserts(ch.path, ch.inserts)
        diffs.append(d)
        stats.append((ch.path, plus, minus))
    width = max(len(p) for p, _, _ in stats)
    stat_lines = "".join(f" {p.ljust(width)} | {plus + minus} {'+' * min(plus, 40)}{'-' * min(minus, 40)}\n"
                         for p, plus, minus in stats)
    n_ins, n_del = sum(s[1] for s in stats), sum(s[2] for s in stats)
    summary = f" {len(stats)} files changed, {n_ins} insertions(+)" + (f", {n_del} deletions(-)" if n_del else "")
    digest = hashlib.sha1("".join(diffs).encode()).hexdigest()
    return (f"From {digest} Mon Sep 17 00:00:00 2001\nFrom: {AUTHOR}\nDate: {DATE}\n"
            f"Subject: [PATCH {number}/{total}] {patch.subject}\n\n{patch.body.strip()}\n\n"
            f"Signed-off-by: {AUTHOR}\n---\n{stat_lines}{summary}\n\n" + "".join(diffs) + "--\n2.43.0\n\n")


PATCHES: list[tuple[str, str, str, tuple[str, ...]]] = [
    # slug, subject, body, AIF360 module prefixes whose new files the patch holds
    ("multi-annotator-dataset", "datasets: MultiAnnotatorDataset and the LeWiDi/perspectivist JSON loader",
     """
One row per annotation (item, annotator, label) in a BinaryLabelDataset: item and annotator ids follow the
rows through split/subset/copy/align_datasets, annotator attributes become protected attributes (codes and
maps in metadata as AIF360's loaders keep them), majority_vote() gives the item-level BinaryLabelDataset and
split() splits by item by default (no item on both sides). LeWiDiDataset reads the Learning-with-
Disagreements JSON files (2023 and 2025 layouts: MultiPICo, CSC, HS-Brexit, ArMIS, MD-Agreement, ConvAbuse)
in their published format, annotator metadata included. Shared argument checks and label helpers go to the
private modules aif360/_validation.py, aif360/_labels.py and aif360/_compat.py.
""", ("aif360._", "aif360.datasets")),
    ("crowdtruth", "metrics, preprocessing: CrowdTruth 2.0 scores and CrowdTruthFilter",
     """
CrowdTruth 2.0 unit, worker and annotation quality scores (Dumitrache et al. 2018) by the fixed point of the
authors' implementation, vectorised with scipy.sparse (no loop per annotation), in aif360.metrics.crowdtruth.
CrowdTruthFilter is a Transformer: fit scores the annotators, transform removes the annotations of low-quality
annotators and keeps consistent minority annotators; what it removed and why is in removed_annotators_.
""", ("aif360.metrics.crowdtruth", "aif360.algorithms.preprocessing")),
    ("subgroup-discovery", "detectors: detect_subgroups (ASDF, mined patterns, max-T) and SubgroupDiscoveryMetric",
     """
Automated subgroup fairness discovery beside MDSS's bias_scan: detect_subgroups(data, y_true, y_pred,
pos_label=...) clusters the rows (single linkage by default, x-means for the number of clusters), derives each
cluster's entropy pattern (Schäfer et al., the ASDF method), mines conjunctions of attribute conditions, and
measures statistical parity, equal opportunity, equalized odds and accuracy of every subgroup against the rest.
Rankings control the family-wise error over every candidate by permutation max-T (Westfall and Young).
SubgroupDiscoveryMetric is the ClassificationMetric face; every subgroup exports as AIF360 group dicts.
""", ("aif360.detectors", "aif360.metrics.subgroup_discovery_metric")),
    ("opinion-exclusion", "metrics: OpinionExclusionMetric (unfairness towards subjective opinions)",
     """
Balayn et al. (2019): when labels are opinions, a model trained on the majority vote can serve some
annotators worse. OpinionExclusionMetric is a ClassificationMetric over annotation rows: each annotator's
disagreement rate with the majority vote (ADR), groupings of annotators (ADR bins, demographics, clusters,
sample ambiguity, annotation popularity), per-group performance, unfairness() (spread across groups) and
performance() (mean across groups), the permutation test of equal service and bootstrap intervals.
OpinionExclusionMetric.excluded_groups (function: aif360.metrics.opinion.excluded.excluded_groups) asks
whose opinions are excluded without naming the groups first: it searches the conjunctions of annotator
attribute values (two by default) for the groups the model serves worse, with the annotator as the unit,
the family-wise error held over every candidate by max-T (the larger of a permutation and a wild-bootstrap
p-value) and an optional adjustment for groups that saw harder items.
""", ("aif360.metrics.opinion", "aif360.metrics.opinion_exclusion_metric")),
    ("example-notebook", "examples: subjective labels demo (Figure 3 of Balayn et al., ASDF on COMPAS)",
     """
A notebook that reproduces Figure 3 of Balayn et al. (2019) on simulated annotations with a minority
opinion and the ASDF COMPAS subgroups (Schäfer et al.) on ProPublica's file read from AIF360's data folder,
next to bias_scan.
""", ()),
    ("docs", "docs: API entries for the multi-annotator dataset, metrics, filter and detector", "", ()),
]

#: Test files (tests/contrib/upstream/test_upstream_<x>.py) -> patch slug.
TEST_PATCH = {
    "multi_annotator_dataset": "multi-annotator-dataset",
    "lewidi_dataset": "multi-annotator-dataset",
    "crowdtruth_filter": "crowdtruth",
    "detect_subgroups": "subgroup-discovery",
    "opinion_exclusion_metric": "opinion-exclusion",
}


def percent_to_notebook(text: str) -> str:
    """A ``# %%`` script (``# %% [markdown]`` cells with ``# `` lines) as .ipynb JSON without outputs."""
    cells: list[dict[str, object]] = []
    for i, chunk in enumerate(re.split(r"^# %%", text, flags=re.M)[1:]):
        head, _, body = chunk.partition("\n")
        body = body.strip("\n")
        cell_id = f"cell-{i:02d}"  # stable ids (nbformat 4.5): regenerating gives the same file
        if "[markdown]" in head:
            src = "\n".join(ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in body.splitlines())
            cells.append({"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": _lines(src)})
        else:
            cells.append({"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {},
                          "outputs": [], "source": _lines(body)})
    nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                      "name": "python3"},
                                       "language_info": {"name": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def _lines(src: str) -> list[str]:
    lines = src.splitlines(keepends=True)
    return lines


def build(plan: Plan | None = None) -> dict[str, str]:
    """The series: file name -> patch text."""
    plan = plan or make_plan()
    used: dict[str, int] = {}
    files: dict[str, str] = {}
    for mod in plan.modules:
        tgt = plan.targets[mod]
        path = target_path(tgt)
        files[path] = transform_module(mod, plan, used=used)
    _prune_private_across(files, {target_path(t): t for t in plan.targets.values()})
    for path, text in files.items():
        check_module(path, text)
    check_names(files)
    # a name found twice is ambiguous; a name not found is only noted: if the plugin renamed it, the dependency
    # check above fails on whatever still imports pyclustering/mlpack/tqdm, and the name check on dangling calls
    twice = [n for n in (*DROP, *REPLACE) if used.get(n, 0) > 1]
    if twice:
        raise GenerationError(f"names to drop/replace defined more than once in the series: {twice}")
    absent = [n for n in (*DROP, *REPLACE) if n not in used]
    if absent:
        print(f"make_aif360_patches: not in the series any more (DROP/REPLACE entries to delete): {absent}",
              file=sys.stderr)
    # new subpackages need an __init__.py; one nested in a new subpackage (detectors' family folders) takes the
    # docstring of the plugin package it comes from
    packages = {t.rsplit(".", 1)[0] for t in plan.targets.values()}
    for package in sorted(packages):
        init = target_path(package).replace(".py", "/__init__.py")
        if package in NEW_PACKAGE_DOCS:
            files[init] = f'"""{NEW_PACKAGE_DOCS[package]}"""\n' + _exports_of(plan, package)
        elif any(package.startswith(new + ".") for new in NEW_PACKAGE_DOCS):
            files[init] = f'"""{_plugin_package_doc(plan, package)}"""\n'
    patches = [Patch(slug, subject, body) for slug, subject, body, _ in PATCHES]
    by_slug = {p.slug: p for p in patches}

    def owner(path: str) -> Patch:
        module = path[:-3].replace("/", ".").removesuffix(".__init__")
        for slug, _s, _b, prefixes in PATCHES:
            if any(module == p or module.startswith(p if p.endswith("_") else p + ".") for p in prefixes):
                return by_slug[slug]
        raise GenerationError(f"no patch for {path}: add its package to PATCHES")

    for path, text in sorted(files.items()):
        owner(path).changes.append(FileChange(path, new=text))
    for slug, ins in init_inserts(plan, lambda path: owner(path).slug, [p.slug for p in patches]):
        by_slug[slug].changes.append(FileChange(ins.path, inserts=[ins]))

    # tests
    for src in sorted(TESTS_DIR.glob("test_upstream_*.py")):
        key = src.stem.removeprefix("test_upstream_")
        if key not in TEST_PATCH:
            raise GenerationError(f"{src.name}: add it to TEST_PATCH")
        text = src.read_text(encoding="utf-8")
        out = transform_module("", plan, prefer_public=True, text=text, tree=ast.parse(text))
        path = f"tests/test_{key}.py"
        check_module(path, out, frozenset({"pytest"}))
        by_slug[TEST_PATCH[key]].changes.append(FileChange(path, new=out))
    # notebook
    for src in sorted(EXAMPLES_DIR.glob("*.py")):
        text = src.read_text(encoding="utf-8")
        out = transform_module("", plan, prefer_public=True, text=text, tree=ast.parse(text))
        check_module(src.name, out)
        by_slug["example-notebook"].changes.append(
            FileChange(f"examples/{src.stem}.ipynb", new=percent_to_notebook(out)))
    # docs
    doc_changes: dict[str, FileChange] = {}
    for ins in DOC_INSERTS:
        doc_changes.setdefault(ins.path, FileChange(ins.path)).inserts.append(ins)
    by_slug["docs"].changes += [*doc_changes.values(),
                                FileChange("docs/source/modules/detectors.rst", new=DETECTORS_RST)]
    _check_order(patches, plan)

    empty = [p.slug for p in patches if not p.changes]
    if empty:
        raise GenerationError(f"patches without changes: {empty}")
    total = len(patches)
    return {f"{i:04d}-{p.slug}.patch": render_patch(p, i, total) for i, p in enumerate(patches, 1)}


def _prune_private_across(files: dict[str, str], module_of: dict[str, str]) -> None:
    """:func:`prune_private` on every module until nothing changes (a private name another module imports stays).
    Only modules that changed, or whose names imported elsewhere changed, are looked at again."""
    trees = {path: ast.parse(text) for path, text in files.items()}
    dirty = set(files)
    before: dict[str, set[str]] = {}
    while dirty:
        imported: dict[str, set[str]] = {}
        for tree in trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    imported.setdefault(node.module, set()).update(a.name for a in node.names)
        look = dirty | {p for p in files if imported.get(module_of[p], set()) != before.get(module_of[p], set())}
        before, dirty = imported, set()
        for path in sorted(look):
            new = prune_private(files[path], imported.get(module_of[path], set()))
            if new != files[path]:
                files[path] = re.sub(r"\n{4,}", "\n\n\n", prune_unused_imports(new)).rstrip("\n") + "\n"
                trees[path] = ast.parse(files[path])
                dirty.add(path)


def _exports_of(plan: Plan, package: str) -> str:
    rows = plan.exports.get(package, [])
    return "".join(f"from {plan.targets[mod]} import {name}\n" for name, mod, _src in rows)


def _check_order(patches: list[Patch], plan: Plan) -> None:
    """Each patch's modules import only AIF360 0.6.1 and modules added by it or an earlier patch."""
    added: set[str] = set()
    new_modules = {target_path(t) for t in plan.targets.values()}
    for p in patches:
        here = {c.path for c in p.changes if c.new is not None and c.path.endswith(".py")}
        added |= here
        for c in p.changes:
            if c.new is None or not c.path.endswith(".py"):
                continue
            for node in ast.walk(ast.parse(c.new)):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("aif360"):
                    f = target_path(node.module)
                    if f in new_modules and f not in added:
                        raise GenerationError(f"{c.path} (patch {p.slug}) imports {node.module}, added by a later "
                                              "patch: reorder PATCHES")


def prose_notes(series: dict[str, str]) -> list[str]:
    """``file:line: text`` for every added line that names a plugin-only part (see :data:`PLUGIN_WORDS`)."""
    notes = []
    for text in series.values():
        path, line = "", 0
        for raw in text.splitlines():
            if raw.startswith("+++ b/"):
                path, line = raw[6:], 0
            elif raw.startswith("@@"):
                m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", raw)
                line = int(m.group(1)) - 1 if m else 0
            elif path and raw.startswith("+"):
                line += 1
                if PLUGIN_WORDS.search(raw):
                    notes.append(f"{path}:{line}: {raw[1:].strip()}")
            elif path and raw.startswith(" "):
                line += 1
    return notes


# ---------------------------------------------------------------------------------------------------------------
# The figures of contrib/README.md, printed from the series itself so that they cannot go stale

README = REPO / "contrib" / "README.md"


@dataclass
class PatchFigures:
    """What one patch adds: files touched, lines added (in ``tests/``), test functions, new modules' text."""

    name: str
    files: int = 0
    added: int = 0
    test_lines: int = 0
    tests: int = 0
    modules: dict[str, str] = field(default_factory=dict)


def patch_figures(name: str, text: str) -> PatchFigures:
    """The figures of one rendered patch, read from its diff (added lines as ``git apply --stat`` counts them)."""
    fig = PatchFigures(name)
    path, in_hunk, new_file, lines = "", False, False, []

    def close() -> None:
        if path.endswith(".py") and new_file:
            fig.modules[path] = "".join(lines)

    for raw in text.splitlines(keepends=True):
        if raw.startswith("diff --git "):
            close()
            path, in_hunk, new_file, lines = raw.rsplit(" b/", 1)[1].strip(), False, False, []
            fig.files += 1
        elif not in_hunk and raw.startswith("new file mode"):
            new_file = True
        elif raw.startswith("@@"):
            in_hunk = True
        elif in_hunk and raw.startswith("+"):
            fig.added += 1
            fig.test_lines += path.startswith("tests/")
            lines.append(raw[1:])
    close()
    for path, module in fig.modules.items():
        if path.startswith("tests/"):
            fig.tests += sum(isinstance(st, ast.FunctionDef) and st.name.startswith("test_")
                             for st in ast.parse(module).body)
    return fig


def needs_python_310(modules: dict[str, str]) -> tuple[int, list[str]]:
    """``isinstance(x, A | B)`` calls, and the modules using ``dataclass(slots=True)``, ``kw_only=True`` or
    ``zip(strict=True)``: what compiles on Python 3.9 but needs 3.10 at run time."""
    unions, modules_310 = 0, []
    for path, text in sorted(modules.items()):
        keywords = False
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            if (isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2
                    and isinstance(node.args[1], ast.BinOp) and isinstance(node.args[1].op, ast.BitOr)):
                unions += 1
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            wanted = {"dataclass": ("slots", "kw_only"), "field": ("kw_only",), "zip": ("strict",)}.get(name, ())
            keywords |= any(k.arg in wanted for k in node.keywords)
        if keywords:
            modules_310.append(path)
    return unions, modules_310


def readme_blocks(series: dict[str, str]) -> dict[str, str]:
    """The generated blocks of contrib/README.md, by name: ``figures`` (the series in a table), ``tests`` (how
    many test functions), ``excluded`` (whether they test ``excluded_groups``), ``prose`` (the added lines that
    name plugin-only parts), ``python`` (what needs Python 3.10) and ``size`` (the largest patch)."""
    figs = [patch_figures(name, text) for name, text in series.items()]
    total = PatchFigures("total", sum(f.files for f in figs), sum(f.added for f in figs),
                         sum(f.test_lines for f in figs), sum(f.tests for f in figs))
    rows = "".join(f"| `{f.name.removesuffix('.patch')}` | {f.files} | {f.added:,} | {f.test_lines:,} | "
                   f"{f.tests} |\n" for f in figs)
    figures = ("| patch | files | added lines | of which tests | test functions |\n|---|---|---|---|---|\n" + rows
               + f"| **series** | {total.files} | {total.added:,} | {total.test_lines:,} | {total.tests} |\n")
    n_notes = len(prose_notes(series))
    prose = (f"{n_notes} added lines still mention plugin-only parts (the Dask back end, `benchmarks/` scripts, "
             "mlpack): `python contrib/make_aif360_patches.py --notes` lists them.")
    code = {path: text for f in figs for path, text in f.modules.items() if path.startswith("aif360/")}
    unions, modules_310 = needs_python_310(code)
    python = (f"{unions} calls `isinstance(x, A | B)`, and `dataclass(slots=True)`, `kw_only=True` or "
              f"`zip(strict=True)` in {len(modules_310)} modules")
    largest = max(figs, key=lambda f: f.added)
    size = (f"Patch {largest.name[:4]} alone adds {largest.added:,} lines ({largest.added / total.added:.0%} of "
            "the series)")
    tests = {path: text for f in figs for path, text in f.modules.items() if path.startswith("tests/")}
    n_excluded = sum(isinstance(st, ast.FunctionDef) and st.name.startswith("test_") and "excluded_groups" in
                     ast.get_source_segment(text, st) for text in tests.values() for st in ast.parse(text).body)
    excluded = (f"{n_excluded} of the added tests call `excluded_groups`." if n_excluded else
                "None of the added tests calls `excluded_groups` yet (the plugin's own suite tests it): a planted "
                "group found and a null run with nothing found should be added to the series before submitting.")
    return {"figures": figures, "prose": prose, "python": python, "size": size,
            "tests": f"{total.tests} tests", "excluded": excluded}


_BLOCK = re.compile(r"(<!-- generated: (\w+) -->)(.*?)(<!-- end \2 -->)", re.S)


def update_readme(text: str, blocks: dict[str, str]) -> str:
    """``text`` with every ``<!-- generated: NAME -->…<!-- end NAME -->`` span holding ``blocks[NAME]``
    (a block that ends in a newline starts on a new line). Refuses a README missing a block or naming an unknown one."""
    found = {m.group(2) for m in _BLOCK.finditer(text)}
    if found != set(blocks):
        raise GenerationError(f"contrib/README.md: generated blocks {sorted(found)}, expected {sorted(blocks)}: "
                              "add the markers <!-- generated: NAME --> ... <!-- end NAME -->")

    def fill(m: re.Match[str]) -> str:
        block = blocks[m.group(2)]
        return m.group(1) + ("\n" + block if block.endswith("\n") else block) + m.group(4)

    return _BLOCK.sub(fill, text)


def check_names(files: dict[str, str]) -> None:
    """Undefined and unused names in the generated modules (pyflakes rules of ruff, when ruff is installed):
    a dropped definition still called somewhere shows up here, not at the user's first call."""
    ruff = shutil.which("ruff")
    if ruff is None:
        print("make_aif360_patches: ruff not found, undefined-name check skipped", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in files.items():
            f = Path(tmp) / path
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(text, encoding="utf-8")
        res = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--select", "F821,F822,F401,F811",
                              "--output-format", "concise", tmp], capture_output=True, text=True)
    if res.returncode != 0:
        found = res.stdout.replace(tmp + "/", "").strip()
        raise GenerationError(f"the generated modules have undefined or unused names:\n{found}")


def write(out: Path, series: dict[str, str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.patch"):
        old.unlink()
    for name, text in series.items():
        (out / name).write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for the .patch files (default: %(default)s)")
    parser.add_argument("--notes", action="store_true",
                        help="also list the added lines whose prose names plugin-only parts (Dask, mlpack, ...)")
    parser.add_argument("--readme", type=Path, default=None,
                        help="the README whose generated blocks get the series' figures (default: contrib/README.md "
                             "when --out is the default folder, else none)")
    args = parser.parse_args(argv)
    readme = args.readme or (README if args.out.resolve() == OUT_DIR.resolve() else None)
    try:
        series = build()
        text = update_readme(readme.read_text(encoding="utf-8"), readme_blocks(series)) if readme else None
    except GenerationError as err:
        print(f"make_aif360_patches: {err}", file=sys.stderr)
        return 1
    write(args.out, series)
    for name in series:
        print(args.out / name)
    if readme and text is not None:
        readme.write_text(text, encoding="utf-8")
        print(f"{readme} (figures)")
    notes = prose_notes(series)
    if args.notes:
        print("\n".join(notes))
    print(f"{len(notes)} added lines name plugin-only parts in prose (--notes lists them)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
