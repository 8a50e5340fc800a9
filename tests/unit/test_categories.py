"""File categories and config tiers for the paths real repositories contain."""

from __future__ import annotations

import pytest

from prflow.analysis.categories import categorize, config_changes, config_tier
from prflow.analysis.findings import ConfigTier
from prflow.changes import ChangedFile, FileCategory, FileStatus

SOURCE = FileCategory.source
TEST = FileCategory.test
DOC = FileCategory.doc
CONFIG = FileCategory.config
OTHER = FileCategory.other

CI = ConfigTier.ci_build
DEPLOY = ConfigTier.deploy
LOCK = ConfigTier.env_or_lock
OTHER_CFG = ConfigTier.other

CASES: list[tuple[str, FileCategory, ConfigTier | None]] = [
    # source
    ("src/client.py", SOURCE, None),
    ("lib/index.js", SOURCE, None),
    ("web/App.tsx", SOURCE, None),
    ("web/Button.jsx", SOURCE, None),
    ("pkg/util.mjs", SOURCE, None),
    ("cmd/server/main.go", SOURCE, None),
    ("docs/conf.py", SOURCE, None),
    ("deploy/scripts/rollout.py", SOURCE, None),
    # tests
    ("tests/test_client.py", TEST, None),
    ("pkg/client_test.py", TEST, None),
    ("conftest.py", TEST, None),
    ("web/App.test.tsx", TEST, None),
    ("web/api.spec.ts", TEST, None),
    ("web/__tests__/App.jsx", TEST, None),
    ("src/main/java/FooTest.java", TEST, None),
    ("cmd/server/main_test.go", TEST, None),
    ("tests/fixtures/settings.json", TEST, OTHER_CFG),
    # docs
    ("README.md", DOC, None),
    ("README", DOC, None),
    ("LICENSE", DOC, None),
    ("docs/guide/install.rst", DOC, None),
    ("docs/intro.mdx", DOC, None),
    ("notes.txt", DOC, None),
    (".github/PULL_REQUEST_TEMPLATE.md", DOC, None),
    (".gitlab/issue_templates/bug.md", DOC, None),
    # CI / build: 100
    (".github/workflows/ci.yml", CONFIG, CI),
    (".github/workflows/release.yaml", CONFIG, CI),
    (".github/actions/setup/action.yml", CONFIG, CI),
    (".gitlab-ci.yml", CONFIG, CI),
    (".gitlab/ci/build.yml", CONFIG, CI),
    (".circleci/config.yml", CONFIG, CI),
    ("Jenkinsfile", CONFIG, CI),
    ("Makefile", CONFIG, CI),
    ("tools/rules.mk", CONFIG, CI),
    ("tsconfig.json", CONFIG, CI),
    ("packages/web/tsconfig.build.json", CONFIG, CI),
    ("webpack.config.js", CONFIG, CI),
    ("vite.config.ts", CONFIG, CI),
    ("babel.config.cjs", CONFIG, CI),
    (".babelrc", CONFIG, CI),
    ("rollup.config.mjs", CONFIG, CI),
    ("setup.py", CONFIG, CI),
    ("setup.cfg", CONFIG, CI),
    ("pyproject.toml", CONFIG, CI),
    ("package.json", CONFIG, CI),
    ("packages/web/package.json", CONFIG, CI),
    ("tox.ini", CONFIG, CI),
    ("noxfile.py", CONFIG, CI),
    # deploy: 75
    ("Dockerfile", CONFIG, DEPLOY),
    ("docker/Dockerfile.prod", CONFIG, DEPLOY),
    ("api.dockerfile", CONFIG, DEPLOY),
    ("docker-compose.yml", CONFIG, DEPLOY),
    ("compose.override.yaml", CONFIG, DEPLOY),
    ("k8s/deployment.yaml", CONFIG, DEPLOY),
    ("deploy/helm/values.yaml", CONFIG, DEPLOY),
    ("charts/api/templates/_helpers.tpl", CONFIG, DEPLOY),
    ("overlays/prod/kustomization.yaml", CONFIG, DEPLOY),
    ("infra/main.tf", CONFIG, DEPLOY),
    ("infra/prod.tfvars", CONFIG, DEPLOY),
    ("Procfile", CONFIG, DEPLOY),
    ("serverless.yml", CONFIG, DEPLOY),
    ("fly.toml", CONFIG, DEPLOY),
    ("vercel.json", CONFIG, DEPLOY),
    ("netlify.toml", CONFIG, DEPLOY),
    # env templates and lockfiles: 25
    (".env.example", CONFIG, LOCK),
    ("config/.env.sample", CONFIG, LOCK),
    (".env", CONFIG, LOCK),
    ("poetry.lock", CONFIG, LOCK),
    ("uv.lock", CONFIG, LOCK),
    ("Cargo.lock", CONFIG, LOCK),
    ("yarn.lock", CONFIG, LOCK),
    ("package-lock.json", CONFIG, LOCK),
    ("pnpm-lock.yaml", CONFIG, LOCK),
    ("go.sum", CONFIG, LOCK),
    ("requirements-dev.txt", CONFIG, LOCK),
    ("requirements/storage/etcd.txt", CONFIG, LOCK),
    ("requirements/base.in", CONFIG, LOCK),
    # other config: 50
    ("config/settings.yaml", CONFIG, OTHER_CFG),
    ("app/config.json", CONFIG, OTHER_CFG),
    ("ruff.toml", CONFIG, OTHER_CFG),
    ("mypy.ini", CONFIG, OTHER_CFG),
    ("nginx.conf", CONFIG, OTHER_CFG),
    (".eslintrc", CONFIG, OTHER_CFG),
    (".eslintrc.cjs", CONFIG, OTHER_CFG),
    (".prettierrc.json", CONFIG, OTHER_CFG),
    (".editorconfig", CONFIG, OTHER_CFG),
    (".gitignore", CONFIG, OTHER_CFG),
    ("eslint.config.js", CONFIG, OTHER_CFG),
    ("jest.config.ts", CONFIG, OTHER_CFG),
    (".github/dependabot.yml", CONFIG, OTHER_CFG),
    (".pre-commit-config.yaml", CONFIG, OTHER_CFG),
    # other
    ("assets/logo.png", OTHER, None),
    ("fonts/Inter.woff2", OTHER, None),
    ("CODEOWNERS", OTHER, None),
]


