# The two quick-start commands (README): `make run` and `make test`.
# Both install missing Debian packages first through scripts/install_deps.sh.

JOBS ?= $(shell nproc)
MAKEFLAGS += --no-print-directory
WERROR := $(if $(CI),ON,OFF)

.PHONY: deps run test bench release clean

deps:
	@bash scripts/install_deps.sh

release: deps
	@cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCDENS_WERROR=$(WERROR) >/dev/null
	@cmake --build build/release -j $(JOBS)

# Main job: LSCDE with cross-validation on the bundled Old Faithful data (see scripts/main_job.sh).
run: release
	@bash scripts/main_job.sh build/release/cdens

# Every test, built with AddressSanitizer and UndefinedBehaviorSanitizer (generic x86-64 code,
# so every warning stays an error).
test: deps
	@cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCDENS_SANITIZE=ON \
	  -DCDENS_NATIVE=OFF -DCDENS_BUILD_TESTS=ON -DCDENS_WERROR=$(WERROR) >/dev/null
	@cmake --build build/sanitize -j $(JOBS)
	@cd build/sanitize && ctest --output-on-failure -j $(JOBS)

# Micro-benchmarks (Google Benchmark), Release build.
bench: deps
	@cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DCDENS_BUILD_BENCH=ON \
	  -DCDENS_WERROR=$(WERROR) >/dev/null
	@cmake --build build/bench -j $(JOBS)
	@bash bench/run_micro.sh build/bench

clean:
	rm -rf build out
