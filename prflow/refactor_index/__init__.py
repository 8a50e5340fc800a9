"""The refactor index of a snapshot (symbols, imports, React facts, embeddings) and retrieval.

API for the refactor workflow (activities in ``activities/refactor.py``
wrap these with the database; pure code and tests use the in-memory caches):

- :func:`build_index(tree, caches, include=, exclude=) <prflow.refactor_index.build.build_index>`
  -> :class:`~prflow.refactor_index.models.RepoIndex`: every Python / JS / TS /
  JSX / TSX file selected by gitignore-style globs, its blob SHA, the import
  edges between files (``prflow.imports``), ``is_react_project`` /
  ``is_next_project``. Per-file records (:class:`FileRecord`: symbols,
  exports, imports, words) live in the shared parse cache by blob SHA;
  vectors in the shared vector cache by text SHA-256 and model.
- :func:`update_index(previous, tree, changed_paths, caches)
  <prflow.refactor_index.build.update_index>`: re-reads only ``changed_paths``.
- :func:`retrieve(query, index, caches, settings) <prflow.refactor_index.search.retrieve>`
  -> :class:`~prflow.refactor_index.retrieval.RetrievalBundle`: hybrid
  (BM25 + embedding + literal names + import-graph expansion) ranking; every
  path is an indexed path.
- :func:`unknown_paths(paths, index) <prflow.refactor_index.retrieval.unknown_paths>`:
  the paths a plan or a model named that are not in the snapshot.
- :func:`embedding_records(index, records) <prflow.refactor_index.records.embedding_records>`:
  seed 003's per-symbol metadata, with ``react_metadata`` in React projects.
- :func:`load_records(index, parses) <prflow.refactor_index.build.load_records>`:
  path -> :class:`FileRecord`.
"""
