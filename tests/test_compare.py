"""graphmend.compare.first_difference: every bit of every leaf, and never a raise."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from graphmend.compare import first_difference


def test_equal_numpy_arrays_have_no_difference():
    assert first_difference((np.arange(6.0).reshape(2, 3), 1), (np.arange(6.0).reshape(2, 3), 1)) is None


def test_numpy_arrays_differ_in_one_bit():
    expected, actual = np.zeros(4), np.zeros(4)
    actual[2] = -0.0

    assert first_difference(expected, actual) == "output: 1 of 4 elements differ, first at flat index 2: " \
        "np.float64(0.0) != np.float64(-0.0)"


def test_numpy_arrays_differ_in_dtype_or_shape():
    assert first_difference(np.zeros(2, "f4"), np.zeros(2, "f8")) == "output: dtype float32 != float64"
    assert first_difference([np.zeros((2, 2))], [np.zeros((2, 3))]) == "output[0]: shape (2, 2) != (2, 3)"


def test_an_object_array_is_compared_element_by_element():
    def make(last: float) -> np.ndarray:
        array = np.empty(2, dtype=object)
        array[:] = [torch.ones(2), last]
        return array

    assert first_difference(make(1.0), make(1.0)) is None
    assert first_difference(make(1.0), make(2.0)) == "output: first at flat index 1: 1.0 != 2.0"


def test_numpy_scalars_compare_by_type_and_bits():
    assert first_difference(np.float32(1.5), np.float32(1.5)) is None
    assert first_difference(np.float32(1.5), np.float64(1.5)) is not None
    assert first_difference(np.float64(math.nan), np.float64(math.nan)) is None


def test_python_floats_compare_by_bits():
    assert first_difference({"x": math.nan}, {"x": math.nan}) is None
    assert first_difference(0.0, -0.0) == "output: 0.0 != -0.0"
    assert first_difference(1 + 2j, 1 + 2j) is None
    assert first_difference(2.2310880768771018, 2.231088076877102) is not None


def test_a_leaf_that_ne_cannot_compare_counts_as_differing():
    class Elementwise:
        def __ne__(self, other: object) -> np.ndarray:
            return np.array([False, True])

    class Refuses:
        def __ne__(self, other: object) -> bool:
            raise TypeError("no order")

    assert "cannot compare (ValueError" in first_difference(Elementwise(), Elementwise())
    assert "cannot compare (TypeError: no order)" in first_difference(Refuses(), Refuses())


# Array generation is slow on a loaded machine (the health check failed
# once in CI beside a fuzz run); the property does not depend on speed.
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(hnp.arrays(st.sampled_from([np.float16, np.float32, np.float64, np.int8, np.int64, np.bool_, np.complex64]),
                  hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)), st.data())
def test_a_copy_is_equal_and_any_flipped_bit_is_found(array, data):
    assert first_difference(array, array.copy()) is None
    if array.size == 0:
        return
    flipped = array.copy()
    raw = flipped.reshape(-1).view(np.uint8)
    byte = data.draw(st.integers(0, raw.size - 1))
    raw[byte] ^= np.uint8(1 << data.draw(st.integers(0, 7)))

    difference = first_difference(array, flipped)

    assert difference is not None and f"first at flat index {byte // array.itemsize}:" in difference


@pytest.mark.parametrize("leaf", [torch.zeros(2), "text", 3, None])
def test_leaves_of_other_kinds_read_as_before(leaf):
    assert first_difference([leaf], [leaf]) is None
