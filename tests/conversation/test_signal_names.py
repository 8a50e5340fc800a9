"""The names senders use are the names the conversation workflow's handlers listen on."""

from __future__ import annotations

from temporalio.workflow import _Definition

from prflow.conversation.kind import WORKFLOW_KIND, Signal
from workflows.conversation import ConversationWorkflow


def test_every_sent_signal_name_has_a_handler_and_the_workflow_type_matches() -> None:
    definition = _Definition.must_from_class(ConversationWorkflow)
    sent = {value for name, value in vars(Signal).items() if name.isupper()}

    assert definition.name == WORKFLOW_KIND
    assert len(sent) == 5
    assert sent <= set(definition.signals)
