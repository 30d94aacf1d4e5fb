"""Route resolution: the one URL match that every decision about a request is taken from.

Protection, the audit kind and label, the metrics label, the security headers, a JSON endpoint's
road and the view Flask runs must all describe the same route. Decided apart, they drift: a
``/v1/`` prefix test on the raw path while Werkzeug routes ``/%2Fv1/hands/score`` (``PATH_INFO``
``//v1/hands/score``) to the score endpoint gives a verdict without a key, audited as ``unmatched``.
So the envelope resolves each request once, with the app's own strict URL map (one spelling per
route, no redirects), and Flask dispatches on that result (``flask_dispatch.py``): there is no
second opinion to disagree with. Fail closed: with API keys configured, every request that does not
resolve to an open route (outside ``/v1``) needs a key, unknown paths included.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.routing import Map, RequestRedirect, Rule

from quart_bezique.api.envelope.audit import PLAIN, Kind

# Re-exported: the envelope leaves each request's ``Resolution`` under this key.
from quart_bezique.api.envelope.flask_dispatch import RESOLUTION_KEY as RESOLUTION_KEY
from quart_bezique.api.envelope.flask_dispatch import StrictMap

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

    from quart_bezique.api.envelope.road import Road
    from quart_bezique.api.envelope.stream import StreamRoad

PROTECTED_PREFIX: Final = "/v1/"
UNMATCHED: Final = "unmatched"
STATIC: Final = "/static"
"""A page's assets are served under ``<page>/static/<path>`` (one label: ``<page>/static``)."""
NOSNIFF: Final = ("X-Content-Type-Options", "nosniff")
API_CSP: Final = ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
REFERRER: Final = ("Referrer-Policy", "no-referrer")
API_HEADERS: Final = (NOSNIFF, API_CSP, REFERRER)


@dataclass(frozen=True, slots=True)
class RouteDeclaration:
    """What a route declares to the envelope (from its endpoint record): everything else about
    it (label, protection, headers) follows from its rule."""

    kind: Kind = PLAIN
    page_csp: str | None = None
    road: Road | None = None
    stream: StreamRoad | None = None


UNDECLARED: Final = RouteDeclaration()
"""A route no endpoint declares (a page's assets): audited as sent, no road."""


@dataclass(frozen=True, slots=True)
class Route:
    """What the envelope does for one route: every field follows from the matched rule."""

    label: str
    """The audit ``endpoint`` and the metrics label: the rule's template, never the raw path."""
    kind: Kind
    headers: tuple[tuple[str, str], ...]
    protected: bool
    road: Road | None = None
    """A JSON endpoint's road: serves its ``POST`` requests, which never enter Flask."""
    stream: StreamRoad | None = None
    """A streaming endpoint's road (``stream.py``): its ``POST`` is judged as it is read."""

    @property
    def matched(self) -> bool:
        return self.label != UNMATCHED


@dataclass(frozen=True, slots=True)
class Resolution:
    """One request's route: the rule and its arguments, or the routing error Flask will raise."""

    route: Route
    rule: Rule | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    error: HTTPException | None = None


def is_protected_template(template: str) -> bool:
    """Whether a route (by its rule template, not a request's path) needs a key: all of ``/v1``."""
    return template == "/v1" or template.startswith(PROTECTED_PREFIX)


class Router:
    """Resolves requests against the app's URL map (built once every route is registered)."""

    def __init__(self, url_map: Map, declarations: Mapping[str, RouteDeclaration]) -> None:
        """``declarations``: what each route (by rule template) declares: its audit kind, its
        page policy (a page's assets, ``<page>/static/...``, get the page's) and its road.
        A route declaring no page policy gets ``API_CSP``: nothing may run as a page."""
        if not isinstance(url_map, StrictMap):
            raise TypeError("the router needs a StrictMap (use ResolvedFlask)")
        self._map = url_map
        self._routes: dict[str, Route] = {}
        self._exact: dict[tuple[str, str], Resolution] = {}
        pages = {
            template: declared.page_csp
            for template, declared in declarations.items()
            if declared.page_csp is not None
        }
        for rule in url_map.iter_rules():
            if rule.merge_slashes or rule.redirect_to is not None or not rule.strict_slashes:
                raise ValueError(f"{rule.rule}: a route may not merge slashes or redirect")
            template = rule.rule
            page = _page_of(template, pages)
            headers = API_HEADERS
            if page is not None:
                headers = (NOSNIFF, ("Content-Security-Policy", pages[page]), REFERRER)
            declared = declarations.get(template, UNDECLARED)
            route = Route(
                page + STATIC if rule.arguments and page is not None else template,
                declared.kind,
                headers,
                is_protected_template(template),
                declared.road,
                declared.stream,
            )
            self._routes[template] = route
            if not rule.arguments:
                for method in rule.methods or ():
                    self._exact[(template, method)] = Resolution(route, rule)
        self.unmatched = Route(UNMATCHED, PLAIN, API_HEADERS, True)
        """Any request no route takes: protected whenever keys are configured (fail closed: a 404
        or 405 before authentication would tell a stranger which routes exist)."""

    @property
    def routes(self) -> Mapping[str, Route]:
        """Every route, by rule template."""
        return self._routes

    def resolve(self, environ: WSGIEnvironment) -> Resolution:
        """A route without arguments is found with one dictionary lookup on ``(PATH_INFO,
        method)``; that table is derived from the map (a path equal to a static rule's template,
        with one of its methods, is matched to that rule by Werkzeug: static parts outrank
        converters) and tested against the full match (``tests/security/test_route_resolution.py``).
        Everything else takes Werkzeug's full match (``match``)."""
        found = self._exact.get((environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "")))
        if found is not None:
            return found
        return self.match(environ)

    def match(self, environ: WSGIEnvironment) -> Resolution:
        """Werkzeug's full match, as Flask would do it (the authority the table is derived from),
        for a path spelled with exactly one leading slash: Werkzeug strips any number of them
        before matching, so ``//v1/hands/score`` would otherwise reach the score endpoint."""
        path: str = environ.get("PATH_INFO", "")
        if not path.startswith("/") or path.startswith("//"):
            return Resolution(self.unmatched, error=NotFound())
        try:
            adapter = self._map.bind_to_environ(environ, server_name=None, subdomain="")
            rule, args = adapter.match(return_rule=True)
        except RequestRedirect:  # pragma: no cover - the map is built never to redirect
            return Resolution(self.unmatched, error=NotFound())
        except HTTPException as error:  # 404, 405 (and a Host Werkzeug cannot parse: 400)
            return Resolution(self.unmatched, error=error)
        # A rule added after the router was built is served, but as unmatched (protected).
        return Resolution(self._routes.get(rule.rule, self.unmatched), rule, args)


def _page_of(template: str, pages: Mapping[str, str]) -> str | None:
    """The page a route belongs to: the page itself, or one of its assets."""
    for page in pages:
        if template == page or template.startswith(page + STATIC + "/"):
            return page
    return None
