"""The org-wide PR queue: one long-lived workflow per pull request.

Webhook deliveries and polling both become :class:`~prflow.queue.events.PrEvent`
values; the per-PR workflow folds them into :class:`~prflow.queue.state.QueueState`
with the pure rules in :mod:`prflow.queue.rules`, runs the configured job kinds
as child workflows, and asks the organisation's gate (:mod:`prflow.queue.gate`)
for a slot first so one busy repository cannot take every runner.
"""
