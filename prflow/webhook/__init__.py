"""The GitHub webhook receiver (``prflow webhook``): an ASGI app that only verifies and signals."""
