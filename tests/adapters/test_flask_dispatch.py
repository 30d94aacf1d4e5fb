"""``service/quart_bezique/api/envelope/flask_dispatch.py`` on the installed Flask and Werkzeug: the
request context still matches through ``match_request`` when pushed, the app still makes its
contexts with ``request_context``, a Werkzeug ``Map`` still takes the keywords ``StrictMap`` sets,
and a request carrying the envelope's resolution is dispatched on it, never matched again. An
upgrade that changes one fails here, by name, rather than by serving a route the envelope did not
resolve."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Iterable
from types import CodeType
from typing import Any

import pytest
from flask import Flask
from flask.ctx import RequestContext
from quart_bezique.api.envelope.audit import PLAIN
from quart_bezique.api.envelope.flask_dispatch import (
    RESOLUTION_KEY,
    ResolvedFlask,
    ResolvedRequestContext,
    StrictMap,
)
from quart_bezique.api.envelope.routes import Resolution, Route
from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.test import EnvironBuilder

STRICT = {"merge_slashes": False, "strict_slashes": True, "redirect_defaults": False}
"""The keywords ``StrictMap`` gives Werkzeug's ``Map``, with their values."""


def names_used(code: CodeType) -> set[str]:
    """The global and attribute names ``code`` uses, its nested functions' included."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found |= names_used(const)
    return found


def make_app() -> ResolvedFlask:
    app = ResolvedFlask("dispatch_probe", static_folder=None)
    app.add_url_rule("/a", "a", lambda: "view a")
    app.add_url_rule("/b/<int:n>", "b", lambda n: f"view b {n}")
    return app


def environ(path: str, **planted: Any) -> dict[str, Any]:
    made: dict[str, Any] = EnvironBuilder(path=path).get_environ()
    made.update(planted)
    return made


def answer(app: Flask, env: dict[str, Any]) -> tuple[str, bytes]:
    seen: list[str] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> None:
        seen.append(status)

    body: Iterable[bytes] = app.wsgi_app(env, start_response)  # type: ignore[arg-type]
    return seen[0], b"".join(body)


def rule_of(app: Flask, template: str) -> Rule:
    return next(rule for rule in app.url_map.iter_rules() if rule.rule == template)


# --- Flask's hooks ------------------------------------------------------------------------------


def test_pushing_a_request_context_matches_through_match_request() -> None:
    assert tuple(inspect.signature(RequestContext.match_request).parameters) == ("self",)
    assert "match_request" in names_used(RequestContext.push.__code__)
    assert "self.match_request()" in inspect.getsource(RequestContext.push)


def test_the_app_makes_its_request_contexts_with_request_context() -> None:
    assert tuple(inspect.signature(Flask.request_context).parameters) == ("self", "environ")
    assert "request_context" in names_used(Flask.wsgi_app.__code__)
    context = make_app().request_context(environ("/a"))
    assert type(context) is ResolvedRequestContext and isinstance(context, RequestContext)


def test_making_a_request_context_warns_of_nothing() -> None:
    """Flask's main branch deprecates ``RequestContext``: on the day the installed Flask does, this
    fails (and so does every test serving a page, warnings being errors)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_app().request_context(environ("/a"))
    assert [str(warning.message) for warning in caught] == []


def test_the_map_takes_the_keywords_strict_map_sets() -> None:
    parameters = inspect.signature(Map.__init__).parameters
    assert set(STRICT) <= set(parameters), "a keyword StrictMap sets is gone"
    made = StrictMap([Rule("/x")])
    assert {name: getattr(made, name) for name in STRICT} == STRICT
    rule = next(made.iter_rules())
    assert (rule.merge_slashes, rule.strict_slashes) == (False, True), "rules inherit the map's"


def test_the_apps_url_map_is_strict() -> None:
    app = make_app()
    assert type(app.url_map) is StrictMap
    adapter = app.url_map.bind("localhost")
    with pytest.raises(NotFound):  # Werkzeug's default map would redirect to ``/b/1``
        adapter.match("/b//1")


# --- dispatching on the resolution --------------------------------------------------------------


def test_a_planted_resolution_is_dispatched_on_without_matching() -> None:
    """The path says ``/a``; the envelope's resolution says ``/b/<n>`` with ``n=7``: the view of
    ``/b/<n>`` runs, with those arguments."""
    app = make_app()
    route = Route("/b/<int:n>", PLAIN, (), False)
    planted = Resolution(route, rule_of(app, "/b/<int:n>"), {"n": 7})
    assert answer(app, environ("/a", **{RESOLUTION_KEY: planted})) == ("200 OK", b"view b 7")


def test_a_planted_routing_error_is_raised_for_a_path_that_would_match() -> None:
    app = make_app()
    unmatched = Route("unmatched", PLAIN, (), True)
    for error, status in (
        (NotFound(), "404 NOT FOUND"),
        (MethodNotAllowed(), "405 METHOD NOT ALLOWED"),
    ):
        planted = Resolution(unmatched, error=error)
        assert answer(app, environ("/a", **{RESOLUTION_KEY: planted}))[0] == status


def test_without_a_resolution_flask_matches_as_usual() -> None:
    app = make_app()
    assert answer(app, environ("/a")) == ("200 OK", b"view a")
    assert answer(app, environ("/b/3")) == ("200 OK", b"view b 3")
    assert answer(app, environ("/c"))[0] == "404 NOT FOUND"
