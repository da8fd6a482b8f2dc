# The two quick-start commands (README): `make run` and `make test`.
# Both install missing Debian packages first through scripts/install_deps.sh.

JOBS ?= $(shell nproc)
MAKEFLAGS += --no-print-directory
WERROR := $(if $(CI),ON,OFF)

.PHONY: deps run test format-check lint-python test-cpp test-mpi test-python test-r test-install test-robustness test-fuzz fuzz \
  sanitize-build \
  python r check-r bench bench-papers bench-peers release clean

# Debian's interpreter (the package's dependencies are Debian's python3-* packages), and a
# virtual environment that sees them, for the cdens Python package.
PYTHON ?= /usr/bin/python3
VENV := build/venv

# OpenBLAS 0.3.21 (Debian 12) does not know some recent Intel models (a virtual machine's
# "Intel Xeon Processor" with AVX-512) and falls back to its Prescott (SSE2) kernels, whose
# dsymv_L (Eigen's tridiagonalisation calls it) reads past the end of its matrix, an over-read of
# the GotoBLAS kernels that OpenBLAS fixed for zsymv only (its pull requests 3455 and 3567):
# under the sanitizers' allocator the read can cross into an unmapped page (LsceTest, one CI run
# in three on such a machine). Where the variable is unset and the CPU has AVX2, the kernels are
# named after its features, as OpenBLAS does for the models it knows.
ifeq ($(origin OPENBLAS_CORETYPE),undefined)
  OPENBLAS_CORETYPE := $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo SkylakeX || \
    (grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo Haswell))
endif
ifneq ($(OPENBLAS_CORETYPE),)
  export OPENBLAS_CORETYPE
endif

deps:
	@bash scripts/install_deps.sh

# -march=native: this machine's builds run here only (an installed library or a pip install
# without the Makefile stays portable: CDENS_NATIVE is off by default).
release: deps
	@cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCDENS_NATIVE=ON \
	  -DCDENS_WERROR=$(WERROR) >/dev/null
	@cmake --build build/release -j $(JOBS)

# The Python package, installed into build/venv as the README tells a user to. It shares the
# build tree of the cdens command, so the tests can compare the two bit for bit.
python: release
	@[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv --system-site-packages $(VENV)
	@CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) CDENS_BUILD_DIR=build/release \
	  CDENS_CMAKE_ARGS="-DCDENS_NATIVE=ON -DCDENS_WERROR=$(WERROR)" \
	  $(VENV)/bin/pip install --no-build-isolation --quiet .

# The R package (R/cdens), installed as the README tells an R user to (R CMD INSTALL) into
# build/r-library. Its Makevars builds the Rcpp glue in the release build tree (CDENS_BUILD_DIR),
# so the library is compiled once for the command, Python and R; the install log is shown only
# when it fails.
R_LIBRARY := build/r-library
r: release
	@mkdir -p $(R_LIBRARY)
	@CDENS_BUILD_DIR=build/release CDENS_JOBS=$(JOBS) R CMD INSTALL -l $(R_LIBRARY) R/cdens \
	  > build/r-install.log 2>&1 || { cat build/r-install.log; exit 1; }

# R CMD check of the package as R CMD build packs it, without network (a profile whose only
# repository is an empty local one, which the dependency checks read; docs/r.md explains the notes),
# over the release build tree (CDENS_SOURCE_DIR: the tarball holds the package, not the library);
# the check's own testthat run compares with the command and Python as test-r does.
check-r: release python
	@rm -rf build/r-check && mkdir -p build/r-check
	@mkdir -p build/r-check/repository/src/contrib && touch build/r-check/repository/src/contrib/PACKAGES
	@echo 'options(repos = c(local = "file://$(CURDIR)/build/r-check/repository"))' \
	  > build/r-check/offline.Rprofile
	@cd build/r-check && R CMD build $(CURDIR)/R/cdens > build.log 2>&1 || { cat build.log; exit 1; }
	@cd build/r-check && R_PROFILE_USER=$(CURDIR)/build/r-check/offline.Rprofile \
	  CDENS_SOURCE_DIR=$(CURDIR) CDENS_BUILD_DIR=build/release CDENS_JOBS=$(JOBS) NOT_CRAN=true \
	  CDENS_MAKE_TEST=1 \
	  CDENS_CLI=$(CURDIR)/build/release/cdens CDENS_PYTHON=$(CURDIR)/$(VENV)/bin/python \
	  R CMD check --no-manual cdens_*.tar.gz

