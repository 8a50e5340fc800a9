"""A task's outcome and its record share one set of work fields, and read what was stored.

The run keeps a :class:`TaskRecord` per task (carried across continue-as-new) and each
task workflow returns a :class:`TaskOutcome`; both hold the same work fields through one
base model. Payloads written before that base existed, in their old key order, still
decode to the same values.
"""

from __future__ import annotations

import json

from prflow.refactor.run_models import TaskOutcome, TaskRecord, TaskWork

# As the run stored them before: TaskRecord's and TaskOutcome's own key order.
STORED_RECORD = (
    '{"task_id":"t2","status":"done","attempts":2,"changed_files":["a.py"],'
    '"state_key":"blob:s","reason":"tests pass","audit":["w: x"],"regressions":[],'
    '"tests_run":7,"requests":3,"spent":{"input_tokens":10,"output_tokens":5,'
    '"cache_read_tokens":0,"cache_write_tokens":0,"usd":0.01,"calls":3,"iterations":3},'
    '"agents":[{"name":"executor","attempt":1,"stop":"done","detail":"","turns":3,'
    '"transcript_key":null,"decision":"accept","decision_reason":"ok"}],"merge_order":0,'
    '"bundle_key":"blob:b","waits_for":["t3"],"expected":["tests/test_a.py::t"]}'
)
STORED_OUTCOME = (
    '{"task_id":"t2","action":"accept","reason":"tests pass","workspace":{"repo":"/src/api",'
    '"base_sha":"abc","state_key":"blob:s","patch_log_key":null,"run_id":"refactor:x",'
    '"revision":1},"changed_files":["a.py"],"attempts":2,"audit":["w: x"],"regressions":[],'
    '"tests_run":7,"requests":3,"spent":{"usd":0.01,"calls":3},"agents":[],'
    '"bundle_key":"blob:b","waits_for":["t3"],"expected":[]}'
)


def test_stored_records_and_outcomes_decode_to_the_same_values() -> None:
    for model, stored in ((TaskRecord, STORED_RECORD), (TaskOutcome, STORED_OUTCOME)):
        expected = json.loads(stored)
        again = json.loads(model.model_validate_json(stored).model_dump_json())
        assert set(again) == set(expected) == set(model.model_fields), model
        spent = again.pop("spent")
        assert (spent["usd"], spent["calls"]) == (0.01, 3)
        assert again == {k: v for k, v in expected.items() if k != "spent"}, model


def test_the_work_fields_are_one_set_and_the_rest_is_each_models_own() -> None:
    work = set(TaskWork.model_fields)
    assert len(work) == 12 and work <= set(TaskRecord.model_fields)
    assert work <= set(TaskOutcome.model_fields)
    assert set(TaskRecord.model_fields) - work == {"status", "state_key", "reason", "merge_order"}
    assert set(TaskOutcome.model_fields) - work == {"action", "reason", "workspace"}
