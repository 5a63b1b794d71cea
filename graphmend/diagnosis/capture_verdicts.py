"""Whether [Capture] takes each DS / SCALAR site a diagnosis reports, and why not.

One more trace of the same calls, on a private backend with the switches
on as ``graphmend.compile`` turns them on (its output silenced, Dynamo's
caches kept apart from the user's as the diagnosis keeps its own), then
per site:

* ``"DS: captured"`` -- the site no longer breaks, and no new break follows
  it in its function;
* ``"SCALAR: not captured: <reason> at file:line"`` -- the site itself still
  breaks, or the captured value meets a guard Dynamo cannot decide later in
  the same function (``if n > 3:`` on an unbacked ``n``: "generic_jump
  SymNodeVariable"; ``range(n)``: "Could not extract specialized
  integer"), which is where the break moves to;
* ``"... not captured: Dynamo cannot compile <frame> with it captured"``
  -- the frame was compiled again without the switches (the frames and why:
  :func:`graphmend.compat.capture.uncaptured_codes`).

The verdict lands in ``Break.capture`` and, for a site no rule fixes, in
its hint.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphmend.compat import capture

CATEGORIES = ("DS", "SCALAR")


def attach(report: Any, trace: Callable[[], tuple[Any, dict[Any, str]]],
           function_name: Callable[[str], str]) -> None:
    """Set ``capture`` (and the hint of an unfixable site) on each DS /
    SCALAR break of ``report``.  ``trace`` runs the diagnosed calls again
    with [Capture] on and returns that report with the code objects compiled
    without capture (and why); ``function_name`` names the function a code
    object resumes (Dynamo's resume functions)."""
    sites = [b for b in report.breaks if b.category in CATEGORIES]
    if not sites:
        return
    off = capture.disabled()
    if off is not None:
        _set(sites, lambda b: f"not captured: [capture] is off: {off}")
        return
    try:
        captured, failed_codes = trace()
    except Exception as error:  # noqa: BLE001 -- a verdict, never a failed diagnosis
        text = str(error).strip().splitlines()
        _set(sites, lambda b: f"not checked: the trace with [capture] failed: {type(error).__name__}"
             + (f": {text[0]}" if text else ""))
        return
    before = {(b.filename, b.lineno) for b in report.breaks}
    after = {(b.filename, b.lineno): b for b in captured.breaks}

    def verdict(site: Any) -> str:
        same = after.get((site.filename, site.lineno))
        if same is not None:
            mine = [(code, why) for code, why in failed_codes.items()
                    if code.co_filename == site.filename and function_name(code.co_name) == site.function]
            if mine:  # the frame whose guard is the first at or after the site
                code, why = min(mine, key=lambda item: (_line(item[1]) < site.lineno, _line(item[1])))
                return f"not captured: {_plain(why)}; {code.co_name}() is compiled without capture"
            return f"not captured: {_plain(same.reason)} at {same.location}"
        later = [b for b in new_breaks if owner.get((b.filename, b.lineno)) is site]
        if later:
            guard = min(later, key=lambda b: b.lineno)
            return f"not captured: {_plain(guard.reason)} at {guard.location}"
        return "captured"

    # A break the capture trace adds belongs to the nearest DS / SCALAR site
    # before it in the same function: where that site's value goes next.
    new_breaks = [b for b in captured.breaks if (b.filename, b.lineno) not in before]
    owner: dict[tuple[str, int], Any] = {}
    for b in new_breaks:
        preceding = [s for s in sites if s.filename == b.filename and s.function == b.function and s.lineno < b.lineno]
        if preceding:
            owner[(b.filename, b.lineno)] = max(preceding, key=lambda s: s.lineno)

    _set(sites, verdict)


#: Dynamo's words for a guard it cannot decide on an unbacked value -> ours.
_GUARDS = (
    ("generic_jump SymNodeVariable", "Python branches on the captured value"),
    ("Could not extract specialized integer", "a Python int is needed (range(), a size list)"),
    ("Could not guard on data-dependent", "a guard on an unbacked value"),
)


def _line(why: str) -> int:
    tail = why.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _plain(reason: str) -> str:
    """Dynamo's guard words, said plainly: the first line, up to the location."""
    for words, ours in _GUARDS:
        if words in reason:
            location = reason.rsplit(" at ", 1)[1] if " at " in reason else None
            head = reason.split(":", 1)[0] + ": " if reason.startswith(("a captured", "Dynamo cannot")) else ""
            return f"{head}{ours} ({words})" + (f" at {location}" if location else "")
    return reason


def _set(sites: list[Any], verdict: Callable[[Any], str]) -> None:
    for site in sites:
        site.capture = f"{site.category}: {verdict(site)}"
        if not site.fixable:
            words = "graphmend.compile holds it in the graph" if site.capture.endswith(": captured") else None
            text = site.capture + (f" ({words})" if words else "")
            site.hint = f"{text}; with torch.compile: {site.hint}" if site.hint else text
