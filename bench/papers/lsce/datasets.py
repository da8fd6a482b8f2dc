"""The UCI rows of Table 1 and Table 2 of Tangkaratt, Xie & Sugiyama (LSCE paper, section 3.3):
files in data/, the columns used as x and y, the training size n, and the paper's numbers.

The paper names the datasets and (d_x, d_y) only. y is the dataset's usual response (the last
column of the UCI description) and x every other column, which gives the paper's (d_x, d_y)
for all eleven; Stock's two outputs are the two Istanbul indices (ISE in TL and in USD), its
seven inputs the other markets.

table1[method] = (mean, standard error) of the SQ error over 10 runs as printed, for the methods
LSCE/LSCDE, LSCE/ε-KDE, LSMI/LSCDE, LSMI/ε-KDE, None/LSCDE, None/ε-KDE; `scale` is the table's
"Scale" column (we read a printed value v with scale s as the error v · s). table2[method] =
(mean, standard error) of the chosen d_z.
"""

from typing import NamedTuple

METHODS = ("LSCE/LSCDE", "LSCE/ε-KDE", "LSMI/LSCDE", "LSMI/ε-KDE", "None/LSCDE", "None/ε-KDE")


class Dataset(NamedTuple):
    name: str
    file: str
    x: tuple
    y: tuple
    n: int
    scale: float
    table1: dict
    table2: dict


def row(*values):
    return dict(zip(METHODS, values))


def dims(*values):
    return dict(zip(METHODS[:4], values))


WINE = ("fixed_acidity", "volatile_acidity", "citric_acid", "residual_sugar", "chlorides",
        "free_sulfur_dioxide", "total_sulfur_dioxide", "density", "ph", "sulphates", "alcohol")

