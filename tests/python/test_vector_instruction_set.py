"""The copies of the vector loops (cdens.vector_instruction_set): each copy this CPU runs, chosen by
CDENS_ISA in a fresh interpreter, fits as the baseline copy does; a copy that cannot run is
refused at import.

Tolerance: the copies add sums in another order (2, 4 or 8 doubles per instruction) and fuse
products, so sums of the n ≤ 400 terms here agree to about n ε = 1e-13 relative; fits that choose
on a grid or run fixed steps (LSCDE, GMM, Parzen, KCDE at fixed bandwidths) choose alike unless two
candidates tie to that precision, and their log-densities agree to 1e-10. KCDE's L-BFGS search
stops where its criterion changes by less than 1e-5 relative, so copies may stop a step apart: its
criterion at the optimum is compared within that tolerance (the C++ side states the same in
tests/cpp/test_vector_instruction_set.cpp).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cdens

COPIES = ("baseline", "avx2", "avx512")

FITS = r"""
import json
import numpy as np
import cdens

rng = np.random.default_rng(12)
x = rng.normal(size=(400, 2))
y = np.sin(2 * x[:, 0]) + 0.3 * (1 + np.abs(x[:, 1])) * rng.normal(size=400)
x_test, y_test = x[:150] + 0.1, y[:150] - 0.05
joint, joint_test = np.c_[x, y], np.c_[x_test, y_test]
result = {"copy": cdens.vector_instruction_set()}
fixed = cdens.KernelCDE(bandwidth=[0.3, 0.6, 0.25], random_state=0, n_jobs=1)
for name, model in (("kcde", fixed), ("lscde", cdens.LSCDE(random_state=0, n_jobs=1))):
    result[name] = model.fit(x, y).log_pdf(x_test, y_test).tolist()
result["kcde_loo_nll"] = cdens.KernelCDE(random_state=0, n_jobs=1).fit(x, y).loo_nll_
for name, model in (("gmm", cdens.GMM(n_components=4, random_state=0, n_jobs=1)),
                    ("parzen", cdens.ParzenWindow(n_jobs=1))):
    result[name] = model.fit(joint).score_samples(joint_test).tolist()
print(json.dumps(result))
"""


def run_with_isa(value, script):
    env = dict(os.environ, CDENS_ISA=value, OMP_WAIT_POLICY="PASSIVE")
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)


def test_every_copy_the_cpu_runs_fits_as_the_baseline_copy():
    fitted = {}
    for copy in COPIES:
        run = run_with_isa(copy, FITS)
        if run.returncode == 0:
            fitted[copy] = json.loads(run.stdout)
            assert fitted[copy]["copy"] == copy
        else:
            # A copy the build lacks (a native or sanitizer build has one) or the CPU cannot run.
            assert ("names no copy of this build's vector loops" in run.stderr
                    or "this CPU cannot run that copy" in run.stderr), run.stderr
    if len(fitted) < 2:
        pytest.skip(f"one copy of the vector loops runs here ({cdens.vector_instruction_set()})")
    assert "baseline" in fitted
    for copy, result in fitted.items():
        assert result["kcde_loo_nll"] == pytest.approx(fitted["baseline"]["kcde_loo_nll"],
                                                       rel=1e-5, abs=0)
        for method in ("kcde", "lscde", "gmm", "parzen"):
            np.testing.assert_allclose(result[method], fitted["baseline"][method], rtol=0,
                                       atol=1e-10, err_msg=f"{copy} copy, {method}")


def test_a_cdens_isa_the_build_cannot_honour_is_refused_at_import():
    run = run_with_isa("avx1024", "import cdens")
    assert run.returncode != 0
    assert "ValueError: CDENS_ISA=avx1024 names no copy of this build's vector loops" in run.stderr
    chosen = cdens.vector_instruction_set()
    assert run_with_isa(chosen, "import cdens; print(cdens.vector_instruction_set())"
                        ).stdout.strip() == chosen
    if chosen == "native":
        # One copy, for this machine's CPU: none of the portable build's can be chosen.
        run = run_with_isa("baseline", "import cdens")
        assert "CDENS_ISA=baseline names no copy of this build's vector loops: it has native" \
            in run.stderr