@pytest.mark.parametrize(("path", "category", "tier"), CASES)
def test_category_and_tier(path: str, category: FileCategory, tier: ConfigTier | None) -> None:
    assert (categorize(path), config_tier(path)) == (category, tier)


def changed(path: str, old_path: str | None = None) -> ChangedFile:
    status = FileStatus.renamed if old_path else FileStatus.modified
    return ChangedFile(path=path, status=status, old_path=old_path, additions=1)


def test_config_changes_riskiest_first_with_scores() -> None:
    changes = config_changes(
        [
            changed("src/app.py"),
            changed("poetry.lock"),
            changed("README.md"),
            changed("Dockerfile"),
            changed(".github/workflows/ci.yml"),
            changed("config/app.yaml"),
        ]
    )
    assert [(c.path, c.tier, c.score) for c in changes] == [
        (".github/workflows/ci.yml", CI, 100),
        ("Dockerfile", DEPLOY, 75),
        ("config/app.yaml", OTHER_CFG, 50),
        ("poetry.lock", LOCK, 25),
    ]


def test_moving_a_ci_workflow_away_still_counts_as_ci() -> None:
    [change] = config_changes([changed("old/ci.yml", old_path=".github/workflows/ci.yml")])
    assert (change.path, change.tier, change.score) == ("old/ci.yml", CI, 100)


def test_json_fixtures_in_tests_are_not_config_changes() -> None:
    assert config_changes([changed("tests/fixtures/package.json")]) == []
