#!/usr/bin/env node
// A small but real ACP v1 agent built on the official TypeScript SDK
// (@agentclientprotocol/sdk). It speaks newline-delimited JSON-RPC on
// stdin/stdout; diagnostics go to stderr only, so stdout stays pure
// protocol.
//
// Every prompt runs the same scripted "coding task" on the session's cwd:
//
//  1. stream a short intro (several agent_message_chunk updates, with
//     small pauses so a client can cancel mid-stream),
//  2. publish a plan,
//  3. read README.md (tool call kind "read"): through fs/read_text_file
//     when the client advertised it, from the local disk otherwise,
//  4. propose an edit (tool call kind "edit" with diff content and a
//     location) and ask for permission with session/request_permission,
//  5. on "allow": write the file (fs/write_text_file or the local disk),
//     on "reject": fail the edit and end the turn,
//  6. run `ls -1` (tool call kind "execute"): in a client terminal
//     (terminal/create, wait_for_exit, output, release) when advertised,
//     as a local child process otherwise,
//  7. summarise, report usage and end the turn.
//
// session/cancel aborts the running turn at the next step: the agent sends
// no further session/update for the turn, releases any terminal it holds
// and answers the prompt with stopReason "cancelled".
//
// Sessions persist: after each turn the conversation is saved under
// <cwd>/.sdkpeer/<sessionId>.json, and session/load (advertised with
// loadSession: true) replays it as session/update notifications before
// answering, so a later agent process can continue the session.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import * as acp from "@agentclientprotocol/sdk";

const { methods } = acp;

const AGENT_INFO = { name: "sdkpeer-agent", title: "acplint SDK peer agent", version: "0.1.0" };
const CONTEXT_WINDOW = 200000;
// Pause between streamed chunks: long enough for a client to cancel while
// the intro is streaming, short enough to keep the tests fast.
const CHUNK_PAUSE_MS = Number(process.env.SDKPEER_CHUNK_PAUSE_MS ?? 25);

function log(...args) {
  process.stderr.write(`[sdkpeer-agent] ${args.join(" ")}\n`);
}

// Thrown inside a turn when the client cancelled it.
class TurnCancelled extends Error {}

let clientCapabilities = {};
// sessionId -> { cwd, turn: AbortController | null, turns, tokens,
// nextCall, nextMessage, history: the session/update payloads a load
// replays }
const sessions = new Map();

const app = acp.agent({ name: AGENT_INFO.name });

app.onRequest(methods.agent.initialize, ({ params }) => {
  clientCapabilities = params.clientCapabilities ?? {};
  log("initialize from", params.clientInfo?.name ?? "unknown client", "protocol", params.protocolVersion);
  return {
    // Answer with the client's version when we support it, else ours.
    protocolVersion: Math.min(params.protocolVersion, acp.PROTOCOL_VERSION),
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: false, sse: false },
      sessionCapabilities: { close: {} },
      // The one extension method, announced where the spec asks.
      _meta: { sdkpeer: { stats: true } },
    },
    authMethods: [],
    agentInfo: AGENT_INFO,
  };
});

app.onRequest(methods.agent.session.new, ({ params, client }) => {
  if (!path.isAbsolute(params.cwd)) {
    throw acp.RequestError.invalidParams({ cwd: params.cwd }, "cwd must be an absolute path");
  }
  const sessionId = `sess_${randomUUID()}`;
  sessions.set(sessionId, {
    cwd: params.cwd,
    turn: null,
    turns: 0,
    tokens: 0,
    nextCall: 1,
    nextMessage: 1,
    history: [],
  });
  log("session/new", sessionId, "cwd", params.cwd);
  advertiseCommands(client, sessionId);
  return { sessionId };
});

