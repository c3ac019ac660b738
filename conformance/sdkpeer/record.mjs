#!/usr/bin/env node
// record.mjs is an ACP client built on the official TypeScript SDK that
// drives agent.mjs (or another stdio agent) through one scenario and
// records every frame in both directions as direction-tagged JSON Lines:
//
//   {"ts":"2026-…Z","dir":"client->agent","msg":{…the JSON-RPC message…}}
//
// The frames are taken from the bytes on the pipes, not from the SDK's
// objects, so the transcript is exactly what each side wrote.
//
// Usage:
//   node record.mjs --scenario NAME --out FILE [--workspace DIR] [--agent CMD…]
//
// Scenarios (see SCENARIOS below): full, reject, cancel-stream,
// cancel-permission, no-client-caps, load. The workspace (default: a fresh
// temporary directory) gets a small project; the client really reads,
// writes and runs commands in it.
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, realpathSync, writeFileSync, createWriteStream } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

const { methods } = acp;
const here = path.dirname(fileURLToPath(import.meta.url));

const FULL_CAPS = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
const NO_CAPS = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

// Each scenario is one connection: the client capabilities it advertises
// and its prompt turns. A turn's `permission` says how the client answers
// session/request_permission ("allow", "reject" or "cancel": send
// session/cancel, then answer "cancelled"); `cancelOnFirstChunk` cancels
// the turn as soon as the agent starts streaming. `expect` is the stop
// reason the turn must end with.
const SCENARIOS = {
  full: {
    caps: FULL_CAPS,
    turns: [{ permission: "allow", expect: "end_turn" }],
    extensions: true,
  },
  reject: {
    caps: FULL_CAPS,
    turns: [{ permission: "reject", expect: "end_turn" }],
  },
  "cancel-stream": {
    caps: FULL_CAPS,
    turns: [
      { cancelOnFirstChunk: true, permission: "allow", expect: "cancelled" },
      { permission: "allow", expect: "end_turn" },
    ],
  },
  "cancel-permission": {
    caps: FULL_CAPS,
    turns: [
      { permission: "cancel", expect: "cancelled" },
      { permission: "allow", expect: "end_turn" },
    ],
  },
  "no-client-caps": {
    caps: NO_CAPS,
    turns: [{ permission: "allow", expect: "end_turn" }],
  },
  // A second agent process loads the session an earlier one made (one
  // turn, unrecorded) and continues it with another turn.
  load: {
    prepare: { caps: FULL_CAPS, turns: [{ permission: "allow", expect: "end_turn" }] },
    caps: FULL_CAPS,
    turns: [{ permission: "allow", expect: "end_turn" }],
  },
};

