"""Builds the _core extension module with the project's own CMake build (CDENS_BUILD_PYTHON).

Environment: CDENS_CMAKE_ARGS adds CMake arguments (e.g. "-DCDENS_NATIVE=ON" to optimise for
this machine's CPU; the default is portable); CDENS_BUILD_DIR reuses a CMake build tree (the
Makefile shares build/release with the cdens command, so both are compiled once and with the
same flags).
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        output_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = Path(os.environ.get("CDENS_BUILD_DIR") or Path(self.build_temp) / "cmake")
        build_dir = (ROOT / build_dir).resolve()
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DCDENS_BUILD_PYTHON=ON",
            "-DCDENS_STATIC_OPENBLAS=ON",
            f"-DCDENS_PYTHON_OUTPUT_DIR={output_dir}",
            f"-DPython3_EXECUTABLE={sys.executable}",
            *shlex.split(os.environ.get("CDENS_CMAKE_ARGS", "")),
        ]
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(configure, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "cdens_python",
                        "-j", jobs], check=True)


setup(ext_modules=[CMakeExtension("cdens._core")], cmdclass={"build_ext": CMakeBuild})
