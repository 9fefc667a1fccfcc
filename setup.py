"""Build of the optional compiled solver core; everything else is in pyproject.toml.

``optional=True``: where the C extension cannot be compiled (no compiler, a
compiler without 128-bit integers), the install goes on without it and the solver
uses its pure-Python cores, which give the same answers.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "partita.games.gravity._native",
            sources=["partita/games/gravity/_native.c"],
            optional=True,
        )
    ]
)
