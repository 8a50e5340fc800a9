"""Doc sync: which docs a code change affects, and targeted, reasoned edits to them.

Pure domain code: :mod:`.targets` lists what a change altered (symbols, paths,
CLI options, config keys, environment variables), :mod:`.doc_index` reads the
docs (globs, front matter, links), :mod:`.finding` buckets each doc with its
evidence, :mod:`.audit` shapes the edits' audit trail.
"""
