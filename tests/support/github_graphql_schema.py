"""GitHub's published GraphQL schema, as the loopback GitHub checks and answers queries with.

The schema (SDL) ships in the npm package ``@octokit/graphql-schema``, which
GitHub's SDK team regenerates from the live API.
"""

from __future__ import annotations

from functools import lru_cache

from graphql import GraphQLSchema, build_schema

from tests.support.npm_files import cached_npm_file

NPM_PACKAGE = "@octokit/graphql-schema@15.26.1"
MEMBER = "package/schema.graphql"


@lru_cache(maxsize=1)
def github_graphql_schema() -> GraphQLSchema:
    """The schema, built once per process (about a second)."""
    path = cached_npm_file(NPM_PACKAGE, MEMBER, "github-schema-15.26.1.graphql")
    schema = build_schema(path.read_text(encoding="utf-8"), assume_valid_sdl=True)
    # GitHub's schema breaks two rules newer GraphQL libraries enforce (a field defined
    # twice, deprecation differing from an interface). It is what GitHub serves, so
    # queries are checked against it as published: mark it validated.
    schema._validation_errors = []
    return schema
