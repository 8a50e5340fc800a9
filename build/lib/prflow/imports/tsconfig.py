"""``tsconfig.json`` / ``jsconfig.json`` module aliases: ``baseUrl`` and ``paths``.

These files are JSON with comments and trailing commas, and may ``extends`` a
relative parent. A file that cannot be read is treated as empty rather than
failing the analysis: aliases are then simply not resolved.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any

from prflow.source_tree import SourceTree

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
_MAX_EXTENDS_DEPTH = 10


@dataclass(frozen=True)
class PathAlias:
    """One ``paths`` entry: a pattern with at most one ``*`` and its repo-relative targets."""

    pattern: str
    targets: tuple[str, ...]

    def match(self, specifier: str) -> str | None:
        """What ``*`` stands for in ``specifier`` ("" for exact patterns), or None."""
        if "*" not in self.pattern:
            return "" if specifier == self.pattern else None
        prefix, _, suffix = self.pattern.partition("*")
        if (
            len(specifier) >= len(prefix) + len(suffix)
            and specifier.startswith(prefix)
            and specifier.endswith(suffix)
        ):
            return specifier[len(prefix) : len(specifier) - len(suffix)]
        return None

    @property
    def prefix_length(self) -> int:
        return len(self.pattern.partition("*")[0])


@dataclass(frozen=True)
class CompilerPaths:
    """The effective alias settings of one config file, paths made repo-relative."""

    base_url: str | None
    aliases: tuple[PathAlias, ...]

    def candidates(self, specifier: str) -> list[str]:
        """Repo-relative paths (without extension guessing) a bare specifier may mean.

        As in TypeScript: the matching pattern with the longest prefix wins and its
        targets are tried in order; then ``baseUrl`` joined with the specifier.
        """
        matches = [(alias, alias.match(specifier)) for alias in self.aliases]
        hits = [(alias, star) for alias, star in matches if star is not None]
        found: list[str] = []
        if hits:
            alias, star = max(hits, key=lambda hit: hit[0].prefix_length)
            for target in alias.targets:
                path = _normalise(target.replace("*", star, 1))
                if path is not None:
                    found.append(path)
        if self.base_url is not None:
            path = _normalise(posixpath.join(self.base_url, specifier))
            if path is not None:
                found.append(path)
        return found


def _normalise(path: str) -> str | None:
    """A clean repo-relative path, or None when it leaves the repository."""
    clean = posixpath.normpath(path)
    if clean == ".":
        return ""
    if clean.startswith("../") or clean == ".." or clean.startswith("/"):
        return None
    return clean


def parse_jsonc(text: str) -> Any:
    """Parse JSON that may contain ``//`` and ``/* */`` comments and trailing commas."""
    without_comments = _strip_comments(text)
    without_commas = re.sub(r",(\s*[}\]])", r"\1", without_comments)
    return json.loads(without_commas)


def _strip_comments(text: str) -> str:
    """Remove comments outside string literals, keeping line structure."""
    out: list[str] = []
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == '"':
            end = index + 1
            while end < length and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[index : end + 1])
            index = end + 1
        elif text.startswith("//", index):
            newline = text.find("\n", index)
            index = length if newline < 0 else newline
        elif text.startswith("/*", index):
            close = text.find("*/", index + 2)
            index = length if close < 0 else close + 2
            out.append(" ")
        else:
            out.append(char)
            index += 1
    return "".join(out)


class TsConfigIndex:
    """Every config file of a tree, answering 'which aliases apply to this file?'."""

    def __init__(self, tree: SourceTree, paths: list[str]) -> None:
        self._tree = tree
        self._config_by_dir: dict[str, str] = {}
        for path in paths:
            name = posixpath.basename(path)
            if name in CONFIG_NAMES:
                directory = posixpath.dirname(path)
                current = self._config_by_dir.get(directory)
                if current is None or name == CONFIG_NAMES[0]:
                    self._config_by_dir[directory] = path
        self._resolved: dict[str, CompilerPaths] = {}
        self._owner: dict[str, str | None] = {}

    def for_file(self, path: str) -> CompilerPaths | None:
        """The settings of the nearest config in ``path``'s directory or above."""
        directory = posixpath.dirname(path)
        if directory not in self._owner:
            self._owner[directory] = self._nearest_config(directory)
        config = self._owner[directory]
        return None if config is None else self._settings(config)

    def _nearest_config(self, directory: str) -> str | None:
        while True:
            config = self._config_by_dir.get(directory)
            if config is not None:
                return config
            if not directory:
                return None
            directory = posixpath.dirname(directory)

    def _settings(self, config: str) -> CompilerPaths:
        if config not in self._resolved:
            self._resolved[config] = self._load(config, depth=0)
        return self._resolved[config]

    def _load(self, config: str, depth: int) -> CompilerPaths:
        """Settings of ``config`` merged over the configs it extends."""
        data = self._read(config)
        inherited = CompilerPaths(base_url=None, aliases=())
        if depth < _MAX_EXTENDS_DEPTH:
            for parent in self._parents(config, data):
                loaded = self._load(parent, depth + 1)
                inherited = CompilerPaths(
                    base_url=loaded.base_url if loaded.base_url is not None else inherited.base_url,
                    aliases=loaded.aliases or inherited.aliases,
                )
        options = data.get("compilerOptions")
        if not isinstance(options, dict):
            return inherited
        here = posixpath.dirname(config)
        base_url = inherited.base_url
        raw_base = options.get("baseUrl")
        if isinstance(raw_base, str):
            base_url = _normalise(posixpath.join(here, raw_base))
        aliases = inherited.aliases
        raw_paths = options.get("paths")
        if isinstance(raw_paths, dict):
            # Targets are relative to baseUrl when set, else to the config declaring them.
            anchor = base_url if base_url is not None else here
            aliases = tuple(
                PathAlias(
                    pattern=pattern,
                    targets=tuple(
                        posixpath.join(anchor, target)
                        for target in targets
                        if isinstance(target, str)
                    ),
                )
                for pattern, targets in raw_paths.items()
                if isinstance(targets, list)
            )
        return CompilerPaths(base_url=base_url, aliases=aliases)

    def _read(self, config: str) -> dict[str, Any]:
        text = self._tree.read_text(config)
        if text is None:
            return {}
        try:
            data = parse_jsonc(text)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def _parents(self, config: str, data: dict[str, Any]) -> list[str]:
        """Relative ``extends`` targets that exist in the tree (packages are skipped)."""
        raw = data.get("extends")
        entries = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
        parents: list[str] = []
        for entry in entries:
            if not isinstance(entry, str) or not entry.startswith("."):
                continue
            path = _normalise(posixpath.join(posixpath.dirname(config), entry))
            if path is None:
                continue
            if not path.endswith(".json"):
                path += ".json"
            if path != config:
                parents.append(path)
        return parents
