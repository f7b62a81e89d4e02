"""A to-do list server written with FastMCP 2 the way its documentation shows, for `agentpi lint`.

It is not broken on purpose: it is what a server author writes with the framework's defaults
(docstrings as descriptions, `Annotated`/`Field` for a few parameters, annotations on some tools),
so that the linter is measured on a FastMCP 2 listing as it comes out of the framework,
`_meta["_fastmcp"]` included. Runs on stdio.
"""
from datetime import date
from typing import Annotated, Literal

from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("tasks")
TASKS: dict[int, dict] = {}


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def list_tasks(
    status: Literal["open", "done", "all"] = "open",
    limit: Annotated[int, Field(description="Maximum number of tasks to return", ge=1)] = 20,
) -> list[dict]:
    """List tasks, newest first, filtered by status."""
    tasks = [t for t in TASKS.values() if status == "all" or t["status"] == status]
    return tasks[:limit]


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False})
def add_task(
    title: Annotated[str, Field(description="What has to be done")],
    due: Annotated[date | None, Field(description="The day the task is due")] = None,
    priority: Annotated[str, Field(description="Priority: one of low, normal or high")] = "normal",
) -> dict:
    """Add a task to the list and return it with its new id."""
    task = {"id": len(TASKS) + 1, "title": title, "due": due, "priority": priority, "status": "open"}
    TASKS[task["id"]] = task
    return task


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False})
def delete_task(task_id: int) -> str:
    """Delete a task by its id. Fails if there is no task with that id."""
    if TASKS.pop(task_id, None) is None:
        raise ValueError(f"no task {task_id}")
    return f"deleted {task_id}"


if __name__ == "__main__":
    mcp.run(show_banner=False)
