"""The project's measuring tools: the benchmark, the load tests and their shared harness.

A package so that each tool is run as a module (``python -m scripts.bench``) from the repository
root and the tests can start servers exactly the way the tools do (``scripts.harness``).
"""
