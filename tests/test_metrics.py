"""Tests of binn_utils.engine.metrics."""

import numpy as np
import pytest

from binn_utils.engine.metrics import (
                                       median_iqr,
                                       observed_range,
                                       operator_error,
                                       operator_grid,
                                       relative_l2,
                                       relative_l2_many,
                                       )


def test_relative_l2_known_values():
    true = np.array([[3.0, 0.0], [0.0, 4.0]])  # norm 5
    assert relative_l2(true, true) == 0.0
    assert relative_l2(true + np.array([[0.0, 0.0], [0.0, 1.0]]), true) == pytest.approx(0.2)
    assert relative_l2(np.zeros_like(true), true) == pytest.approx(1.0)
    assert relative_l2(2 * true, true) == pytest.approx(1.0)


def test_relative_l2_errors_and_nan():
    true = np.ones((2, 3))
    with pytest.raises(ValueError):
        relative_l2(np.ones((3, 2)), true)
    with pytest.raises(ValueError):
        relative_l2(np.ones((2, 3)), np.zeros((2, 3)))
    pred = np.ones((2, 3))
    pred[1, 2] = np.nan
    assert np.isnan(relative_l2(pred, true))
    pred[1, 2] = np.inf
    assert np.isnan(relative_l2(pred, true))


def test_relative_l2_many():
    true = np.ones((2, 3))
    preds = np.stack([true, 1.5 * true, np.full((2, 3), np.nan)])
    out = relative_l2_many(preds, true)
    assert out.shape == (3,)
    np.testing.assert_allclose(out[:2], [0.0, 0.5])
    assert np.isnan(out[2])
    with pytest.raises(ValueError):
        relative_l2_many(np.ones((3, 3, 2)), true)
    with pytest.raises(ValueError):
        relative_l2_many(true, true)


def test_observed_range_and_grid():
    u = np.array([[0.2, np.nan], [-0.1, 0.9]])
    assert observed_range(u) == (-0.1, 0.9)
    g = operator_grid(observed_range(u), n=5)
    np.testing.assert_allclose(g, [-0.1, 0.15, 0.4, 0.65, 0.9])
    assert operator_grid((0, 1)).shape == (200,)
    with pytest.raises(ValueError):
        observed_range([np.nan])
    with pytest.raises(ValueError):
        operator_grid((1.0, 1.0))


def test_operator_error_relative_and_zero_truth():
    u = np.linspace(0, 1, 11)
    true = 3 * u**2
    assert operator_error(true, true) == 0.0
    assert isinstance(operator_error(1.1 * true, true), float)
    assert operator_error(1.1 * true, true) == pytest.approx(0.1)
    learned = np.stack([true, 0.5 * true, np.full_like(u, np.nan)])
    err = operator_error(learned, true)
    assert err.shape == (3,)
    np.testing.assert_allclose(err[:2], [0.0, 0.5])
    assert np.isnan(err[2])
    # identically zero truth (absent mechanism): absolute RMS
    zero = np.zeros_like(u)
    assert operator_error(np.full_like(u, 0.2), zero) == pytest.approx(0.2)
    np.testing.assert_allclose(operator_error(np.stack([zero, -0.3 + zero]), zero), [0.0, 0.3])
    with pytest.raises(ValueError):
        operator_error(np.ones(5), true)
    with pytest.raises(ValueError):
        operator_error(np.ones((2, 3, 11)), true)


def test_median_iqr_known_values():
    s = median_iqr([1, 2, 3, 4, 5])
    assert s == dict(median=3.0, q25=2.0, q75=4.0, n=5, n_failed=0)


def test_median_iqr_counts_failures():
    s = median_iqr([1.0, np.nan, 3.0, 2.0, np.nan])
    assert s["n"] == 5 and s["n_failed"] == 2
    assert s["median"] == 2.0 and s["q25"] == 1.5 and s["q75"] == 2.5
    s = median_iqr(np.full(4, np.nan))
    assert s["n"] == 4 and s["n_failed"] == 4
    assert np.isnan(s["median"]) and np.isnan(s["q25"]) and np.isnan(s["q75"])
    s = median_iqr([])
    assert s["n"] == 0 and s["n_failed"] == 0 and np.isnan(s["median"])


def test_relative_error_in_the_spectral_norm():
    """The authors' Fig. 5 code: np.linalg.norm(A, 2) of the (t, x) matrix, the largest
    singular value; never larger than the Frobenius norm, equal for a rank-one error."""
    from binn_utils.engine.metrics import relative_l2, relative_l2_many
    rng = np.random.default_rng(0)
    true = rng.random((7, 71)) + 0.5
    pred = true + 0.01 * rng.standard_normal((7, 71))
    s = relative_l2(pred, true, norm="spectral")
    assert s == pytest.approx(np.linalg.svd(pred - true, compute_uv=False)[0] /
                              np.linalg.svd(true, compute_uv=False)[0], rel=1e-12)
    assert np.linalg.norm(pred - true, 2) <= np.linalg.norm(pred - true)
    ones = np.ones((7, 71))
    assert relative_l2(2 * ones, ones, norm="spectral") == pytest.approx(relative_l2(2 * ones, ones)) == 1.0
    both = relative_l2_many(np.stack([pred, np.full_like(pred, np.nan)]), true, norm="spectral")
    assert both[0] == s and np.isnan(both[1])            # a failed solve is NaN, never reused
    with pytest.raises(ValueError, match="norm must be"):
        relative_l2(pred, true, norm="max")
    with pytest.raises(ValueError, match="matrix"):
        relative_l2(pred[0], true[0], norm="spectral")
