"""The HTTP layer: translate, validate, call the core, render.

Entry point: ``quart_bezique.api.app.create_app(config)``; configuration:
``quart_bezique.api.config``.
"""
