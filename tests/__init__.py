"""The test suite, one package per area, so every module has one import name: helpers are
imported as ``tests.api.api_support`` and never through ``sys.path`` or another suite's
``conftest``. pytest puts the repository root on ``sys.path`` (the default import mode finds it
above the topmost ``__init__.py``), and mypy derives the same names from these files."""
