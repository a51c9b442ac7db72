// The TypeScript ACP SDK's client side drives `harness acp` through a whole session:
// initialize, session/new, a prompt whose edit is approved through
// session/request_permission, cancel, a second prompt, and session/load in a second
// process. Every session/update on the wire must reach the handler, that is, pass the
// SDK's own schema (it parses each one before calling the handler).
//
// The first process is offered the editor's buffers (fs/read_text_file and
// fs/write_text_file): a.txt has an unsaved line there, which the edit must keep.
//
// Usage: node client.mjs WORKSPACE COMMAND [ARG...]; prints one JSON summary line.
import { spawn } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";

const [workspace, command, ...args] = process.argv.slice(2);
const edited = realpathSync(`${workspace}/a.txt`);
const buffers = { [edited]: "hello\nunsaved in the editor\n" };
const editor = { fs: { readTextFile: true, writeTextFile: true } };

async function withAgent(op) {
  const child = spawn(command, args, { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
  const seen = { raw: 0 };
  // count the session/update lines as they arrive, before the SDK parses them
  const counted = Readable.toWeb(child.stdout).pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        const text = Buffer.from(chunk).toString("utf8");
        seen.raw += text.split('"method":"session/update"').length - 1;
        controller.enqueue(chunk);
      },
    }),
  );
  const stream = ndJsonStream(Writable.toWeb(child.stdin), counted);
  const state = { updates: [], asked: [], reads: [], writes: [] };
  const app = client()
    .onRequest("fs/read_text_file", (cx) => {
      state.reads.push(cx.params.path);
      const path = cx.params.path;
      return { content: path in buffers ? buffers[path] : readFileSync(path, "utf8") };
    })
    .onRequest("fs/write_text_file", (cx) => {
      state.writes.push({ path: cx.params.path, content: cx.params.content });
      buffers[cx.params.path] = cx.params.content;
      return {};
    })
    .onNotification("session/update", (cx) => {
      state.updates.push(cx.params.update);
    })
    .onRequest("session/request_permission", (cx) => {
      state.asked.push(cx.params);
      return { outcome: { outcome: "selected", optionId: "allow" } };
    });
  try {
    const result = await app.connectWith(stream, (ctx) => op(ctx, state));
    return { result, state, seen };
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

const kinds = (state) => state.updates.map((u) => u.sessionUpdate);
const text = (state, kind) =>
  state.updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");

const first = await withAgent(async (ctx, state) => {
  const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: editor });
  const session = await ctx.request("session/new", { cwd: workspace, mcpServers: [] });
  const sessionId = session.sessionId;
  const edit = await ctx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "change a.txt" }],
  });
  // a stalling answer, cancelled once it has begun
  const running = ctx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "talk" }],
  });
  const before = state.updates.length;
  while (!state.updates.slice(before).some((u) => u.sessionUpdate === "agent_message_chunk")) {
    await new Promise((r) => setTimeout(r, 10));
  }
  const t0 = Date.now();
  await ctx.notify("session/cancel", { sessionId });
  const cancelled = await running;
  const cancelMs = Date.now() - t0;
  const after = await ctx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "again" }],
  });
  return {
    loadSession: init.agentCapabilities.loadSession,
    sessionId,
    modes: session.modes.availableModes.map((m) => m.id),
    stops: [edit.stopReason, cancelled.stopReason, after.stopReason],
    cancelMs,
  };
});

const second = await withAgent(async (ctx) => {
  await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  await ctx.request("session/load", {
    sessionId: first.result.sessionId,
    cwd: workspace,
    mcpServers: [],
  });
  return {};
});

console.log(
  JSON.stringify({
    ...first.result,
    kinds: kinds(first.state),
    text: text(first.state, "agent_message_chunk"),
    asked: first.state.asked.map((a) => ({
      id: a.toolCall.toolCallId,
      options: a.options.map((o) => o.kind),
    })),
    toolCalls: first.state.updates.filter((u) => u.sessionUpdate === "tool_call"),
    rawUpdates: first.seen.raw + second.seen.raw,
    parsedUpdates: first.state.updates.length + second.state.updates.length,
    loadedUser: text(second.state, "user_message_chunk"),
    loadedText: text(second.state, "agent_message_chunk"),
    reads: first.state.reads,
    writes: first.state.writes,
    edited,
  }),
);