app.onRequest(methods.agent.session.load, async ({ params, client }) => {
  if (!path.isAbsolute(params.cwd)) {
    throw acp.RequestError.invalidParams({ cwd: params.cwd }, "cwd must be an absolute path");
  }
  // The id names a file: accept only ids this agent makes.
  if (!/^sess_[0-9a-f-]{36}$/.test(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
  if (sessions.has(params.sessionId)) {
    throw acp.RequestError.invalidRequest({ sessionId: params.sessionId }, "the session is already active");
  }
  let saved;
  try {
    saved = JSON.parse(await readFile(statePath(params.cwd, params.sessionId), "utf8"));
  } catch (e) {
    if (e.code === "ENOENT") throw acp.RequestError.sessionNotFound(params.sessionId);
    throw e;
  }
  const s = { ...saved, cwd: params.cwd, turn: null };
  sessions.set(params.sessionId, s);
  log("session/load", params.sessionId, "replaying", s.history.length, "updates");
  // Replay the whole conversation before answering: the response tells the
  // client the history is complete.
  for (const update of s.history) {
    await client.notify(methods.client.session.update, { sessionId: params.sessionId, update });
  }
  advertiseCommands(client, params.sessionId);
  return {};
});

app.onRequest(methods.agent.session.close, async ({ params }) => {
  const s = sessionOrThrow(params.sessionId);
  // Closing a session cancels its running turn first.
  s.turn?.abort();
  sessions.delete(params.sessionId);
  log("session/close", params.sessionId);
  return {};
});

// _sdkpeer/stats is a custom request: how many turns and tokens a session
// has used. Extension methods start with an underscore.
app.onRequest(
  "_sdkpeer/stats",
  (raw) => {
    if (typeof raw?.sessionId !== "string") throw acp.RequestError.invalidParams(raw, "sessionId must be a string");
    return { sessionId: raw.sessionId };
  },
  ({ params }) => {
    const s = sessionOrThrow(params.sessionId);
    return { turns: s.turns, tokens: s.tokens };
  },
);

app.onNotification(methods.agent.session.cancel, ({ params }) => {
  const s = sessions.get(params.sessionId);
  if (!s) {
    log("session/cancel for unknown session", params.sessionId);
    return;
  }
  if (s.turn) {
    log("session/cancel: aborting the running turn of", params.sessionId);
    s.turn.abort();
  }
});

app.onRequest(methods.agent.session.prompt, async ({ params, client }) => {
  const s = sessionOrThrow(params.sessionId);
  if (s.turn) {
    throw acp.RequestError.invalidRequest({ sessionId: params.sessionId }, "a prompt turn is already running");
  }
  const turn = new AbortController();
  s.turn = turn;
  s.turns++;
  // The user's prompt is part of the conversation a load replays.
  const userMessageId = `user_${s.nextMessage++}`;
  for (const content of params.prompt) {
    s.history.push({ sessionUpdate: "user_message_chunk", messageId: userMessageId, content });
  }
  try {
    await runTurn(new Turn(client, params.sessionId, s, turn.signal), params.prompt);
    return { stopReason: "end_turn" };
  } catch (e) {
    if (e instanceof TurnCancelled || turn.signal.aborted) {
      log("turn cancelled in", params.sessionId);
      return { stopReason: "cancelled" };
    }
    throw e;
  } finally {
    s.turn = null;
    await saveSession(params.sessionId, s).catch((e) => log("cannot save the session:", e.message));
  }
});

// advertiseCommands sends the slash commands once the client knows the
// session id: the timer runs after the response has been written.
function advertiseCommands(client, sessionId) {
  setTimeout(() => {
    client
      .notify(methods.client.session.update, {
        sessionId,
        update: {
          sessionUpdate: "available_commands_update",
          availableCommands: [{ name: "retitle", description: "Retitle README.md and list the project files" }],
        },
      })
      .catch((e) => log("available_commands_update failed:", e.message));
  }, 0);
}

function statePath(cwd, sessionId) {
  return path.join(cwd, ".sdkpeer", `${sessionId}.json`);
}

async function saveSession(sessionId, s) {
  const { cwd, turns, tokens, nextCall, nextMessage, history } = s;
  await mkdir(path.dirname(statePath(cwd, sessionId)), { recursive: true });
  await writeFile(statePath(cwd, sessionId), JSON.stringify({ cwd, turns, tokens, nextCall, nextMessage, history }));
}

function sessionOrThrow(sessionId) {
  const s = sessions.get(sessionId);
  if (!s) throw acp.RequestError.sessionNotFound(sessionId);
  return s;
}

// Turn carries what one prompt turn needs and stops it when cancelled.
class Turn {
  constructor(client, sessionId, session, signal) {
    this.client = client;
    this.sessionId = sessionId;
    this.session = session;
    this.signal = signal;
  }

  check() {
    if (this.signal.aborted) throw new TurnCancelled();
  }

  // update sends a session/update unless the turn was cancelled: after a
  // cancel the agent must not report anything more for the turn. The
  // history keeps `replayed` instead when given: a replay must not name a
  // terminal of an earlier connection.
  async update(update, replayed = update) {
    this.check();
    if (update.sessionUpdate !== "usage_update") this.session.history.push(replayed);
    await this.client.notify(methods.client.session.update, { sessionId: this.sessionId, update });
  }

  newToolCallId() {
    return `call_${this.session.nextCall++}`;
  }

  newMessageId() {
    return `msg_${this.session.nextMessage++}`;
  }

  // say streams text as agent_message_chunk updates of one message.
  async say(parts) {
    const messageId = this.newMessageId();
    for (const text of parts) {
      await this.update({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } });
      this.session.tokens += text.length;
      await sleep(CHUNK_PAUSE_MS);
    }
  }

  // abortable waits for p, or throws TurnCancelled when the turn is
  // cancelled first (p keeps running; callers clean up in finally).
  async abortable(p) {
    this.check();
    let onAbort;
    const aborted = new Promise((_, reject) => {
      onAbort = () => reject(new TurnCancelled());
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([p, aborted]);
    } finally {
      this.signal.removeEventListener("abort", onAbort);
    }
  }
}

function planUpdate(statuses) {
  const tasks = [
    ["Read README.md", "high"],
    ["Update the title in README.md", "high"],
    ["List the project files", "medium"],
  ];
  return {
    sessionUpdate: "plan",
    entries: tasks.map(([content, priority], i) => ({ content, priority, status: statuses[i] })),
  };
}

async function runTurn(t, prompt) {
  const request = prompt
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join(" ");
  log("prompt:", JSON.stringify(request));
  const readme = path.join(t.session.cwd, "README.md");

  await t.say(["I'll read ", "`README.md`, ", "give it a clearer title ", "and list the project files."]);
  await t.update(planUpdate(["in_progress", "pending", "pending"]));

  // Step 1: read the file.
  const readId = t.newToolCallId();
  await t.update({
    sessionUpdate: "tool_call",
    toolCallId: readId,
    title: "Read README.md",
    name: "read_file",
    kind: "read",
    status: "pending",
    locations: [{ path: readme }],
    rawInput: { path: readme },
  });
  await t.update({ sessionUpdate: "tool_call_update", toolCallId: readId, status: "in_progress" });
  let oldText;
  if (clientCapabilities.fs?.readTextFile) {
    const res = await t.abortable(
      t.client.request(methods.client.fs.readTextFile, { sessionId: t.sessionId, path: readme }),
    );
    oldText = res.content;
  } else {
    // The client cannot read files for us: read the local disk.
    oldText = await t.abortable(readFile(readme, "utf8"));
  }
  await t.update({
    sessionUpdate: "tool_call_update",
    toolCallId: readId,
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: oldText } }],
  });
  await t.update(planUpdate(["completed", "in_progress", "pending"]));

  // Step 2: propose the edit and ask for permission.
  const lines = oldText.split("\n");
  const newTitle = lines[0].startsWith("# ") ? `${lines[0]} (retitled by sdkpeer)` : "# Project";
  const newText = [newTitle, ...lines.slice(1)].join("\n");
  const editId = t.newToolCallId();
  await t.update({
    sessionUpdate: "tool_call",
    toolCallId: editId,
    title: "Update the title in README.md",
    name: "edit_file",
    kind: "edit",
    status: "pending",
    content: [{ type: "diff", path: readme, oldText, newText }],
    locations: [{ path: readme, line: 1 }],
    rawInput: { path: readme, line: 1, newTitle },
  });
  t.check();
  // Not abortable: after session/cancel the client must still answer the
  // pending permission request (with the "cancelled" outcome).
  const perm = await t.client.request(methods.client.session.requestPermission, {
    sessionId: t.sessionId,
    toolCall: { toolCallId: editId, title: "Update the title in README.md", kind: "edit", status: "pending" },
    options: [
      { optionId: "allow-once", name: "Allow", kind: "allow_once" },
      { optionId: "allow-always", name: "Always allow edits", kind: "allow_always" },
      { optionId: "reject-once", name: "Reject", kind: "reject_once" },
    ],
  });
  if (perm.outcome.outcome === "cancelled") throw new TurnCancelled();
  const allowed = perm.outcome.optionId === "allow-once" || perm.outcome.optionId === "allow-always";
  log("permission outcome:", perm.outcome.optionId);
  if (!allowed) {
    await t.update({
      sessionUpdate: "tool_call_update",
      toolCallId: editId,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "The user rejected this edit." } }],
    });
    await t.say(["Understood: ", "I left README.md unchanged."]);
    await finishTurn(t);
    return;
  }
  await t.update({ sessionUpdate: "tool_call_update", toolCallId: editId, status: "in_progress" });
  if (clientCapabilities.fs?.writeTextFile) {
    await t.abortable(
      t.client.request(methods.client.fs.writeTextFile, { sessionId: t.sessionId, path: readme, content: newText }),
    );
  } else {
    await t.abortable(writeFile(readme, newText, "utf8"));
  }
  await t.update({ sessionUpdate: "tool_call_update", toolCallId: editId, status: "completed" });
  await t.update(planUpdate(["completed", "completed", "in_progress"]));

  // Step 3: run a command.
  const runId = t.newToolCallId();
  await t.update({
    sessionUpdate: "tool_call",
    toolCallId: runId,
    title: "List the project files",
    name: "run_command",
    kind: "execute",
    status: "pending",
    rawInput: { command: "ls", args: ["-1"], cwd: t.session.cwd },
  });
  let output, exitCode;
  if (clientCapabilities.terminal) {
    ({ output, exitCode } = await runInClientTerminal(t, runId));
  } else {
    // No client terminal: run the command ourselves and report its output
    // as text content.
    await t.update({ sessionUpdate: "tool_call_update", toolCallId: runId, status: "in_progress" });
    ({ output, exitCode } = await t.abortable(runLocally("ls", ["-1"], t.session.cwd)));
    await t.update({
      sessionUpdate: "tool_call_update",
      toolCallId: runId,
      content: [{ type: "content", content: { type: "text", text: output } }],
    });
  }
  const done = {
    sessionUpdate: "tool_call_update",
    toolCallId: runId,
    status: exitCode === 0 ? "completed" : "failed",
    rawOutput: { exitCode, output },
  };
  // The replay shows the output as text: the terminal is gone by then.
  await t.update(done, { ...done, content: [{ type: "content", content: { type: "text", text: output } }] });
  await t.update(planUpdate(["completed", "completed", "completed"]));
  const files = output.split("\n").filter(Boolean).length;
  await t.say(["Done: ", `README.md now starts with "${newTitle}" `, `and the project has ${files} files.`]);
  await finishTurn(t);
}

