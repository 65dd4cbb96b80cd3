"""Sphinx configuration for cuforge's documentation (``docs/``).

Built in the test suite with warnings as errors (tests/python/test_docs.py):

    python -m sphinx -W --keep-going -b html docs build/docs

The pages are Markdown (MyST). The API reference is generated at build time
from the package's own lists of public names (``cuforge.__all__`` and
``cuforge.cuda.HOST_NAMES``) by ``_ext/cuforge_api.py``, so a name added to
the package appears here with its docstring, and a name without one fails the
build.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

import cuforge  # noqa: E402

project = "cuforge"
author = "The cuforge developers"
copyright = "2026, The cuforge developers"
release = version = cuforge.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "cuforge_api"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
html_theme = "alabaster"
html_title = f"cuforge {release}"
# Links from the design notes into the source tree (../runtime/src/...) are
# files of the repository, not pages: shown as text on the site.
suppress_warnings = []
nitpicky = False
