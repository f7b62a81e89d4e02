// A real MCP client, the TypeScript SDK's (@modelcontextprotocol/sdk 1.32.2, legacy era)
// `Client` over Streamable HTTP, for the monitor's tests: node ts_http_client.mjs URL.
// Initializes, lists the tools, calls `echo` when listed, and ends the session (DELETE).
import { pathToFileURL } from "node:url";
import path from "node:path";

const sdk = path.join(import.meta.dirname, "../peers/node_modules/@modelcontextprotocol/sdk/dist/esm");
const { Client } = await import(pathToFileURL(path.join(sdk, "client/index.js")));
const { StreamableHTTPClientTransport } = await import(
  pathToFileURL(path.join(sdk, "client/streamableHttp.js"))
);

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: "ts-http-client", version: "1.0.0" });
await client.connect(transport);
const tools = await client.listTools();
if (tools.tools.some((t) => t.name === "echo")) {
  await client.callTool({ name: "echo", arguments: { message: "hi" } });
}
await transport.terminateSession();
await client.close();
console.log(JSON.stringify({ session: transport.sessionId ?? null, tools: tools.tools.length }));
