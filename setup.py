"""Build the compiled core: every ``.pyx`` under ``src/evofeat`` becomes one extension module.

Metadata lives in ``pyproject.toml``; this file only lists the extensions.
Cython translates each module to C and the system C compiler builds it;
editing one ``.pyx`` rebuilds only that module.
"""

from __future__ import annotations

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


def _extensions() -> list[Extension]:
    root = Path("src")
    exts = []
    for pyx in sorted(root.glob("evofeat/**/*.pyx")):
        name = ".".join(pyx.relative_to(root).with_suffix("").parts)
        exts.append(
            Extension(
                name,
                [str(pyx)],
                include_dirs=[np.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")],
                extra_compile_args=["-O2"] if sys.platform != "win32" else [],
            )
        )
    return exts


setup(
    ext_modules=cythonize(
        _extensions(),
        compiler_directives={"language_level": 3, "embedsignature": True},
        include_path=["src"],
    ),
    cmdclass={"build_ext": BuildExt},
)
