"""WSGI entry point for gunicorn: ``gunicorn -c gunicorn.conf.py quart_bezique.wsgi:app``."""

import gc

# Building the service allocates objects that all live as long as the process (modules, the app,
# the scoring and odds tables), so the collector's passes while it runs find nothing to free: they
# only walk an ever larger heap, a share of the start's CPU worth saving. Nor does a last pass pay:
# it finds next to no garbage, at a price (docs/performance.md, "Where the time goes").
_COLLECTING = gc.isenabled()
gc.disable()

from quart_bezique.api.app import create_app  # noqa: E402
from quart_bezique.server.heap import give_back_free_heap  # noqa: E402

app = create_app()

# Everything built so far (the app, the scoring tables: most of the process's objects) lives as
# long as the process. Freezing moves it out of the collector's reach, so no collection in a
# worker ever walks it again; with gunicorn's preload_app this runs in the master before it forks,
# which also keeps those pages shared instead of dirtied by the workers' collections.
gc.freeze()
if _COLLECTING:
    gc.enable()
give_back_free_heap()  # what the build freed, returned to the system (server/heap.py)
