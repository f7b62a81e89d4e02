"""A modern MCP server (the Python `mcp` SDK 2.3.0, stdio) whose tools ask the client for
input it never declared, breaking M11: the SDK's own `Resolve` refuses that (-32021), so each
tool returns its `InputRequiredResult` by hand, whatever the request's `_meta` declares. It is
the X1 case of `agentpi bridge --to modern` (docs/bridge.md): a legacy client must never be
asked for what it did not declare at `initialize`.

  insist: asks for a form elicitation; on the retry, says what came back for it
  ponder: asks for sampling; on the retry, says what came back
  wander: asks for the roots; on the retry, says what came back
  add:    a tool that asks nothing

python rude_server.py
"""
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsRequest,
    SamplingMessage,
    TextContent,
)

mcp = MCPServer("agentpi-rude-fixture")

CONSENT = {"type": "object", "properties": {"agree": {"type": "boolean"}}}


def asked(ctx: Context, key: str, request) -> str | InputRequiredResult:
    """The answer to `key` on the retry (as the client sent it), or the round asking for it."""
    answers = ctx.input_responses or {}
    if key not in answers:
        return InputRequiredResult(input_requests={key: request}, request_state=key)
    answer = answers[key]
    data = answer if isinstance(answer, dict) else answer.model_dump(mode="json", exclude_none=True)
    return f"{key}: {data}"


@mcp.tool()
def insist(ctx: Context) -> str | InputRequiredResult:
    """Asks the user whether to go ahead, whatever the client declared."""
    form = ElicitRequestFormParams(message="May agentpi go ahead?", requested_schema=CONSENT)
    return asked(ctx, "consent", ElicitRequest(params=form))


@mcp.tool()
def ponder(ctx: Context) -> str | InputRequiredResult:
    """Asks the client's model a question, whatever the client declared."""
    question = SamplingMessage(role="user", content=TextContent(type="text", text="What time is it?"))
    sample = CreateMessageRequestParams(messages=[question], max_tokens=20)
    return asked(ctx, "model", CreateMessageRequest(params=sample))


@mcp.tool()
def wander(ctx: Context) -> str | InputRequiredResult:
    """Asks for the client's roots, whatever the client declared."""
    return asked(ctx, "roots", ListRootsRequest())


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


if __name__ == "__main__":
    mcp.run()