DATASETS = (
    Dataset("Housing", "boston_housing.csv",
            ("crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax", "ptratio",
             "b", "lstat"), ("medv",), 100, 1,
            row((-1.73, 0.09), (-1.57, 0.11), (-1.91, 0.05), (-1.62, 0.08), (-1.41, 0.05),
                (-1.13, 0.01)),
            dims((3.9, 0.74), (2.0, 0.79), (2.0, 0.39), (1.3, 0.15))),
    Dataset("Auto MPG", "auto_mpg.csv",
            ("cylinders", "displacement", "horsepower", "weight", "acceleration", "model_year",
             "origin"), ("mpg",), 100, 1,
            row((-1.80, 0.04), (-1.74, 0.06), (-1.85, 0.04), (-1.77, 0.05), (-1.75, 0.04),
                (-1.46, 0.04)),
            dims((3.2, 0.66), (1.3, 0.15), (2.1, 0.67), (1.1, 0.10))),
    Dataset("Servo", "servo.csv", ("motor", "screw", "pgain", "vgain"), ("rise_time",), 50, 1,
            row((-2.92, 0.18), (-3.03, 0.14), (-2.69, 0.18), (-2.95, 0.11), (-2.62, 0.09),
                (-2.72, 0.06)),
            dims((1.9, 0.35), (2.4, 0.40), (2.2, 0.33), (1.6, 0.31))),
    Dataset("Yacht", "yacht.csv",
            ("lcb", "prismatic_coef", "length_displacement", "beam_draught", "length_beam",
             "froude"), ("resistance",), 80, 1,
            row((-6.46, 0.02), (-6.23, 0.14), (-5.63, 0.26), (-5.47, 0.29), (-1.72, 0.04),
                (-2.95, 0.02)),
            dims((1.0, 0.0), (1.0, 0.0), (1.0, 0.0), (1.0, 0.0))),
    Dataset("Physicochem", "protein.csv", tuple(f"f{k}" for k in range(1, 10)), ("rmsd",), 500,
            1,
            row((-1.19, 0.01), (-0.99, 0.02), (-1.20, 0.01), (-0.97, 0.02), (-1.19, 0.01),
                (-0.91, 0.01)),
            dims((6.5, 0.58), (1.9, 0.28), (6.6, 0.58), (2.6, 0.86))),
    Dataset("White Wine", "wine_white.csv", WINE, ("quality",), 400, 1,
            row((-2.31, 0.01), (-2.47, 0.15), (-2.35, 0.02), (-2.60, 0.12), (-2.06, 0.01),
                (-1.89, 0.01)),
            dims((1.2, 0.13), (1.0, 0.0), (1.4, 0.31), (1.0, 0.0))),
    Dataset("Red Wine", "wine_red.csv", WINE, ("quality",), 300, 1,
            row((-2.85, 0.02), (-1.95, 0.17), (-2.82, 0.03), (-1.93, 0.17), (-2.03, 0.02),
                (-1.13, 0.04)),
            dims((1.0, 0.0), (1.3, 0.15), (1.2, 0.20), (1.0, 0.0))),
    Dataset("Forest Fires", "forest_fires.csv",
            ("x", "y", "month", "day", "ffmc", "dmc", "dc", "isi", "temp", "rh", "wind", "rain"),
            ("area",), 100, 1,
            row((-7.18, 0.02), (-6.93, 0.03), (-6.93, 0.04), (-6.93, 0.02), (-3.40, 0.07),
                (-6.96, 0.02)),
            dims((1.2, 0.20), (4.9, 0.99), (1.4, 0.22), (6.8, 1.23))),
    Dataset("Concrete", "concrete.csv",
            ("cement", "slag", "fly_ash", "water", "superplasticizer", "coarse_aggregate",
             "fine_aggregate", "age"), ("strength",), 300, 1,
            row((-1.36, 0.03), (-1.20, 0.06), (-1.30, 0.03), (-1.18, 0.04), (-1.11, 0.02),
                (-0.80, 0.03)),
            dims((1.0, 0.0), (1.0, 0.0), (1.2, 0.13), (1.0, 0.0))),
    Dataset("Energy", "energy.csv", tuple(f"x{k}" for k in range(1, 9)), ("y1", "y2"), 200, 10,
            row((-7.13, 0.04), (-4.18, 0.22), (-6.04, 0.47), (-3.41, 0.49), (-2.12, 0.06),
                (-1.95, 0.14)),
            dims((5.9, 0.10), (3.9, 0.80), (2.1, 0.10), (2.0, 0.30))),
    Dataset("Stock", "stock.csv", ("sp", "dax", "ftse", "nikkei", "bovespa", "eu", "em"),
            ("ise_tl", "ise_usd"), 100, 1,
            row((-8.37, 0.53), (-9.75, 0.37), (-9.42, 0.50), (-10.27, 0.33), (-7.35, 0.13),
                (-9.25, 0.14)),
            dims((3.2, 0.83), (2.1, 0.59), (2.1, 0.60), (2.7, 0.67))),
)

# The robot rows (section 3.4): joints, (d_x, d_y), transitions generated, n, scale, Table 1,
# Table 2. Our simulator is a stand-in (robot_arm.py), so these are not like-for-like.
ROBOT = (
    (2, 500, 100, 1, row((-10.49, 0.86), (-7.50, 0.54), (-8.00, 0.84), (-7.44, 0.60),
                         (-3.95, 0.13), (-3.65, 0.14)),
     dims((2.9, 0.31), (2.7, 0.21), (2.5, 0.31), (2.0, 0.0))),
    (4, 1000, 200, 10, row((-2.81, 0.21), (-1.73, 0.14), (-2.06, 0.25), (-1.38, 0.16),
                           (-0.83, 0.03), (-0.75, 0.01)),
     dims((5.2, 0.68), (6.2, 0.63), (5.4, 0.67), (4.6, 0.43))),
    (9, 1500, 500, 100, row((-8.37, 0.83), (-2.44, 0.17), (-9.74, 0.63), (-2.37, 0.51),
                            (-1.60, 0.36), (-0.89, 0.02)),
     dims((13.8, 1.28), (15.3, 0.94), (11.4, 0.75), (13.2, 1.02))),
)
