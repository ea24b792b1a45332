"""testsupport.py — what the reports/ tests share: skipping, not failing, without Debian's
Python packages.

ctest registers each test with SKIP_RETURN_CODE 77 (reports/CMakeLists.txt): a machine without
python3-matplotlib or python3-scipy reports the test as skipped with the package to install,
instead of a failure that says nothing about the code.
"""
from __future__ import annotations

import importlib
import sys

SKIP = 77

PACKAGES = {"matplotlib": "python3-matplotlib", "scipy": "python3-scipy"}


def require(*modules: str) -> None:
    missing = []
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError:
            missing.append(PACKAGES.get(m, m))
    if missing:
        print(f"skipped: {sys.executable} lacks {', '.join(missing)} "
              f"(apt-get install {' '.join(missing)}; ./run.sh installs them for the report)")
        sys.exit(SKIP)
