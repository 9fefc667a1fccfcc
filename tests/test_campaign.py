"""The reliability campaign (``tests/campaign.py``): seeded mutations of the shipped
examples; no internal error, hang or traceback, and every game the same after an
export and a re-import. A few records per game in the default run, thousands in the
slow one."""

from __future__ import annotations

import random

import pytest
from campaign import campaign, mutated


def test_mutations_are_seeded():
    text = '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 r5 *'
    first = [mutated(text, random.Random(seed)) for seed in range(20)]
    assert first == [mutated(text, random.Random(seed)) for seed in range(20)]
    assert len(set(first)) > 10


def test_a_small_campaign_finds_nothing():
    figures = campaign(20, seed=0, per_file=20)
    assert figures.failures == []
    assert figures.stored > 30 and figures.valid and figures.invalid
    assert figures.same == figures.stored == figures.exported


@pytest.mark.slow
def test_the_campaign_finds_nothing():
    figures = campaign(1000, seed=3)
    assert figures.failures == [], figures.failures[:20]
    assert figures.same == figures.stored == figures.exported
