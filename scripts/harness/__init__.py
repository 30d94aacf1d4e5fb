"""What every tool that drives a real server needs, written once: a free port, a gunicorn server
started as deployed and stopped by pid, ``/proc`` readings and the ``wrk`` driver.

The benchmark, the load tests and the HTTP tests all start servers through ``server.py``, so a
figure from one and a failure in another are about the same server.
"""
