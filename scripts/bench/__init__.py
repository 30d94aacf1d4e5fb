"""``make bench``: the performance benchmark, the service side by side with a bare Flask view.

Run it as ``python -m scripts.bench`` (``--quick`` for a smoke run whose figures mean nothing,
``--help`` for every option); docs/performance.md explains the method and how to read the results.

One module per measured thing: ``http_runs`` (each endpoint under wrk, against the baselines
served the same way), ``startup`` (spawn to ready, respawn, memory, cold start), ``inprocess`` (the
core, treys and every endpoint called through WSGI in a fresh interpreter). ``records`` holds the
typed results they return, ``targets`` judges them, ``report`` and ``chart`` present them.
"""
