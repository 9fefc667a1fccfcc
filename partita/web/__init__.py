"""The local web application of ``partita serve``: pages and a JSON API over the
archive, the analysis and the opening tree (``docs/web.md``).

Nothing here names a game: every page asks the game contract (registry, spec,
notation, board). :func:`partita.web.app.create_app` builds the application.
"""
