"""Doc sync benchmark: which docs a release's API change affects, against upstream's own edits."""
