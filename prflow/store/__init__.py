"""Durable local state: the LLM cost ledger and the content-addressed blob store.

Everything here talks to one SQLAlchemy database URL (Postgres in production,
a SQLite file by default). The schema is created and upgraded by Alembic on
first use of a URL in a process, so callers only ever pass the URL. Import the
modules (``prflow.store.blobs``, ``prflow.store.ledger``, ...) directly: this
package imports nothing itself, so a command that only reads a report does not
pay for SQLAlchemy.
"""
