"""gunicorn integration: the worker class that keeps slow connections away from the threads.

Loaded by gunicorn from ``gunicorn.conf.py`` (``worker_class``); nothing in ``quart_bezique.game``
or the Flask app imports it, so the app stays servable by any WSGI server.
"""
