"""Deck files shipped with partita (package data, read by :mod:`partita.notation.decks`)."""
