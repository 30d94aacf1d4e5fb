"""Flask dispatching on the envelope's route match: the one place the service extends Flask.

The envelope resolves each request once (``routes.py``) and Flask must dispatch on that result, not
match the URL again. That takes three subclasses: a Werkzeug ``Map`` that neither merges slashes
nor redirects (``StrictMap``), a request context whose documented ``match_request`` hook reads the
resolution (``ResolvedRequestContext``), and an app making those contexts (``ResolvedFlask``).
Flask's main branch deprecates ``RequestContext``: kept here, the change meets one module, and
``tests/adapters/test_flask_dispatch.py`` checks each hook on the installed Flask and Werkzeug.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from flask import Flask
from flask.ctx import RequestContext
from werkzeug.routing import Map

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

    from quart_bezique.api.envelope.routes import Resolution

RESOLUTION_KEY: Final = "quart_bezique.resolution"
"""Where the envelope leaves its ``Resolution`` in the WSGI environ for Flask to dispatch on."""


class StrictMap(Map):
    """A URL map that neither merges slashes nor redirects: one spelling per route. A path not
    spelled exactly like a route is not that route (404), and the service never answers with a
    redirect, whose ``Location`` Werkzeug would build from the client's ``Host`` header."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("merge_slashes", False)
        kwargs.setdefault("strict_slashes", True)
        kwargs.setdefault("redirect_defaults", False)
        super().__init__(*args, **kwargs)


class ResolvedRequestContext(RequestContext):
    """Flask's request context, dispatching on the envelope's resolution instead of matching."""

    def match_request(self) -> None:
        resolution: Resolution | None = self.request.environ.get(RESOLUTION_KEY)
        if resolution is None:  # called without the envelope (a bare ``app.wsgi_app``)
            super().match_request()
        elif resolution.error is not None:
            self.request.routing_exception = resolution.error
        else:
            self.request.url_rule = resolution.rule
            self.request.view_args = dict(resolution.args)


class ResolvedFlask(Flask):
    """The service's Flask: its requests are dispatched on the envelope's one route match."""

    url_map_class = StrictMap

    def request_context(self, environ: WSGIEnvironment) -> RequestContext:
        return ResolvedRequestContext(self, environ)
