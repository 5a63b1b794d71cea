"""Where the suite's files lie, for a test in any folder of it."""

from pathlib import Path

#: The suite's folder.
TESTS = Path(__file__).resolve().parent
#: The repository.
ROOT = TESTS.parent
#: The rule fixtures: ``FIXTURES / <rule> / <case>.in.py`` (tests/rules/test_fixtures.py).
FIXTURES = TESTS / "fixtures"
