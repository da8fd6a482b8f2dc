#!/usr/bin/env bash
# The main job (`make run`): LSCDE with cross-validation on the bundled Old Faithful data
# (x = waiting time, y = eruption time), fitted on a seeded half of the rows and scored on the
# other half. Prints the CV table, the chosen sigma and lambda and the held-out NLL; writes the
# model, a density grid and (through the Python package) a heat map of the fit under out/.
set -euo pipefail
cdens=${1:?usage: scripts/main_job.sh PATH_TO_CDENS PYTHON_WITH_CDENS}
python=${2:?usage: scripts/main_job.sh PATH_TO_CDENS PYTHON_WITH_CDENS}
cd "$(dirname "$0")/.."
mkdir -p out
"$cdens" fit data/faithful.csv --method lscde --x waiting --y eruptions \
  --holdout 0.5 --seed 1 --out out/faithful_lscde.json
"$cdens" grid out/faithful_lscde.json --x-values 45,50,55,60,65,70,75,80,85,90,95 \
  --y-grid 1:5.5:181 --out out/faithful_density_grid.csv
echo "density of eruptions given waiting on a grid: out/faithful_density_grid.csv"
"$python" scripts/plot_main_job.py out/faithful_lscde.json data/faithful.csv out/faithful_lscde.png
