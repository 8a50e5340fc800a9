"""Whether a new Python signature still serves callers written for the old one.

Parameters follow griffe's definition of breakage (removed, moved while
positional, newly required, incompatible kind change), minus one item: a
changed default value does not stop a call from working, so it is not
reported. Annotations are no part of it: an API checker compares none of them
(a removed return annotation is judged in :mod:`prflow.analysis.breaking_python`).
"""

from __future__ import annotations

from prflow.analysis.py_surface import Param

_POSITIONAL = ("positional_only", "positional_or_keyword")
_VARIADIC = ("var_positional", "var_keyword")
_KIND_WORDS = {
    "positional_only": "positional-only",
    "positional_or_keyword": "positional or keyword",
    "var_positional": "variadic positional",
    "keyword_only": "keyword-only",
    "var_keyword": "variadic keyword",
}


def parameter_breaks(old: tuple[Param, ...], new: tuple[Param, ...]) -> list[str]:
    """One reason per way a call that worked with ``old`` can fail with ``new``."""
    reasons: list[str] = []
    new_by_name: dict[str, tuple[int, Param]] = {}
    for index, param in enumerate(new):
        new_by_name.setdefault(param.name, (index, param))
    kinds = {param.kind for param in new}
    takes_args, takes_kwargs = "var_positional" in kinds, "var_keyword" in kinds
    for old_index, param in enumerate(old):
        if param.kind in _VARIADIC:
            if param.kind not in kinds:
                star = "*" if param.kind == "var_positional" else "**"
                reasons.append(f"no longer accepts `{star}{param.name}`")
            continue
        match = new_by_name.get(param.name)
        if match is None:
            swallowed = (
                (param.kind == "keyword_only" and takes_kwargs)
                or (param.kind == "positional_only" and takes_args)
                or (param.kind == "positional_or_keyword" and takes_args and takes_kwargs)
            )
            if not swallowed:
                reasons.append(f"parameter `{param.name}` was removed")
            continue
        new_index, replacement = match
        if replacement.required and not param.required:
            reasons.append(f"parameter `{param.name}` became required")
        if param.kind in _POSITIONAL and replacement.kind in _POSITIONAL and new_index != old_index:
            reasons.append(
                f"parameter `{param.name}` moved from position {old_index} to {new_index}"
            )
        if _incompatible_kind(param, replacement, takes_args, takes_kwargs):
            reasons.append(
                f"parameter `{param.name}` changed from {_KIND_WORDS[param.kind]} to "
                f"{_KIND_WORDS[replacement.kind]}"
            )
    old_names = {param.name for param in old}
    for param in new:
        if param.name not in old_names and param.required:
            reasons.append(f"required parameter `{param.name}` was added")
    return reasons


def _incompatible_kind(old: Param, new: Param, takes_args: bool, takes_kwargs: bool) -> bool:
    if old.kind == new.kind:
        return False
    return any(
        (
            old.kind == "positional_only" and new.kind == "keyword_only",
            old.kind == "keyword_only" and new.kind == "positional_only",
            old.kind == "positional_or_keyword" and new.kind in ("positional_only", "keyword_only"),
            new.kind == "var_keyword" and old.kind != "keyword_only" and not takes_args,
            new.kind == "var_positional" and old.kind != "positional_only" and not takes_kwargs,
        )
    )
