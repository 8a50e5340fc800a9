"""What kind of file a path is, and how risky a change to a configuration file is.

Everything here judges by the path alone (no file contents), so the answer is
the same for a deleted file as for an added one. Rules are checked in this
order: test, configuration, documentation, source, other.

Edge cases, decided on purpose:

- ``setup.py``, ``noxfile.py``, ``conftest.py`` are code, but ``setup.py`` and
  ``noxfile.py`` drive builds so they count as CI/build config, and
  ``conftest.py`` is test infrastructure so it counts as a test.
- ``pyproject.toml`` is always CI/build: without reading it we cannot tell
  whether only its build sections changed, so we assume the riskier case.
- ``requirements*.txt`` and ``constraints*.txt`` pin dependencies like a
  lockfile, so they share the lockfile tier rather than being read as docs.
- A real ``.env`` counts with the env templates: committing one is a problem,
  but its blast radius is the same as a template's.
- YAML/JSON under ``.github/workflows``, ``.gitlab``, ``.circleci``,
  ``k8s``/``helm``/``charts``/``deploy`` take their directory's tier; the same
  extensions elsewhere are "other config".
- Data files inside test directories (``tests/fixtures/x.json``) are tests.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise
from pathlib import PurePosixPath

from prflow.analysis.findings import CONFIG_TIER_SCORE, ConfigChange, ConfigTier
from prflow.changes import ChangedFile, FileCategory

CONFIG_TIER_LABEL: dict[ConfigTier, str] = {
    ConfigTier.ci_build: "CI/build",
    ConfigTier.deploy: "deploy",
    ConfigTier.other: "other config",
    ConfigTier.env_or_lock: "env template/lockfile",
}

SOURCE_EXTENSIONS = frozenset(
    {
        ".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts",
        ".vue", ".svelte", ".go", ".rs", ".java", ".kt", ".kts", ".scala", ".rb",
        ".php", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".m", ".sh",
        ".bash", ".sql", ".lua", ".ex", ".exs", ".erl", ".dart", ".r", ".jl",
    }
)  # fmt: skip

DOC_EXTENSIONS = frozenset({".md", ".mdx", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc"})
DOC_BASENAMES = frozenset({"readme", "changelog", "changes", "contributing", "license", "authors"})

OTHER_CONFIG_EXTENSIONS = frozenset(
    {".yaml", ".yml", ".json", ".jsonc", ".json5", ".toml", ".ini", ".cfg", ".conf", ".properties"}
)

TEST_DIRECTORIES = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing"})
PACKAGE_API_DIRECTORIES = frozenset({"test", "testing"})
"""Test folders at the top of a repository, but inside a Python package often public API
shipped to users (``django/test/``, ``numpy/testing/``, ``sympy/testing/``) or doc examples:
there a ``.py`` file is a test only when it is named like one."""
_TEST_FILE = re.compile(
    r"""^(
        test_.+\.py | .+_test\.py | conftest\.py
      | .+\.(test|spec)\.[cm]?[jt]sx?
      | .+_test\.go | .+_spec\.rb | .+Test\.(java|kt)
    )$""",
    re.VERBOSE,
)

CI_BUILD_BASENAMES = frozenset(
    {
        ".gitlab-ci.yml", ".travis.yml", "jenkinsfile", "azure-pipelines.yml",
        "bitbucket-pipelines.yml", "makefile", "gnumakefile", "cmakelists.txt",
        "setup.py", "setup.cfg", "pyproject.toml", "package.json", "tox.ini",
        "noxfile.py", ".babelrc", "turbo.json", "nx.json", "lerna.json",
        "cargo.toml", "go.mod", "pom.xml", "build.gradle", "build.gradle.kts",
        "settings.gradle", "gemfile", "manifest.in", "jsconfig.json",
    }
)  # fmt: skip
CI_BUILD_DIRECTORIES = ((".github", "workflows"), (".github", "actions"))
CI_BUILD_TOP_DIRECTORIES = frozenset({".circleci", ".gitlab", ".buildkite"})
_BUILD_TOOL_CONFIG = re.compile(
    r"^(tsconfig(\..+)?\.json"
    r"|(webpack|vite|babel|rollup|esbuild|tsup|swc)\.config\.[a-z]+"
    r"|\.swcrc|[^/]+\.mk)$"
)

DEPLOY_BASENAMES = frozenset(
    {
        "dockerfile", ".dockerignore", "procfile", "serverless.yml", "serverless.yaml",
        "fly.toml", "vercel.json", "netlify.toml", "kustomization.yaml",
        "kustomization.yml", "chart.yaml", "skaffold.yaml", "render.yaml",
    }
)  # fmt: skip
DEPLOY_DIRECTORIES = frozenset(
    {"k8s", "kubernetes", "helm", "charts", "kustomize", "terraform", "deploy", "manifests"}
)
_DEPLOY_FILE = re.compile(
    r"^(dockerfile\..+|.+\.dockerfile|(docker-)?compose(\..+)?\.ya?ml|.+\.(tf|tfvars|hcl))$"
)

LOCK_BASENAMES = frozenset(
    {"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "go.sum", "bun.lockb"}
)
_ENV_OR_LOCK_FILE = re.compile(
    r"^(\.env(\..+)?|.+\.env\.(example|sample|template)"
    r"|.+\.lock|(requirements|constraints)([-_.].+)?\.(txt|in))$"
)
_RC_FILE = re.compile(r"^\.[a-z0-9_-]+rc(\..+)?$")


_PATHS_REMEMBERED = 1 << 16
"""Judgements kept per path: a large repository asks about the same files many times."""


@lru_cache(maxsize=_PATHS_REMEMBERED)
def _parts(path: str) -> tuple[tuple[str, ...], str]:
    """Lower-cased parent directories and basename of a repo-relative POSIX path."""
    pure = PurePosixPath(path.strip("/"))
    return tuple(part.lower() for part in pure.parts[:-1]), pure.name.lower()


@lru_cache(maxsize=_PATHS_REMEMBERED)
def is_test_file(path: str) -> bool:
    """True for files under a test directory or named like a test by common conventions."""
    directories, name = _parts(path)
    nested_python = name.endswith(".py")
    for depth, directory in enumerate(directories):
        if directory not in TEST_DIRECTORIES:
            continue
        if depth == 0 or not nested_python or directory not in PACKAGE_API_DIRECTORIES:
            return True
    original_name = PurePosixPath(path).name
    return bool(_TEST_FILE.match(name) or _TEST_FILE.match(original_name))


def config_tier(path: str) -> ConfigTier | None:
    """The risk tier of a configuration file, or None when the path is not configuration."""
    directories, name = _parts(path)
    if _is_ci_build(directories, name):
        return ConfigTier.ci_build
    if _is_deploy(directories, name):
        return ConfigTier.deploy
    if name in LOCK_BASENAMES or _ENV_OR_LOCK_FILE.match(name):
        return ConfigTier.env_or_lock
    if "requirements" in directories and PurePosixPath(name).suffix in (".txt", ".in"):
        return ConfigTier.env_or_lock  # ``requirements/storage/etcd.txt``: pip's, no prose
    if _is_other_config(name):
        return ConfigTier.other
    return None


def _is_ci_build(directories: tuple[str, ...], name: str) -> bool:
    if name in CI_BUILD_BASENAMES or _BUILD_TOOL_CONFIG.match(name):
        return True
    if PurePosixPath(name).suffix in DOC_EXTENSIONS:
        return False  # issue templates and READMEs next to CI files are prose
    if directories and directories[0] in CI_BUILD_TOP_DIRECTORIES:
        return True
    pairs = pairwise(directories)
    return any(pair in CI_BUILD_DIRECTORIES for pair in pairs)


def _is_deploy(directories: tuple[str, ...], name: str) -> bool:
    if name in DEPLOY_BASENAMES or _DEPLOY_FILE.match(name):
        return True
    in_deploy_dir = any(directory in DEPLOY_DIRECTORIES for directory in directories)
    return in_deploy_dir and PurePosixPath(name).suffix in OTHER_CONFIG_EXTENSIONS | {".tpl"}


def _is_other_config(name: str) -> bool:
    suffix = PurePosixPath(name).suffix
    if suffix in OTHER_CONFIG_EXTENSIONS:
        return True
    if re.match(r"^[^.]+\.config\.[cm]?[jt]s$", name):
        return True  # eslint.config.js, jest.config.ts, prettier.config.mjs ...
    if _RC_FILE.match(name):
        return True  # .eslintrc, .prettierrc.json, .eslintrc.cjs, .npmrc ...
    # Other dotfiles such as .editorconfig, .gitignore, .python-version.
    return name.startswith(".") and suffix not in SOURCE_EXTENSIONS | DOC_EXTENSIONS


def is_doc_file(path: str) -> bool:
    """Prose meant for people: Markdown/reST/text files and README-like names."""
    _, name = _parts(path)
    pure = PurePosixPath(name)
    if pure.suffix in DOC_EXTENSIONS:
        return True
    return pure.suffix == "" and pure.name in DOC_BASENAMES


@lru_cache(maxsize=_PATHS_REMEMBERED)
def categorize(path: str) -> FileCategory:
    """source / test / doc / config / other, judged from the path alone."""
    if is_test_file(path):
        return FileCategory.test
    if config_tier(path) is not None:
        return FileCategory.config
    if is_doc_file(path):
        return FileCategory.doc
    if PurePosixPath(path).suffix.lower() in SOURCE_EXTENSIONS:
        return FileCategory.source
    return FileCategory.other


def config_changes(changed: list[ChangedFile]) -> list[ConfigChange]:
    """Changed configuration files with their tier, riskiest first.

    A renamed file keeps the higher tier of its old and new path, so moving a
    CI workflow out of ``.github/workflows`` still counts as a CI change.
    """
    found: list[ConfigChange] = []
    for file in changed:
        tiers = [
            tier
            for path in (file.path, file.old_path)
            if path is not None and (tier := _config_tier_of_config_file(path)) is not None
        ]
        if tiers:
            tier = max(tiers, key=CONFIG_TIER_SCORE.__getitem__)
            found.append(ConfigChange(path=file.path, tier=tier, score=CONFIG_TIER_SCORE[tier]))
    return sorted(found, key=lambda change: (-change.score, change.path))


def _config_tier_of_config_file(path: str) -> ConfigTier | None:
    """The tier of a path categorized as config (a JSON fixture under tests/ is not)."""
    if categorize(path) != FileCategory.config:
        return None
    return config_tier(path)
