"""Token economy of a review against ``prflow impact`` on real release pairs (issue 20 item 7)."""
