#!/usr/bin/python3
"""relative_unity.py — makes a unity build's generated sources name the files they include by
paths relative to themselves, so that ccache gives hits to a checkout at another path.

    tools/relative_unity.py SOURCE_DIR BUILD_DIR

CMake's unity build (CMAKE_UNITY_BUILD) writes BUILD_DIR/**/Unity/unity_*.cxx, each including
its batch of sources by absolute path. ccache hashes a source's text, so a clone at a new path
(a CI checkout) misses the cache for every unity object, even with CCACHE_BASEDIR, which
rewrites only the command line. Run after `cmake --preset …` and before the build: each
include under SOURCE_DIR becomes relative to the unity file's directory. The build tree lives
inside the checkout (the presets' binaryDir), so the relative text is the same in every clone.

Timestamps: CMake rewrites the absolute text at every configure, which would make every unity
object stale. The last relative text is kept beside each unity file (`.relative`); when the
new text is the same, the file gets that copy's timestamp back, so ninja rebuilds only what
changed. A unity file whose batch changed keeps its new timestamp and is rebuilt.

Exit: 0 done (also when BUILD_DIR has no unity file); 2 bad usage.
"""
from __future__ import annotations

import os
import re
import sys

INCLUDE = re.compile(r'^#include "([^"]+)"$', re.MULTILINE)


def relative_text(text: str, source_dir: str, unity_dir: str) -> str:
    """`text` with every include under source_dir made relative to unity_dir."""
    def rewrite(m: re.Match) -> str:
        if not os.path.isabs(m.group(1)):
            return m.group(0)
        path = os.path.realpath(m.group(1))
        if os.path.commonpath([path, source_dir]) != source_dir:
            return m.group(0)
        return '#include "%s"' % os.path.relpath(path, os.path.realpath(unity_dir))
    return INCLUDE.sub(rewrite, text)


def settle(unity: str, source_dir: str) -> bool:
    """Rewrites one unity file; True when its relative text is new (it will be rebuilt)."""
    with open(unity, encoding="utf-8") as f:
        text = f.read()
    rel = relative_text(text, source_dir, os.path.dirname(unity))
    keep = unity + ".relative"
    try:
        with open(keep, encoding="utf-8") as f:
            same = f.read() == rel
    except OSError:
        same = False
    if rel != text:
        with open(unity, "w", encoding="utf-8") as f:
            f.write(rel)
    if same:
        st = os.stat(keep)
        os.utime(unity, ns=(st.st_atime_ns, st.st_mtime_ns))
        return False
    with open(keep, "w", encoding="utf-8") as f:
        f.write(rel)
    st = os.stat(unity)
    os.utime(keep, ns=(st.st_atime_ns, st.st_mtime_ns))
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 3 or not os.path.isdir(argv[1]) or not os.path.isdir(argv[2]):
        print("usage: relative_unity.py SOURCE_DIR BUILD_DIR (both existing directories)",
              file=sys.stderr)
        return 2
    source_dir, build_dir = os.path.realpath(argv[1]), os.path.realpath(argv[2])
    for here, _dirs, files in os.walk(build_dir):
        if os.path.basename(here) != "Unity":
            continue
        for name in files:
            # unity_<n>_cxx.cxx and unity_<n>_c.c; ninja writes their objects and depfiles
            # into the same directory.
            if name.startswith("unity_") and name.endswith((".cxx", ".c")):
                settle(os.path.join(here, name), source_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
