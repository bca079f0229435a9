// A second MCP client, the npm SDK's, for the Go tests (web/mcp_node_test.go and
// cmd/ledger/mcp_node_test.go). It connects to the ledger's MCP server, lists the tools,
// calls them and prints what it got as one JSON object on stdout. The SDK checks every
// structured answer against the tool's output schema, so a mismatch fails the call.
//
//   node client.mjs http URL TOKEN INPUT.json
//   node client.mjs stdio INPUT.json COMMAND ARG...      (the command is `ledger mcp ...`)
//
// INPUT.json is {"claims":[...], "gate":"text", "report":true}: the claims to check, the
// text to gate after the check. Errors of a call are reported, not thrown: {"error":"..."}.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [mode, ...rest] = process.argv.slice(2);
let transport, input;
if (mode === "http") {
  const [url, token, file] = rest;
  input = JSON.parse(readFileSync(file, "utf8"));
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else if (mode === "stdio") {
  const [file, command, ...args] = rest;
  input = JSON.parse(readFileSync(file, "utf8"));
  transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
} else {
  console.error("usage: node client.mjs http URL TOKEN INPUT.json | stdio INPUT.json COMMAND ARG...");
  process.exit(2);
}

const client = new Client({ name: "ledger-node-test", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), tools: [], calls: {} };

const listed = await client.listTools();
for (const t of listed.tools) {
  out.tools.push({ name: t.name, input: t.inputSchema, output: t.outputSchema ?? null });
}

// call runs one tool and records its answer: structured content, error flag and text.
async function call(label, name, args, options) {
  try {
    const res = await client.callTool({ name, arguments: args }, undefined, options);
    out.calls[label] = {
      isError: res.isError ?? false,
      structured: res.structuredContent ?? null,
      text: (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
    };
  } catch (e) {
    out.calls[label] = { error: String(e && e.message ? e.message : e) };
  }
}

const progress = [];
if (input.claims) {
  await call("check", "check_claims", { claims: input.claims, wait_seconds: 60 }, {
    onprogress: (p) => progress.push(p.progress),
    timeout: 120000,
  });
  out.progress = progress;
  const batch = out.calls.check?.structured?.batch;
  if (batch && input.report) {
    await call("report", "batch_report", { batch });
    await call("status", "claim_status", { batch });
  }
}
if (input.gate) {
  await call("gate", "gate_text", { text: input.gate });
}
await call("audit", "audit_status", {});
await call("malformed", "check_claims", { claims: "not a list", extra: 1 });
await call("unknown", "resolve_seam", { seam: "s_1", decision: "accept" });

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
