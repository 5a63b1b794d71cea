"""One small program per break category (DC, IO, GUARD, SCALAR, DS, OTHER), used by the
diagnosis tests.  Each function breaks exactly where its comment says."""

import logging
import warnings

import torch
from transformers.utils import logging as hf_logging

logger = logging.getLogger("graphmend.tests.categories")
hf_logger = hf_logging.get_logger("graphmend.tests.once")


def clean(x):
    return torch.relu(x * 2) + 1


def dc_if(x):
    y = x * 2
    if y.mean() > 0:  # DC
        y = y + 1
    return y * 3


def dc_elif(x):
    y = x * 2
    if x.shape[0] > 100:
        y = y + 1
    elif y.mean() > -100:  # DC (the elif's test)
        y = y - 1
    return y * 3


def dc_ternary(x):
    y = x * 2
    z = y + 1 if y.sum() > 0 else y - 1  # DC
    return z * 3


def dc_while(x):
    y = x * 2
    while y.abs().sum() < 1000:  # DC
        y = y * 2
    return y * 3


def guard(x):
    y = x * 2
    if (y > 1e6).any():  # GUARD
        raise ValueError("too large")
    return y * 3


def scalar_if(x):
    y = x * 2
    if y.sum().item() > 0:  # SCALAR, feeds a predicate
        y = y + 1
    return y * 3


def scalar_value(x):
    y = x * 2
    n = y.sum().item()  # SCALAR, the value is used as a number
    return y * n


def io_print(x):
    y = x * 2
    print("sum", y.sum())  # IO
    return y * 3


def io_logger(x):
    y = x * 2
    logger.warning("value %s", 3)  # IO
    return y * 3


def io_warning_once(x):
    y = x * 2
    hf_logger.warning_once("only once")  # IO
    return y * 3


def io_warn(x):
    y = x * 2
    warnings.warn("careful")  # IO
    return y * 3


def ds_nonzero(x):
    y = x * 2
    idx = y.nonzero()  # DS
    return idx * 3


def ds_mask(x):
    y = x * 2
    z = y[y > 0]  # DS
    return z * 3


def noisy(x):
    print("noisy", x.sum())  # IO, reached from two callers
    return x + 1


def calls_noisy_twice(x):
    return two_callers_b(two_callers_a(x))


def two_callers_a(x):
    return noisy(x * 2) * 3


def two_callers_b(x):
    return noisy(x - 1) / 2


def scalar_argument(x, n):
    y = x * 2
    if n >= 0:  # guard on a Python int: a recompile when n changes sign
        y = y + n
    return torch.relu(y) @ y
