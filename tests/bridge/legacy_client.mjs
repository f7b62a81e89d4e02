// A legacy MCP client (the TypeScript SDK 1.x, `Client`) for `agentpi bridge`'s tests: the
// same session as legacy_client.py (elicitation and sampling declared; lists, add, echo,
// confirm, think, a resource, a prompt, a ping), one JSON line per answer.
//
// `rmcp` instead of `all`: the session for crates/cli/examples/rmcp_asks.rs (its tools, add,
// confirm twice in a row, think (a sampling), a ping).
//
// node legacy_client.mjs all CMD ARGS...
// node legacy_client.mjs all URL          (Streamable HTTP)
import { pathToFileURL } from "node:url";
import path from "node:path";

const sdk = path.join(import.meta.dirname, "../peers/node_modules/@modelcontextprotocol/sdk/dist/esm");
const load = (file) => import(pathToFileURL(path.join(sdk, file)));
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { CreateMessageRequestSchema, ElicitRequestSchema } = await load("types.js");

const [, , scenario, command, ...args] = process.argv;
const client = new Client(
  { name: "agentpi-bridge-test", version: "1.0.0" },
  { capabilities: { elicitation: {}, sampling: { tools: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { agree: true } }));
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant",
  content: { type: "text", text: "noon" },
  model: "fixture-model",
  stopReason: "endTurn",
}));

function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).filter((k) => k !== "_meta").sort().map((k) => [k, sorted(value[k])]));
  }
  return value;
}
const show = (name, result) => console.log(JSON.stringify({ [name]: sorted(result) }));

// A URL: the bridge (or a server) listening on Streamable HTTP.
const transport = command.startsWith("http")
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, stderr: "inherit" });
await client.connect(transport);
console.log(JSON.stringify({ server: client.getServerVersion()?.name }));
if (scenario === "all") {
  const tools = await client.listTools();
  console.log(JSON.stringify({ tools: tools.tools.map((t) => t.name).sort() }));
  show("add", await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }));
  show("echo", await client.callTool({ name: "echo", arguments: { text: "through the bridge" } }));
  show("confirm", await client.callTool({ name: "confirm", arguments: {} }));
  show("think", await client.callTool({ name: "think", arguments: {} }));
  show("greeting", await client.readResource({ uri: "fixture://greeting" }));
  show("ask", await client.getPrompt({ name: "ask", arguments: { topic: "bridges" } }));
  await client.ping();
  console.log(JSON.stringify({ ping: "ok" }));
}
if (scenario === "rmcp") {
  const tools = await client.listTools();
  console.log(JSON.stringify({ tools: tools.tools.map((t) => t.name).sort() }));
  show("add", await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }));
  show("confirm", await client.callTool({ name: "confirm", arguments: {} }));
  show("confirm", await client.callTool({ name: "confirm", arguments: {} }));
  show("think", await client.callTool({ name: "think", arguments: {} }));
  await client.ping();
  console.log(JSON.stringify({ ping: "ok" }));
}
await client.close();
