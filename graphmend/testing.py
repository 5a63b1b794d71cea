"""Keep a model at its graph budget in your own tests.

``assert_graphs`` diagnoses one call (:func:`graphmend.diagnose`: traced on a
private backend, nothing compiled for real, the user's compiled code left
alone) and fails with the diagnosis table when the call compiles to more
graphs than allowed, breaks for a category you forbid, or recompiles more
often than allowed.  It budgets what it is handed: a model as
``torch.compile`` runs it, what ``graphmend.compile`` returned as that object
runs it (the mended code under [Capture]); ``mended=True`` budgets a model as
``graphmend.compile`` would run it::

    from graphmend.testing import assert_graphs

    def test_model_stays_one_graph():
        model = MyModel().eval()
        assert_graphs(model, torch.randn(2, 8), max_graphs=1)

    def test_no_print_or_branch_breaks():
        assert_graphs(model, x, max_graphs=None, forbid=("DC", "IO"))

    def test_what_ships_is_one_graph():
        assert_graphs(graphmend.compile(model), x, max_graphs=1)

With pytest, the ``assert_graphs`` fixture (registered by graphmend's
``pytest11`` entry point, :mod:`graphmend.pytest_plugin`) is the same
function with defaults a test or a whole suite can set::

    @pytest.mark.graphmend(max_graphs=2, forbid=("IO",))
    def test_encoder(assert_graphs):
        assert_graphs(encoder, tokens)

and in ``pyproject.toml``'s ``[tool.pytest.ini_options]``:
``graphmend_max_graphs = 1`` and ``graphmend_forbid = ["DC", "IO"]``.

The categories are :func:`graphmend.diagnose`'s: ``DC`` (a branch on a
tensor), ``IO`` (print, logging, warnings), ``GUARD`` (a tensor test that
only raises), ``SCALAR`` (``.item()`` and friends), ``DS`` (data-dependent
shapes), ``OTHER``; ``"fixable"`` forbids every break a graphmend rule would
remove.  Only the break-finding of a diagnosis is used: the torch.compile
view changes no source; the graphmend.compile view mends for the trace and
puts every function back afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmend.diagnosis import Report


def assert_graphs(
    fn: Callable[..., Any],
    *args: Any,
    max_graphs: int | None = 1,
    forbid: Iterable[str] = (),
    max_recompiles: int | None = None,
    calls: Iterable[Any] | None = None,
    mended: bool | None = None,
    **kwargs: Any,
) -> Report:
    """Fail unless ``fn(*args, **kwargs)`` compiles to at most ``max_graphs``
    graphs with no break of a category in ``forbid``.

    The view is ``fn``'s: what ``torch.compile`` runs of a model or function,
    what a ``graphmend.compile`` object runs (its graphs compiled and the
    breaks it leaves).  ``mended=True`` budgets what ``graphmend.compile(fn)``
    would run, ``mended=False`` what ``torch.compile`` runs of the code a
    ``graphmend.compile`` object compiles.

    ``max_graphs=None`` checks the categories alone.  ``calls``, instead of
    ``*args, **kwargs``, diagnoses several argument sets in order (items as
    :func:`graphmend.diagnose_calls` takes them: a tuple, a dict, or
    ``graphmend.call(...)``), which is what ``max_recompiles`` needs: a guard
    that fails on a later set is a recompile.  (Pass a keyword argument of
    ``fn`` that shares a name with these through ``graphmend.call``.)

    Raises ``AssertionError`` whose message lists what was exceeded and the
    diagnosis table (site, category, reason, fix); returns the
    :class:`graphmend.Report` when the budget holds.
    """
    forbidden = _categories(forbid)
    from graphmend.api import compiled_by_graphmend, diagnose_calls
    from graphmend.diagnosis import MENDED, Call

    if calls is not None and (args or kwargs):
        raise TypeError("assert_graphs: pass the call's arguments or calls=, not both")
    report = diagnose_calls(fn, list(calls) if calls is not None else [Call(args, kwargs)], statistics=False,
                            mended=compiled_by_graphmend(fn) if mended is None else mended)
    problems = budget_problems(report, max_graphs=max_graphs, forbid=forbidden, max_recompiles=max_recompiles)
    if problems:
        original = getattr(fn, "_graphmend_original", fn)
        name = getattr(original, "__qualname__", None) or type(original).__name__
        name = f"graphmend.compile({name})" if report.view == MENDED else name
        raise AssertionError(f"{name}: " + "; ".join(problems) + "\n" + str(report))
    return report


def budget_problems(
    report: Report, *, max_graphs: int | None = 1, forbid: Iterable[str] = (), max_recompiles: int | None = None
) -> list[str]:
    """What ``report`` exceeds, one line per problem (empty when it holds)."""
    forbidden = _categories(forbid)
    problems = []
    if max_graphs is not None and report.graph_count > max_graphs:
        problems.append(f"{report.graph_count} graphs, at most {max_graphs} allowed ({report.break_count} break(s))")
    for brk in report.breaks:
        if brk.category in forbidden or ("fixable" in forbidden and brk.fixable):
            why = brk.category if brk.category in forbidden else f"fixable by [{brk.rule}]"
            problems.append(f"forbidden break ({why}) at {brk.location}: {brk.statement}")
    if max_recompiles is not None and len(report.recompiles) > max_recompiles:
        problems.append(f"{len(report.recompiles)} recompiles, at most {max_recompiles} allowed")
    return problems


def _categories(forbid: Iterable[str]) -> frozenset[str]:
    """``forbid`` checked: the diagnosis's categories, and ``"fixable"``."""
    from graphmend.diagnosis import CATEGORIES

    if isinstance(forbid, str):
        forbid = [forbid]
    chosen = frozenset(forbid)
    unknown = sorted(chosen - set(CATEGORIES) - {"fixable"})
    if unknown:
        raise ValueError(f"assert_graphs: unknown categories {unknown}; known: {[*CATEGORIES, 'fixable']}")
    return chosen