# Main job: LSCDE with cross-validation on the bundled Old Faithful data (see scripts/main_job.sh).
run: release python
	@bash scripts/main_job.sh build/release/cdens $(VENV)/bin/python

# Every test: the C++ sources' layout (clang-format), the Python sources' lint, the C++ suite
# built with AddressSanitizer and UndefinedBehaviorSanitizer (generic x86-64 code, so every warning
# stays an error), then the Python suite against the package installed the README's way, and
# the readers' fuzzers from the sanitizer build.
test: format-check lint-python test-cpp test-mpi test-python test-r test-install test-robustness test-fuzz

# Every C++ source as .clang-format lays it out.
format-check: deps
	@clang-format --dry-run -Werror $$(git ls-files '*.cpp' '*.hpp')

# The Python sources (package, tests, benchmarks, scripts, the R tests' helper) against flake8
# (.flake8).
lint-python: deps
	@$(PYTHON) -m flake8 python tests bench scripts examples R

# The C++ suite and the fuzzers of the readers share one build: clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, the library instrumented for libFuzzer's coverage
# (-fsanitize=fuzzer-no-link; only the harnesses link libFuzzer itself). Two builds of the
# library (gcc for the tests, clang for the fuzzers) took 13 + 6 minutes of a fresh make test.
# -O1 with line tables only: the compile of an Eigen-heavy file takes half the time of -O2 -g
# (conditional_mixture.cpp 40.7 s -> 20.4 s with the sanitizers), and at -O1 clang does not
# vectorise, so it would warn at every `omp simd` loop it leaves scalar (-Wno-pass-failed).
sanitize-build: deps
	@cmake -S . -B build/sanitize -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG -Wno-pass-failed" \
	  -DCDENS_SANITIZE=ON -DCDENS_FUZZ=ON -DCDENS_NATIVE=OFF -DCDENS_BUILD_TESTS=ON \
	  -DCDENS_WERROR=$(WERROR) >/dev/null
	@cmake --build build/sanitize -j $(JOBS)

test-cpp: sanitize-build
	@cd build/sanitize && ctest --output-on-failure -j $(JOBS)

# Fits on many processes: the MPI tests (tests/mpi), which mpirun runs on 1, 2, 3 and 4
# processes, over MPI variants of the library and the command linked from the release build's
# objects (CDENS_MPI_TESTS: only the MPI session, the tests and the links are compiled here).
# Their own -O1 build of the whole library took 630 s on 2 cores without ccache.
test-mpi: release
	@cmake -S . -B build/release -DCDENS_MPI_TESTS=ON >/dev/null
	@cmake --build build/release -j $(JOBS) --target cdens_mpi_tests
	@cd build/release && ctest --output-on-failure -L mpi

test-python: python
	@CDENS_CLI=build/release/cdens MPLBACKEND=Agg OMP_WAIT_POLICY=PASSIVE \
	  $(VENV)/bin/python -m pytest -q tests/python
	@echo "LSCDE paper, Table 1, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/lscde_table1/run.py --quick \
	  --estimators $(TABLE1_ESTIMATORS)
	@echo "Chen, Hong & Harris 2010, Tables I-IX, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/ofr_tables/run.py --quick
	@echo "LSCE paper, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/lsce/run.py --quick
	@echo "PRESS paper, section 5, quick mode:"
	@MPLBACKEND=Agg OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/press/run.py --quick \
	  --out-dir build/press-quick
	@echo "SA-CDE paper, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/sacde/run.py --quick \
	  --out build/sacde_quick
	@echo "Fits on a busy machine (two at once; beside busy processes), quick mode:"
	@$(VENV)/bin/python bench/robustness/busy_machine.py --cli build/release/cdens --quick
	@echo "GMM by EM against scikit-learn from the same start, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/peers/density/gmm_em.py --quick
	@echo "Parzen window at large n against scikit-learn, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/peers/density/parzen_large_n.py --quick
	@echo "KCDE log-densities at scale, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/scale/kcde_queries.py --quick
	@echo "Large tables through the command (fit --test, predict, evaluate, sample), quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/scale/large_tables.py --quick
	@echo "Loading a large KCDE model file, quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/scale/model_file_memory.py --quick
	@echo "Outputs with an atom (zero-inflated, known truth; Fair's affairs), quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/peers/cde/zero_inflated.py --quick
	@echo "UCI regression benchmark (../shared/data/uci), quick mode:"
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/peers/uci/run.py --quick

