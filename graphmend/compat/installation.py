"""Applying compat once per process: the patches the probes allow, then the
self-test; a probe or a self-test check that fails turns its rules off with
one warning naming the torch version, so a message or a check is never
dropped silently.

Never at ``import graphmend`` or ``import graphmend.compat``: the runtime
installs when it is first imported (by the first mend or compile, or by
rewritten code), handing itself over for the self-test to run, so that
compat never imports the runtime."""

from __future__ import annotations

import types
import warnings

import torch

from graphmend.compat import tracing
from graphmend.compat.identity import _keep_identity_stacks
from graphmend.compat.patches import (_format_dynamic_numbers_as_python_does, _record_frames_run_eagerly,
                                      _replay_before_failures_at_run_time, _reuse_identical_graphs,
                                      _run_frames_eagerly_once, _share_replays_with_inlined_calls,
                                      _tell_functions_met, _type_loggers_and_formatters)
from graphmend.compat.probing import _LOCK, _generic_id, _state, _untyped_variables, disabled_rules, probes
from graphmend.compat.selftest import self_test
from graphmend.compat.verdicts import passed_before


def rules_off(runtime: types.ModuleType) -> dict[str, str]:
    """:func:`install`, then :func:`disabled_rules`: what a caller about to
    rewrite code or report on it asks (``runtime``: ``graphmend.runtime``,
    which the caller imports; its import installs)."""
    install(runtime)
    return disabled_rules()


def installed() -> bool:
    """Whether :func:`install` has run (or is running) in this process."""
    return _state["installed"]


def install(runtime: types.ModuleType) -> None:
    """Apply the patches the probes allow, then run :func:`self_test` on
    ``runtime`` (the module rewritten code calls; once per process: on the
    first mend or compile, or when rewritten code first imports the
    runtime; a pass an earlier process kept is read instead,
    :mod:`.verdicts`).  A probe or a self-test check that fails turns its
    rules off with one warning naming the torch version."""
    with _LOCK:
        if _state["installed"]:
            return
        _state["installed"] = True
        results = {probe.name: probe for probe in probes()}
        if results["inlined replays"].ok:
            _share_replays_with_inlined_calls()
            if results["replays before a failure at run time"].ok:
                _replay_before_failures_at_run_time()
        if results["eager fallback"].ok:
            _run_frames_eagerly_once()
        if results["logger and formatter types"].ok:
            untyped = _untyped_variables()
            _type_loggers_and_formatters(untyped)
            tracing.LOGGER_BY_NAME = bool(untyped) or not _generic_id()
            tracing.TRACES_MODULE_DICT = not untyped
        if results["loop skips"].ok:
            _record_frames_run_eagerly()
        if results["number formats"].ok:
            _format_dynamic_numbers_as_python_does()
        if results["graph reuse"].ok:
            _reuse_identical_graphs()
        if results["identity guard stacks"].ok and results["eager fallback"].ok:
            _keep_identity_stacks()
        if results["functions met while tracing"].ok and results["eager fallback"].ok:
            _tell_functions_met()
        if not any(rule in disabled_rules() for rule in ("defer", "trap")):
            _state["self_test"] = passed_before("compat", lambda: self_test(runtime))
        off = disabled_rules()
        if off:
            warnings.warn(
                "graphmend: on torch "
                f"{torch.__version__} these rules are off: "
                + "; ".join(f"[{rule}] {why}" for rule, why in sorted(off.items())),
                RuntimeWarning,
                stacklevel=2,
            )
