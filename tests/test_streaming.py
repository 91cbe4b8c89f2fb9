"""Streaming correlated noise equals the dense product B·w (seed 004, eq. 11/13), across block splits."""

import numpy as np
import pytest
import scipy.linalg

from dptheory.mechanisms.streaming import StreamingToeplitzNoise


def dense_oracle(taps, w):
    """The naive O(T²) product (B w)_t = Σ_τ β_τ w_{t−τ}: a test oracle only."""
    T = w.shape[0]
    B = scipy.linalg.toeplitz(np.r_[taps, np.zeros(T)][:T], np.zeros(T))
    return np.einsum("ts,s...->t...", B, w)


@pytest.mark.parametrize("n_taps", [1, 2, 16, 17, 300])
@pytest.mark.parametrize("splits", [(700,), (1, 5, 294, 400), (350, 350)])
def test_streamed_noise_equals_the_dense_product(n_taps, splits):
    rng = np.random.default_rng(n_taps)
    taps = rng.standard_normal(n_taps)
    w = rng.standard_normal((sum(splits), 3, 2))
    stream = StreamingToeplitzNoise(taps, (3, 2), w, max_columns=4)  # force column chunking too
    edges = np.cumsum((0,) + splits)
    out = np.concatenate([stream(w[a:b]) for a, b in zip(edges[:-1], edges[1:])])
    ref = dense_oracle(taps, w)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12 * np.max(np.abs(ref)))


@pytest.mark.parametrize("n_taps", [3, 16, 17, 300])
@pytest.mark.parametrize("splits", [(700,), (1, 40, 659)])
def test_passes_slabs_and_tiles_that_do_not_divide_the_block_equal_the_dense_product(n_taps, splits):
    """120 columns: the direct sum runs in two passes of 546 steps; the FFT route in slabs of 32, 32, 32 and 24
    columns and tiles of 32 steps; blocks shorter and longer than the filter, starting from zero history."""
    rng = np.random.default_rng(n_taps)
    taps = rng.standard_normal(n_taps)
    w = rng.standard_normal((sum(splits), 10, 12))
    stream = StreamingToeplitzNoise(taps, (10, 12), w, max_columns=32)
    edges = np.cumsum((0,) + splits)
    out = np.concatenate([stream(w[a:b]) for a, b in zip(edges[:-1], edges[1:])])
    ref = dense_oracle(taps, w)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12 * np.max(np.abs(ref)))
    np.testing.assert_array_equal(stream.history, w[-(n_taps - 1) :])


def test_the_identity_filter_returns_its_input_and_a_scalar_one_scales_it():
    w = np.random.default_rng(0).standard_normal((5, 2))
    assert StreamingToeplitzNoise([1.0], (2,), w)(w) is w
    np.testing.assert_array_equal(StreamingToeplitzNoise([2.0], (2,), w)(w), 2.0 * w)


def test_memory_is_bounded_by_the_filter_length_not_the_horizon():
    stream = StreamingToeplitzNoise(np.ones(50), (4,), np.zeros(1))
    rng = np.random.default_rng(0)
    for _ in range(20):
        stream(rng.standard_normal((100, 4)))
    assert stream.history.shape == (49, 4)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (([], (2,)), {}, "taps must be a non-empty 1-D sequence"),
        ((np.ones((2, 2)), (2,)), {}, "taps must be a non-empty 1-D sequence"),
        ((["a", "b"], (2,)), {}, "taps must be a sequence of real numbers"),
        (([1.0, 1j], (2,)), {}, "taps must be a sequence of real numbers"),
        (([1.0, np.nan], (2,)), {}, "taps must be finite"),
        (([1.0], (0,)), {}, r"shape must lie in \[1"),
        (([1.0], (2.5,)), {}, "shape must be an integer"),
        (([1.0], (2,)), dict(max_columns=0), r"max_columns must lie in \[1"),
    ],
)
def test_bad_constructor_arguments_are_refused_naming_the_parameter(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        StreamingToeplitzNoise(*args, np.zeros(1), **kwargs)


def test_a_block_of_the_wrong_shape_is_refused():
    stream = StreamingToeplitzNoise(np.ones(3), (4, 2), np.zeros(1))
    with pytest.raises(ValueError, match=r"w must have shape \(K, \*\(4, 2\)\), got \(5, 2, 4\)"):
        stream(np.zeros((5, 2, 4)))