# The R package's testthat suite (R/cdens/tests): every registered method from R, answers equal to
# the command's and Python's on the same model files, interrupts and threads.
test-r: r python
	@NOT_CRAN=true CDENS_MAKE_TEST=1 CDENS_CLI=$(CURDIR)/build/release/cdens \
	  CDENS_PYTHON=$(CURDIR)/$(VENV)/bin/python \
	  R_LIBS=$(CURDIR)/$(R_LIBRARY) OMP_WAIT_POLICY=PASSIVE Rscript -e \
	  'testthat::test_dir("R/cdens/tests/testthat", package = "cdens", load_package = "installed", reporter = "summary", stop_on_failure = TRUE)'

# The installed package (the API headers of include/, every one in cdens/cdens.hpp, and the CMake
# package files) and a program outside the tree that builds against it with find_package(cdens)
# and checks its fit.
test-install: release
	@rm -rf build/install build/example
	@cmake --install build/release --prefix build/install >/dev/null
	@for header in $$(cd build/install/include && find cdens -name '*.hpp' ! -name cdens.hpp); do \
	  grep -q "\"$$header\"" include/cdens/cdens.hpp || \
	    { echo "include/cdens/cdens.hpp does not include $$header"; exit 1; }; done
	@cmake -S examples/find_package -B build/example -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_PREFIX_PATH=$(CURDIR)/build/install >/dev/null
	@cmake --build build/example -j $(JOBS)
	@OMP_WAIT_POLICY=PASSIVE build/example/faithful_lscde data/faithful.csv

# The CLI against a corpus of hostile inputs, and properties of the Python API over arbitrary
# arrays and parameters (tests/robustness/README.md).
# Then the same answers, bit for bit, round after round beside two busy processes, on any
# thread count, from the command and from Python (issue 55), with the C++ thread-count tests.
test-robustness: python sanitize-build
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python tests/robustness/run_corpus.py \
	  --cli build/release/cdens
	@CDENS_CLI=build/release/cdens OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python -m pytest -q \
	  -p no:cacheprovider tests/robustness
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python tests/robustness/same_answer_under_load.py \
	  --cli build/release/cdens --gtest build/sanitize/tests/cpp/cdens_tests --rounds 3

# libFuzzer harnesses of the CSV and model-file readers (tests/fuzz), from the sanitizer build:
# FUZZ_SECONDS per harness in make test, half an hour each in make fuzz.
FUZZ_SECONDS ?= 25
test-fuzz: sanitize-build
	@bash tests/fuzz/run.sh build/sanitize $(FUZZ_SECONDS)

fuzz: sanitize-build
	@bash tests/fuzz/run.sh build/sanitize 1800

# The paper reproductions in full (bench/papers, docs/benchmarks.md); results go to out/.
TABLE1_ESTIMATORS := lscde,ekde,rkde,lscde-numpy
bench-papers: python
	@mkdir -p out
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/lscde_table1/run.py \
	  --estimators $(TABLE1_ESTIMATORS),rkde-raw,lscde-numpy-fine --csv out/table1_runs.csv \
	  | tee out/table1.md
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/ofr_tables/run.py \
	  --csv out/ofr_tables_runs.csv 2>/dev/null | tee out/ofr_tables.md
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/ofr_tables/run.py --timing \
	  2>/dev/null | tee out/ofr_gskd_timing.md
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/lsce/run.py --out out/lsce \
	  | tee out/lsce.md
	@MPLBACKEND=Agg OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/press/run.py \
	  --seeds 0,1,2,3,4 --out-dir out/press | tee out/press.md
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/papers/sacde/run.py --out out/sacde \
	  | tee out/sacde.md

# Our estimators against peers on the same splits (bench/peers, docs/benchmarks.md); takes about
# two hours, most of it statsmodels (the conditional peers, KCDE at large n, the regression tables).
bench-peers: python
	@mkdir -p out
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/peers/cde/run.py | tee out/peers_cde.md
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/peers/cde/kcde_large_n.py \
	  | tee out/kcde_large_n.md
	@OMP_WAIT_POLICY=PASSIVE $(VENV)/bin/python bench/peers/cde/regression_tables.py \
	  | tee out/regression_tables.md

# Micro-benchmarks (Google Benchmark), Release build.
bench: deps
	@cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DCDENS_BUILD_BENCH=ON \
	  -DCDENS_NATIVE=ON -DCDENS_WERROR=$(WERROR) >/dev/null
	@cmake --build build/bench -j $(JOBS)
	@bash bench/run_micro.sh build/bench

clean:
	rm -rf build out
