"""Build the compiled core: every ``.pyx`` under ``src/evofeat`` becomes one extension module.

Metadata lives in ``pyproject.toml``; this file only lists the extensions.
Cython translates each module to C and the system C compiler builds it;
editing one ``.pyx`` rebuilds only that module.

``EVOFEAT_CYTHON_CHECKS=1`` builds every extension with Cython's
``boundscheck`` and ``wraparound`` on (an out-of-range index raises
``IndexError`` instead of reading or writing past an array): slower, for CI.
A file's ``# cython:`` header overrides the directives given here, so the
checked build compiles copies of the Cython sources, under
``build/cython-checks``, whose headers say ``boundscheck=True,
wraparound=True``; a source that turns the checks off anywhere else (a
decorator or a ``with`` block) stops the build.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_HELP = """
evofeat's compiled core needs a C compiler, and none could be run ({error}).
Install one, then run the same pip command again:
  Debian/Ubuntu: sudo apt-get install build-essential python3-dev
  Fedora/RHEL:   sudo dnf install gcc python3-devel
  macOS:         xcode-select --install
  Windows:       the "Desktop development with C++" workload of Visual Studio Build Tools
"""


class BuildExt(build_ext):
    """``build_ext`` that says what to install when there is no working C compiler."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # distutils raises several unrelated types here
            if type(exc).__name__ in {
                "CompileError",
                "DistutilsExecError",
                "DistutilsPlatformError",
                "CCompilerError",
            }:
                sys.stderr.write(_HELP.format(error=exc))
            raise


CHECKS = os.environ.get("EVOFEAT_CYTHON_CHECKS", "") not in ("", "0")
CHECKED_ROOT = Path("build") / "cython-checks"
_CHECKS_ON = {"boundscheck": True, "wraparound": True}
_HEADER = re.compile(r"^#\s*cython\s*:")
_CHECK_OFF = re.compile(r"\b(boundscheck|wraparound)\s*(=\s*False|\(\s*False)")


def _checked_copy(root: Path) -> Path:
    """Copies of the Cython sources (and package ``__init__`` files) with the checks on in their
    headers, under :data:`CHECKED_ROOT`; a file is rewritten only when its text changes."""
    for src in sorted(root.glob("evofeat/**/*")):
        if src.suffix not in (".pyx", ".pxd") and src.name != "__init__.py":
            continue
        lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
        for k, line in enumerate(lines):
            if _HEADER.match(line):
                lines[k] = re.sub(r"\b(boundscheck|wraparound)\s*=\s*False", r"\1=True", line)
            elif _CHECK_OFF.search(line):
                raise SystemExit(
                    f"{src}:{k + 1} turns Cython's checks off outside the file header, where the "
                    f"checked build (EVOFEAT_CYTHON_CHECKS=1) cannot turn them on: {line.strip()}"
                )
        text = "".join(lines)
        dest = CHECKED_ROOT / src.relative_to(root)
        if not dest.exists() or dest.read_text(encoding="utf-8") != text:
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8")
    return CHECKED_ROOT


def _extensions() -> list[Extension]:
    root = Path("src")
    source_root = _checked_copy(root) if CHECKS else root
    exts = []
    for pyx in sorted(root.glob("evofeat/**/*.pyx")):
        name = ".".join(pyx.relative_to(root).with_suffix("").parts)
        exts.append(
            Extension(
                name,
                [str(source_root / pyx.relative_to(root))],
                include_dirs=[np.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")],
                extra_compile_args=["-O2"] if sys.platform != "win32" else [],
            )
        )
    return exts


setup(
    ext_modules=cythonize(
        _extensions(),
        compiler_directives={
            "language_level": 3,
            "embedsignature": True,
            **(_CHECKS_ON if CHECKS else {}),
        },
        include_path=[str(CHECKED_ROOT if CHECKS else Path("src"))],
    ),
    cmdclass={"build_ext": BuildExt},
)
