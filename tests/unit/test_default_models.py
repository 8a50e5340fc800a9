"""The shipped model tiers are current models with prices."""

from __future__ import annotations

import importlib

import pytest

from prflow.config import ModelSettings, ModelTier

TIERS: tuple[ModelTier, ...] = ("budget", "mid", "premium")


def _deprecated_models() -> dict[str, str]:
    """Every deprecation list the installed anthropic SDK ships, merged."""
    merged: dict[str, str] = {}
    for module_name in ("anthropic.resources.messages.messages", "anthropic._data"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        merged.update(getattr(module, "DEPRECATED_MODELS", {}))
    return merged


def test_the_sdk_publishes_a_deprecation_list() -> None:
    # Guards the test below: an empty list would let any model id pass.
    assert _deprecated_models()


@pytest.mark.parametrize("tier", TIERS)
def test_default_tier_model_is_not_deprecated(tier: ModelTier) -> None:
    model = ModelSettings().model_for(tier)
    deprecated = _deprecated_models()
    assert model not in deprecated, f"{tier} tier uses {model}, retired on {deprecated.get(model)}"


@pytest.mark.parametrize("tier", TIERS)
def test_default_tier_model_has_a_price(tier: ModelTier) -> None:
    settings = ModelSettings()
    assert settings.model_for(tier) in settings.prices
