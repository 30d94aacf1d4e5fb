"""WSGI entry point for gunicorn: ``gunicorn -c gunicorn.conf.py service.wsgi:app``."""

import gc

from service.api.app import create_app
from service.api.endpoints.hands import pause_for_batches

app = create_app()
# Outermost, around the audit layer too: see ``hands.pause_for_batches``.
app.wsgi_app = pause_for_batches(app.wsgi_app)  # type: ignore[assignment, method-assign]

# Everything built so far (the app, the scoring tables: most of the process's objects) lives as
# long as the process. Freezing moves it out of the collector's reach, so no collection in a
# worker ever walks it again; with gunicorn's preload_app this runs in the master before it forks,
# which also keeps those pages shared instead of dirtied by the workers' collections.
gc.collect()
gc.freeze()