function usage(msg) {
  process.stderr.write(
    `${msg}\nusage: node record.mjs --scenario (${Object.keys(SCENARIOS).join("|")}) --out FILE [--workspace DIR] [--agent CMD ARGS…]\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { agent: [process.execPath, path.join(here, "agent.mjs")] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--scenario") opts.scenario = argv[++i];
    else if (a === "--out") opts.out = argv[++i];
    else if (a === "--workspace") opts.workspace = argv[++i];
    else if (a === "--agent") {
      opts.agent = argv.slice(i + 1);
      break;
    } else usage(`unknown argument ${a}`);
  }
  if (!opts.scenario || !SCENARIOS[opts.scenario]) usage(`unknown or missing --scenario ${opts.scenario ?? ""}`);
  if (!opts.out) usage("missing --out");
  if (opts.agent.length === 0) usage("--agent needs a command");
  return opts;
}

function log(...args) {
  process.stderr.write(`[sdkpeer-client] ${args.join(" ")}\n`);
}

// makeWorkspace writes the small project the agent works on.
function makeWorkspace(dir) {
  dir = dir ? path.resolve(dir) : mkdtempSync(path.join(os.tmpdir(), "sdkpeer-"));
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(path.join(dir, "README.md"), "# Demo\n\nA tiny project used to record ACP traffic.\n");
  writeFileSync(path.join(dir, "src", "main.js"), 'console.log("hello");\n');
  writeFileSync(path.join(dir, "package.json"), '{ "name": "demo", "version": "1.0.0" }\n');
  // ACP paths are absolute; resolve symlinks (macOS /tmp) so the agent's
  // paths match what the client checks.
  return realpathSync(dir);
}

// Recorder writes one JSONL frame per protocol line.
class Recorder {
  constructor(file) {
    this.out = createWriteStream(file);
  }

  frame(dir, line) {
    if (line.trim() === "") return;
    let msg = line;
    try {
      JSON.parse(line);
    } catch {
      // Not JSON: keep it verbatim as a string so the linter reports it.
      msg = JSON.stringify(line);
    }
    this.out.write(`{"ts":${JSON.stringify(new Date().toISOString())},"dir":"${dir}","msg":${msg}}\n`);
  }

  // tap returns a function that splits a byte stream into lines and
  // records each complete one.
  tap(dir) {
    const decoder = new TextDecoder();
    let pending = "";
    return (chunk) => {
      pending += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = pending.indexOf("\n")) >= 0) {
        this.frame(dir, pending.slice(0, nl).replace(/\r$/, ""));
        pending = pending.slice(nl + 1);
      }
    };
  }

  close() {
    return new Promise((resolve) => this.out.end(resolve));
  }
}

// Terminals the client runs for the agent.
class Terminals {
  constructor(workspace) {
    this.workspace = workspace;
    this.byId = new Map();
    this.next = 1;
  }

  create(p) {
    const cwd = p.cwd ?? this.workspace;
    const env = { ...process.env };
    for (const { name, value } of p.env ?? []) env[name] = value;
    const child = spawn(p.command, p.args ?? [], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const t = {
      child,
      output: Buffer.alloc(0),
      truncated: false,
      limit: p.outputByteLimit ?? null,
      exit: null,
      exited: null,
    };
    const append = (chunk) => {
      t.output = Buffer.concat([t.output, chunk]);
      if (t.limit !== null && t.output.length > t.limit) {
        // Keep the end of the output, as the protocol asks.
        t.output = t.output.subarray(t.output.length - t.limit);
        t.truncated = true;
      }
    };
    child.stdout.on("data", append);
    child.stderr.on("data", append);
    t.exited = new Promise((resolve) => {
      child.on("error", (e) => {
        append(Buffer.from(`${e.message}\n`));
        t.exit = { exitCode: 127, signal: null };
        resolve(t.exit);
      });
      child.on("close", (code, signal) => {
        t.exit = { exitCode: code, signal: signal ?? null };
        resolve(t.exit);
      });
    });
    const terminalId = `term_${this.next++}`;
    this.byId.set(terminalId, t);
    return { terminalId };
  }

  get(terminalId) {
    const t = this.byId.get(terminalId);
    if (!t) throw acp.RequestError.invalidParams({ terminalId }, "unknown terminal");
    return t;
  }

  output(terminalId) {
    const t = this.get(terminalId);
    const res = { output: t.output.toString("utf8"), truncated: t.truncated };
    if (t.exit) res.exitStatus = t.exit;
    return res;
  }

  async waitForExit(terminalId) {
    return await this.get(terminalId).exited;
  }

  kill(terminalId) {
    const t = this.get(terminalId);
    if (!t.exit) t.child.kill("SIGTERM");
    return {};
  }

  release(terminalId) {
    this.kill(terminalId);
    this.byId.delete(terminalId);
    return {};
  }

  releaseAll() {
    for (const id of [...this.byId.keys()]) this.release(id);
  }
}

// useExtensions calls the agent's advertised _sdkpeer/stats extension,
// probes a method of the same extension the agent does not have (it must
// answer -32601 Method not found), and sends an extension notification
// the agent may ignore.
async function useExtensions(ctx, init, sessionId, failures) {
  if (!init.agentCapabilities?._meta?.sdkpeer?.stats) {
    failures.push("the agent does not advertise _meta.sdkpeer.stats");
    return;
  }
  const stats = await ctx.request("_sdkpeer/stats", { sessionId });
  log("stats:", JSON.stringify(stats));
  try {
    await ctx.request("_sdkpeer/undo", { sessionId });
    failures.push("_sdkpeer/undo succeeded; the agent has no such method");
  } catch (e) {
    if (e?.code !== -32601) failures.push(`_sdkpeer/undo failed with ${e?.code} ${e?.message}, want -32601`);
  }
  await ctx.notify("_sdkpeer/client_idle", { sessionId });
}

// runConnection starts one agent process and drives one connection
// through `plan` ({caps, turns, load?, close}). With `load` set it opens
// that session with session/load instead of session/new. Frames go to
// `rec` when given (a preparation connection is not recorded). It returns
// the session id and a list of failures.
async function runConnection(agentCmd, workspace, plan, rec) {
  const terminals = new Terminals(workspace);
  const failures = [];
  const child = spawn(agentCmd[0], agentCmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const agentExited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  child.on("error", (e) => {
    log("cannot start the agent:", e.message);
    process.exit(1);
  });

  // The SDK writes to `toAgent`; each chunk is recorded, then piped on.
  const recordOut = rec ? rec.tap("client->agent") : () => {};
  const toAgent = new WritableStream({
    write(chunk) {
      recordOut(chunk);
      return new Promise((resolve, reject) => child.stdin.write(chunk, (err) => (err ? reject(err) : resolve())));
    },
    close() {
      child.stdin.end();
    },
    abort() {
      child.stdin.destroy();
    },
  });
  // Frames keep being recorded after the SDK stops reading (it cancels
  // this stream when connectWith returns), so a late message still shows.
  const recordIn = rec ? rec.tap("agent->client") : () => {};
  let reading = true;
  const fromAgent = new ReadableStream({
    start(controller) {
      child.stdout.on("data", (chunk) => {
        recordIn(chunk);
        if (reading) controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout.on("end", () => {
        if (reading) controller.close();
        reading = false;
      });
    },
    cancel() {
      reading = false;
    },
  });

  // Per-turn state the handlers consult.
  let sessionId = plan.load ?? null;
  let turn = null; // { spec, chunks, cancelled }
  let replayed = 0; // session/update notifications received during session/load

  const cancelTurn = async (ctx, why) => {
    if (!turn || turn.cancelled) return;
    turn.cancelled = true;
    log("cancelling the turn:", why);
    await ctx.notify(methods.agent.session.cancel, { sessionId });
  };

  const insideWorkspace = (p) => {
    if (!path.isAbsolute(p)) throw acp.RequestError.invalidParams({ path: p }, "path must be absolute");
    const rel = path.relative(workspace, p);
    if (rel.startsWith("..") || path.isAbsolute(rel)) {
      throw acp.RequestError.invalidParams({ path: p }, "path is outside the workspace");
    }
    return p;
  };

  const app = acp
    .client({ name: "sdkpeer-client" })
    .onNotification(methods.client.session.update, async ({ params, agent }) => {
      const u = params.update;
      if (!turn) {
        replayed++;
        return;
      }
      if (u.sessionUpdate === "agent_message_chunk") {
        turn.chunks++;
        if (turn.spec.cancelOnFirstChunk && turn.chunks === 1) await cancelTurn(agent, "first chunk arrived");
      }
    })
    .onRequest(methods.client.session.requestPermission, async ({ params, agent }) => {
      const decision = turn?.spec.permission ?? "reject";
      if (decision === "cancel" || turn?.cancelled) {
        if (decision === "cancel") await cancelTurn(agent, "permission requested");
        // A cancelled turn's pending permission requests get "cancelled".
        return { outcome: { outcome: "cancelled" } };
      }
      const kind = decision === "allow" ? "allow_once" : "reject_once";
      const option = params.options.find((o) => o.kind === kind) ?? params.options[0];
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      let text;
      try {
        text = await readFile(insideWorkspace(params.path), "utf8");
      } catch (e) {
        if (e.code === "ENOENT") throw acp.RequestError.resourceNotFound(pathToFileURL(params.path).href);
        throw e;
      }
      if (params.line != null || params.limit != null) {
        const start = Math.max((params.line ?? 1) - 1, 0);
        const lines = text.split("\n");
        text = lines.slice(start, params.limit != null ? start + params.limit : undefined).join("\n");
      }
      return { content: text };
    })
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      await writeFile(insideWorkspace(params.path), params.content, "utf8");
      return {};
    })
    .onRequest(methods.client.terminal.create, ({ params }) => terminals.create(params))
    .onRequest(methods.client.terminal.output, ({ params }) => terminals.output(params.terminalId))
    .onRequest(methods.client.terminal.waitForExit, ({ params }) => terminals.waitForExit(params.terminalId))
    .onRequest(methods.client.terminal.kill, ({ params }) => terminals.kill(params.terminalId))
    .onRequest(methods.client.terminal.release, ({ params }) => terminals.release(params.terminalId));

  await app.connectWith(acp.ndJsonStream(toAgent, fromAgent), async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: plan.caps,
      clientInfo: { name: "sdkpeer-client", title: "acplint SDK peer client", version: "0.1.0" },
    });
    log("agent", init.agentInfo?.name ?? "?", "protocol", init.protocolVersion);
    if (plan.load) {
      if (!init.agentCapabilities?.loadSession) {
        failures.push("the agent does not advertise loadSession");
        return;
      }
      await ctx.request(methods.agent.session.load, { sessionId: plan.load, cwd: workspace, mcpServers: [] });
      log("session/load replayed", replayed, "updates");
      if (replayed === 0) failures.push("session/load replayed no history");
    } else {
      const session = await ctx.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
      sessionId = session.sessionId;
    }
    const readme = path.join(workspace, "README.md");
    for (const [i, spec] of plan.turns.entries()) {
      turn = { spec, chunks: 0, cancelled: false };
      const res = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "Give README.md a clearer title, then list the project files." },
          { type: "resource_link", uri: pathToFileURL(readme).href, name: "README.md", mimeType: "text/markdown" },
        ],
      });
      log(`turn ${i + 1} ended:`, res.stopReason);
      if (res.stopReason !== spec.expect) {
        failures.push(`turn ${i + 1}: stopReason ${res.stopReason}, want ${spec.expect}`);
      }
      turn = null;
    }
    if (plan.extensions) {
      await useExtensions(ctx, init, sessionId, failures);
    }
    if (plan.close && init.agentCapabilities?.sessionCapabilities?.close) {
      await ctx.request(methods.agent.session.close, { sessionId });
    }
  });
  terminals.releaseAll();
  // The SDK never closes its output stream: end the agent's stdin, which
  // is how a stdio client shuts an agent down.
  child.stdin.end();
  const exit = await agentExited;
  if (exit.code !== 0) failures.push(`agent exited with code ${exit.code} signal ${exit.signal}`);
  return { sessionId, failures };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const scenario = SCENARIOS[opts.scenario];
  const workspace = makeWorkspace(opts.workspace);
  log("scenario", opts.scenario, "workspace", workspace);
  const failures = [];
  let load;
  if (scenario.prepare) {
    // An earlier, unrecorded connection makes the session to load.
    log("preparing a session in an unrecorded connection");
    const prep = await runConnection(opts.agent, workspace, { ...scenario.prepare, close: false }, null);
    failures.push(...prep.failures.map((f) => `preparation: ${f}`));
    load = prep.sessionId;
  }
  const rec = new Recorder(opts.out);
  const res = await runConnection(opts.agent, workspace, { ...scenario, load, close: true }, rec);
  await rec.close();
  failures.push(...res.failures);
  if (failures.length > 0) {
    for (const f of failures) log("FAIL:", f);
    process.exit(1);
  }
  log("recorded", opts.out);
}

main().catch((e) => {
  log("error:", e?.stack ?? e);
  process.exit(1);
});
