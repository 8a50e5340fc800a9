"""The conversation after a review: one long-lived workflow per open PR that answers replies
in prflow's threads, remembers rebuttals and resolves the threads a push fixed."""
