"""The multi-agent review: pure domain code (models, anatomy, synthesis, line mapping, rendering).

Nothing here does I/O or imports Temporal; the ``review`` workflow and its
activities call these functions with data they loaded.
"""
