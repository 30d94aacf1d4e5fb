"""The HTTP layer: translate, validate, call the core, render.

Entry point: ``service.api.app.create_app(config)``; configuration: ``service.api.config``.
"""
