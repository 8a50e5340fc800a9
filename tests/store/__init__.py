"""Tests of the ledger, the blob store and `prflow costs`."""
