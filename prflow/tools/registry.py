"""The six repository tools as the model sees them, and one entry point to run any of them.

Each tool's JSON schema is generated from its argument model, so what the
model is told and what is validated cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from prflow.llm.messages import ToolSpec
from prflow.repo_models import ResolvedRange
from prflow.tools import changed_files, find_importers, git_diff, read_file, search_code, test_files
from prflow.tools.output import ToolOutput
from prflow.tools.reader import RepoReader, ToolError


class ToolResult(BaseModel):
    """What a tool call produced: the text shown to the model and the structured data."""

    tool: str
    text: str
    data: dict[str, Any]


@dataclass(frozen=True)
class _Tool:
    name: str
    description: str
    args_model: type[BaseModel]
    run: Callable[[RepoReader, ResolvedRange, Any], ToolOutput]


_TOOLS: tuple[_Tool, ...] = (
    _Tool(
        changed_files.NAME,
        changed_files.DESCRIPTION,
        changed_files.ListChangedFilesArgs,
        changed_files.list_changed_files,
    ),
    _Tool(git_diff.NAME, git_diff.DESCRIPTION, git_diff.GitDiffArgs, git_diff.git_diff),
    _Tool(
        read_file.NAME, read_file.DESCRIPTION, read_file.ReadFileArgs, read_file.read_file_at_ref
    ),
    _Tool(
        search_code.NAME,
        search_code.DESCRIPTION,
        search_code.SearchCodeArgs,
        search_code.search_code,
    ),
    _Tool(
        find_importers.NAME,
        find_importers.DESCRIPTION,
        find_importers.FindImportersArgs,
        find_importers.find_importers,
    ),
    _Tool(
        test_files.NAME,
        test_files.DESCRIPTION,
        test_files.ListTestFilesArgs,
        test_files.list_test_files,
    ),
)
_BY_NAME = {tool.name: tool for tool in _TOOLS}
TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in _TOOLS)


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The argument model's JSON schema as compact as a model needs it.

    Every tool definition is resent with every request, so what only costs
    tokens goes: titles, ``additionalProperties`` (arguments are validated on
    arrival anyway), and the ``anyOf [X, null]`` + ``default: null`` pydantic
    writes for an optional value, which a property left out of ``required``
    already says.
    """
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.pop("additionalProperties", None)
    for name, prop in schema.get("properties", {}).items():
        prop.pop("title", None)
        options = prop.get("anyOf")
        if options and {"type": "null"} in options and len(options) == 2:
            prop.pop("anyOf")
            prop.update(next(o for o in options if o != {"type": "null"}))
            if prop.get("default", 0) is None:
                prop.pop("default")
        schema["properties"][name] = prop
    return schema


TOOL_SPECS: list[ToolSpec] = [
    ToolSpec(name=t.name, description=t.description, input_schema=input_schema(t.args_model))
    for t in _TOOLS
]


def run_tool(
    reader: RepoReader, r: ResolvedRange, name: str, arguments: dict[str, Any]
) -> ToolResult:
    """Validate ``arguments`` and run tool ``name``; any caller mistake is a :class:`ToolError`."""
    tool = _BY_NAME.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name!r}; available tools: {', '.join(TOOL_NAMES)}")
    try:
        args = tool.args_model.model_validate(arguments)
    except ValidationError as exc:
        raise ToolError(f"invalid arguments for {name}: {describe_validation_error(exc)}") from None
    result = tool.run(reader, r, args)
    return ToolResult(tool=name, text=result.to_text(), data=result.model_dump(mode="json"))


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem, naming the argument: 'pattern: Field required'."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    return "; ".join(problems)
