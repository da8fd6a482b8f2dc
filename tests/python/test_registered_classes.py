"""A registered method needs no Python class written by hand: cdens.registered makes one from
its registry entry. Made here for methods that do have a hand-written class, the made class
must fit the same model and answer the same queries to the bit, and keep scikit-learn's
contract."""

import numpy as np
import pytest
from sklearn.base import clone

import cdens
from cdens import registered
from cdens._methods import cheap_estimator, methods


def made_like(estimator):
    """An estimator of the class made from the registry entry, with the same parameters."""
    entry = methods()[estimator._method]
    return registered.estimator_class(entry)(**estimator.get_params())


@pytest.fixture
def rows():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(80, 2))
    y = np.sin(x[:, 0]) + 0.3 * rng.normal(size=80)
    return x, y


def test_a_made_density_class_fits_the_hand_written_ones_model(rows):
    x, _ = rows
    written = cheap_estimator("parzen").fit(x)
    made = made_like(written).fit(x)
    assert type(made) is not type(written) and type(made).__name__ == "ParzenWindow"
    assert isinstance(made, cdens.DensityEstimator)
    np.testing.assert_array_equal(made.score_samples(x), written.score_samples(x))
    assert made.bandwidth_ == written.bandwidth_


def test_a_made_conditional_class_fits_the_hand_written_ones_model(rows):
    x, y = rows
    written = cheap_estimator("lscde").fit(x, y)
    made = made_like(written).fit(x, y)
    assert isinstance(made, cdens.ConditionalDensityEstimator)
    np.testing.assert_array_equal(made.log_pdf(x, y), written.log_pdf(x, y))
    np.testing.assert_array_equal(made.predict(x), written.predict(x))
    assert clone(made).get_params() == made.get_params()
    assert "lscde" in type(made).__doc__


def test_only_families_with_a_generic_base_get_made_classes():
    press = methods()["press"]
    with pytest.raises(ImportError, match="no module of cdens defines"):
        registered.estimator_class(press)


def test_the_package_makes_a_class_for_every_method_without_one():
    namespace = {name: getattr(cdens, name) for name in cdens.__all__}
    del namespace["SKD"]
    try:
        assert registered.define_classes(namespace) == ["SKD"]
        assert namespace["SKD"]._method == "skd" and registered.SKD is namespace["SKD"]
        assert registered.define_classes({**namespace}) == []
    finally:
        del registered.SKD
