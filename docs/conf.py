"""Sphinx configuration (build: sphinx-build -W -b html docs docs/_build/html)."""

import os
import re
import sys

sys.path.insert(0, os.path.abspath(".."))
os.environ.setdefault("MPLBACKEND", "Agg")

import aif360_subjective  # noqa: E402

project = "aif360-subjective"
author = "aif360-subjective contributors"
copyright = "2026, aif360-subjective contributors"  # noqa: A001 - Sphinx's name
release = aif360_subjective.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.autosummary",
]
autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autoclass_content = "both"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# The API reference documents our own names; members inherited from AIF360 are documented by AIF360.
templates_path = ["_templates"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = []
nitpicky = False

# Docstrings write absolute values as |x| (e.g. "mean of |statistical parity|"); reStructuredText would read
# that as a substitution reference. Escape such pairs of bars outside inline literals.
_ABS = re.compile(r"(?<![`\\|])\|([^|`\n]+?)\|(?![`|_])")


def _escape_absolute_values(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("| ", "+-", "+=")):
            continue  # line blocks and grid tables
        lines[i] = _ABS.sub(r"\\|\1\\|", line)


def setup(app):
    app.connect("autodoc-process-docstring", _escape_absolute_values)