async function runInClientTerminal(t, runId) {
  t.check();
  const term = await t.client.createTerminal({
    sessionId: t.sessionId,
    command: "ls",
    args: ["-1"],
    env: [],
    cwd: t.session.cwd,
    outputByteLimit: 65536,
  });
  try {
    // Embed the live terminal in the tool call before it is released.
    await t.update(
      {
        sessionUpdate: "tool_call_update",
        toolCallId: runId,
        status: "in_progress",
        content: [{ type: "terminal", terminalId: term.id }],
      },
      { sessionUpdate: "tool_call_update", toolCallId: runId, status: "in_progress" },
    );
    let exit;
    try {
      exit = await t.abortable(term.waitForExit());
    } catch (e) {
      if (e instanceof TurnCancelled) await term.kill();
      throw e;
    }
    const out = await term.currentOutput();
    return { output: out.output, exitCode: exit.exitCode ?? null };
  } finally {
    // Release even when cancelled, before the turn ends.
    await term.release();
  }
}

function runLocally(command, args, cwd) {
  return new Promise((resolve) => {
    execFile(command, args, { cwd }, (err, stdout) => {
      resolve({ output: stdout, exitCode: err ? (typeof err.code === "number" ? err.code : 1) : 0 });
    });
  });
}

async function finishTurn(t) {
  await t.update({ sessionUpdate: "usage_update", used: Math.min(t.session.tokens * 4, CONTEXT_WINDOW), size: CONTEXT_WINDOW });
}

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
connection.closed.then(
  () => {
    log("connection closed");
    process.exit(0);
  },
  (e) => {
    log("connection failed:", e?.message ?? e);
    process.exit(1);
  },
);
