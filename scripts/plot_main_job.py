"""Part of the main job: draws the Old Faithful fit the cdens command saved
(out/faithful_lscde.json) as a heat map of p(eruptions | waiting) with the data on top, through
the Python package."""

import sys

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

import cdens  # noqa: E402
import cdens.plot  # noqa: E402

model_path, data_path, image_path = sys.argv[1:4]
estimator = cdens.load(model_path)
data = np.genfromtxt(data_path, delimiter=",", names=True)
ax = cdens.plot.conditional_density_map(estimator, data["waiting"], data["eruptions"])
ax.set_title(f"LSCDE on Old Faithful (sigma = {estimator.sigma_:g}, "
             f"lambda = {estimator.regularization_:g})")
ax.figure.savefig(image_path, dpi=120)
print(f"heat map of p(eruptions | waiting): {image_path}")
