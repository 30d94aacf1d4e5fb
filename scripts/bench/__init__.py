"""``make bench``: the performance benchmark, the service side by side with a bare Flask view.

Run it as ``python -m scripts.bench`` (``--quick`` for a smoke run whose figures mean nothing,
``--help`` for every option); docs/performance.md explains the method and how to read the results.

One module per measured thing: ``http_runs`` (each endpoint under wrk, against the baselines
served the same way), ``startup`` (the servers' start-up and memory; then, alone, a worker with
and without preload and a fresh interpreter, which the start-up targets are judged on; ``--only
startup`` runs just that), ``inprocess`` (the core, treys and every endpoint called through WSGI
in a fresh interpreter). ``records`` holds the typed results they return, ``targets`` judges
them, ``report`` and ``chart`` present them.
"""
