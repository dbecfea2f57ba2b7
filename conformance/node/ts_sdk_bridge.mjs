#!/usr/bin/env node
// rechain's long-lived bridge to the session readers of @anthropic-ai/claude-agent-sdk.
//
// Usage: node ts_sdk_bridge.mjs <sdk-package-dir>
//
// Importing the SDK costs ~0.2 s and a call ~1 ms, so one process serves many
// requests: one JSON object per line on stdin, one reply per line on stdout, in
// request order. First, before reading stdin, the bridge prints a ready line:
//   {"id": 0, "ok": true, "ready": true, "version": "0.3.332", "import_ms": 180.5}
// (or {"id": 0, "ok": false, "error": ...} and exit 1 if the SDK cannot be imported).
// Requests:
//   {"id", "cmd": "version"}
//     -> {"id", "ok": true, "version", "node", "import_ms"}
//   {"id", "cmd": "session_messages", "transcript_b64", "session_id",
//    "include_system_messages", "limit", "offset", "env"}
//     -> {"id", "ok": true, "messages": [...]}
//   {"id", "cmd": "session_messages_many", "cases": [{"config_dir", "cwd", "session_id",
//    "include_system_messages", "limit", "offset", "env"}, ...], "concurrency"}
//     -> {"id", "ok": true, "replies": [{"ok": true, "messages"} | {"ok": false, ...}, ...]}
//     one reply per case, in order, each shaped like a session_messages reply without "id".
//     The caller has already written each transcript where the SDK reads it,
//     <config_dir>/projects/<cwd sanitized>/<session_id>.jsonl, both dirs under
//     <TMPDIR>/../lay (and removes it afterwards): the bridge only calls the SDK, with
//     CLAUDE_CONFIG_DIR and the env set per group of cases that share them, up to
//     "concurrency" calls at once: the SDK reads with asynchronous file I/O, so
//     overlapping calls (and one round trip for many cases) is where a batch saves time.
//   {"id", "cmd": "list_sessions", "files": [{"session_id", "transcript_b64", "mtime_ms"}],
//    "limit", "offset", "include_programmatic", "env"}
//     -> {"id", "ok": true, "sessions": [...], "dir": "<the project cwd used>"}
//     optional: "extra_files": [{"path", "b64"}] (relative to the project dir, e.g.
//     "<sid>/custom-title.json"), "cwd_name" (the project cwd's last component, default
//     "cwd"), "dirs" (dirs to create under the scratch root), "root_token" (a string
//     replaced by the scratch root's path in every file written)
//   {"id", "cmd": "get_session_info", "transcript_b64", "session_id", "extra_files", ...}
//     -> {"id", "ok": true, "info": {...} | null, "dir"}
//   {"id", "cmd": "list_subagents" | "get_subagent_messages", "session_id", "agent_id",
//    "transcript_b64" (the main transcript), "agents": [{"path", "b64"}] (relative to
//    <project>/<sid>/subagents/), "limit", "offset"}
//     -> {"id", "ok": true, "agents": [...]} | {"id", "ok": true, "messages": [...]}
//   {"id", "cmd": "stop"} -> {"id", "ok": true}, then exit 0
// Any failure -> {"id", "ok": false, "error": "<one line>"}; when the SDK call itself
// threw, also "raised": true and "error_type" (the error's name), and "error" is its message.
//
// Isolation: every reader call gets a fresh temp config dir and a fresh temp
// project cwd under os.tmpdir(), removed afterwards (a batch: the config dirs the caller
// laid out under <TMPDIR>/../lay); CLAUDE_CONFIG_DIR points there for the call only, so
// a real ~/.claude is never read or written.
//
// What was learned about SDK 0.3.332 by experiment (see docs in ts_sdk.py):
// * env vars such as CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP are read through a lazy
//   proxy on every access (re-parsed when the raw string changes), so setting
//   them around one call is enough: no restart is needed.
// * the config dir is memoized per CLAUDE_CONFIG_DIR *value* in a Map that is
//   never cleared: a fresh dir per call is correct but grows that Map by one
//   small entry per call; the Python side recycles the process now and then.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { Console } from "node:console";
import { pathToFileURL } from "node:url";

// Only replies may reach stdout: route anything the SDK logs to stderr.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const protocolOut = process.stdout;
const MAX_PROJECT_NAME = 200; // longer sanitized names get a hash suffix; we avoid that case
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_ENV = new Set(["CLAUDE_CONFIG_DIR", "HOME"]);

/** Write one reply line; the callback runs once it is handed to the OS. */
function reply(message, done) {
  protocolOut.write(`${JSON.stringify(message)}\n`, done);
}

/** One-line text for an error, so the Python side can show it as is. */
function describe(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s*\n\s*/g, " | ");
}

/** An error the SDK itself threw: an answer about the reader, not a broken bridge. */
class ReaderRaised extends Error {
  constructor(cause) {
    super(describe(cause));
    this.errorType = cause instanceof Error ? cause.name : typeof cause;
    this.detail = (cause instanceof Error ? cause.message : String(cause)).replace(/\s*\n\s*/g, " | ");
  }
}

/** Await one SDK call; what it throws comes back tagged as the reader's own failure. */
async function fromSdk(call) {
  try {
    return await call();
  } catch (error) {
    throw new ReaderRaised(error);
  }
}

/** Drop inherited Claude/Anthropic settings so only a request's env applies. */
function scrubEnvironment() {
  for (const name of Object.keys(process.env)) {
    if (/^(CLAUDE|ANTHROPIC)/.test(name)) delete process.env[name];
  }
}

/** A session file name that cannot leave the project dir. */
function checkSessionId(sessionId) {
  if (typeof sessionId !== "string" || !/^[^/\\\0]{1,200}$/.test(sessionId)
      || sessionId === "." || sessionId === "..") {
    throw new Error(`unusable session_id for a file name: ${JSON.stringify(sessionId)}`);
  }
  return sessionId;
}

/** The bytes of a transcript, exactly as the caller sent them. */
function transcriptBytes(b64) {
  if (typeof b64 !== "string") throw new Error("transcript_b64 must be a base64 string");
  return Buffer.from(b64, "base64");
}

/** The requested env overrides: string sets, null unsets. */
function envOverrides(env) {
  if (env === undefined || env === null) return [];
  if (typeof env !== "object" || Array.isArray(env)) throw new Error("env must be an object");
  return Object.entries(env).map(([name, value]) => {
    if (!ENV_NAME.test(name) || RESERVED_ENV.has(name)) {
      throw new Error(`env may not set ${JSON.stringify(name)}`);
    }
    if (value !== null && typeof value !== "string") {
      throw new Error(`env value for ${name} must be a string or null`);
    }
    return [name, value];
  });
}

/** Set env vars for the duration of fn, then restore the previous values. */
async function withEnv(pairs, fn) {
  const saved = [];
  try {
    for (const [name, value] of pairs) {
      saved.push([name, Object.hasOwn(process.env, name) ? process.env[name] : undefined]);
      if (value === null) delete process.env[name];
      else process.env[name] = value;
    }
    return await fn();
  } finally {
    for (const [name, value] of saved.reverse()) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** A relative path that stays inside its base dir. */
function checkRelative(rel) {
  if (typeof rel !== "string" || rel === "" || path.isAbsolute(rel) || rel.includes("\0")
      || rel.split(/[\\/]/).some((part) => part === ".." || part === "")) {
    throw new Error(`unusable relative path: ${JSON.stringify(rel)}`);
  }
  return rel;
}

/** The (created) project dir the SDK reads for a project cwd, under configDir. */
function makeProjectDir(configDir, cwd) {
  const projectName = cwd.replace(/[^A-Za-z0-9]/g, "-");
  if (projectName.length > MAX_PROJECT_NAME) {
    throw new Error(`temp dir path too long for an unhashed project name: ${cwd}`);
  }
  const projectDir = path.join(configDir, "projects", projectName);
  fs.mkdirSync(projectDir, { recursive: true });
  return projectDir;
}

/** Run fn in a fresh config dir + project cwd, pointed to by CLAUDE_CONFIG_DIR. */
async function withScratch(env, fn, cwdName = "cwd", dirs = []) {
  const pairs = envOverrides(env);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rc-")));
  try {
    const configDir = path.join(root, "cfg");
    if (!/^[A-Za-z0-9._-]{1,40}$/.test(cwdName) || cwdName === "cfg" || /^\.+$/.test(cwdName)) {
      throw new Error(`unusable cwd_name: ${JSON.stringify(cwdName)}`);
    }
    const cwd = path.join(root, cwdName);
    fs.mkdirSync(cwd);
    for (const dir of dirs ?? []) fs.mkdirSync(path.join(root, checkRelative(dir)), { recursive: true });
    const projectDir = makeProjectDir(configDir, cwd);
    return await withEnv([...pairs, ["CLAUDE_CONFIG_DIR", configDir]], () =>
      fn({ cwd, projectDir, root, configDir }),
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Run the calls in up to ``limit`` lanes at once; results keep the calls' order. */
async function inLanes(calls, limit) {
  const results = new Array(calls.length);
  let next = 0;
  async function lane() {
    while (next < calls.length) {
      const index = next++;
      results[index] = await calls[index]();
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, calls.length)) }, lane));
  return results;
}

/** One case's reply: its messages, or why not (the SDK raising is the reader's answer). */
async function settle(call) {
  try {
    return { ok: true, messages: await call() };
  } catch (error) {
    if (error instanceof ReaderRaised) {
      return { ok: false, raised: true, error_type: error.errorType, error: error.detail };
    }
    return { ok: false, error: describe(error) };
  }
}

/** The cases by env and config dir (as given; CLAUDE_CONFIG_DIR and the env are
 * process-wide, so each group runs alone), in request order. */
function configGroups(cases) {
  const groups = new Map(); // [env, config dir] as JSON -> indexes
  cases.forEach((request, index) => {
    const key = JSON.stringify([request?.env ?? null, request?.config_dir ?? null]);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(index);
  });
  return [...groups.values()];
}

/** The bytes to write, with the root token (if any) replaced by the scratch root. */
function withRoot(bytes, token, root) {
  if (typeof token !== "string" || token === "") return bytes;
  return Buffer.from(bytes.toString("latin1").split(token).join(root), "latin1");
}

/** Extra files (sidecars, subagent transcripts) under a base dir. */
function writeExtra(base, files, token, root) {
  if (files === undefined || files === null) return;
  if (!Array.isArray(files)) throw new Error("extra files must be a list");
  for (const file of files) {
    const target = path.join(base, checkRelative(file.path));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, withRoot(transcriptBytes(file.b64), token, root));
  }
}

/** Place one transcript where the SDK looks for it, optionally with a given mtime. */
function writeSession(projectDir, sessionId, b64, mtimeMs, token, root) {
  const file = path.join(projectDir, `${checkSessionId(sessionId)}.jsonl`);
  fs.writeFileSync(file, withRoot(transcriptBytes(b64), token, root));
  if (mtimeMs !== undefined && mtimeMs !== null) {
    if (typeof mtimeMs !== "number" || !Number.isFinite(mtimeMs)) {
      throw new Error("mtime_ms must be a finite number");
    }
    fs.utimesSync(file, mtimeMs / 1000, mtimeMs / 1000);
  }
}

/** Where the Python side lays a batch's transcripts out (<scratch>/lay, beside this
 * process's TMPDIR <scratch>/tmp): the config dirs and project cwds of session_messages_many
 * must lie under it. */
const LAID_OUT = path.join(path.dirname(os.tmpdir()), "lay");

/** A directory the Python side laid out, as given; anything else is refused. */
function laidOut(dir) {
  if (typeof dir !== "string" || path.resolve(dir) !== dir || !dir.startsWith(LAID_OUT + path.sep)) {
    throw new Error(`config_dir and cwd must be directories under ${LAID_OUT}`);
  }
  return dir;
}

/** Paging options in the SDK's shape; absent values stay absent. */
function paging(request) {
  const options = {};
  if (request.limit !== undefined && request.limit !== null) options.limit = request.limit;
  if (request.offset !== undefined && request.offset !== null) options.offset = request.offset;
  return options;
}

function makeHandlers(sdk, info) {
  return {
    async version() {
      return { version: info.version, node: process.version, import_ms: info.importMs };
    },
    async session_messages(request) {
      const messages = await withScratch(request.env, async ({ cwd, projectDir }) => {
        writeSession(projectDir, request.session_id, request.transcript_b64, null);
        return fromSdk(() => sdk.getSessionMessages(request.session_id, {
          dir: cwd,
          includeSystemMessages: Boolean(request.include_system_messages),
          ...paging(request),
        }));
      });
      return { messages };
    },
    async session_messages_many(request) {
      if (!Array.isArray(request.cases)) throw new Error("cases must be a list");
      const concurrency = Number.isInteger(request.concurrency) ? request.concurrency : 16;
      const replies = new Array(request.cases.length);
      for (const indexes of configGroups(request.cases)) {
        const first = request.cases[indexes[0]];
        const answers = await settle(() => withEnv(
          [...envOverrides(first?.env), ["CLAUDE_CONFIG_DIR", laidOut(first?.config_dir)]],
          () => inLanes(indexes.map((index) => () => settle(() => {
            const one = request.cases[index];
            const options = {
              dir: laidOut(one.cwd),
              includeSystemMessages: Boolean(one.include_system_messages),
              ...paging(one),
            };
            checkSessionId(one.session_id);
            return fromSdk(() => sdk.getSessionMessages(one.session_id, options));
          })), concurrency)));
        indexes.forEach((index, lane) => {
          replies[index] = answers.ok ? answers.messages[lane] : answers;
        });
      }
      return { replies };
    },
    async list_sessions(request) {
      if (!Array.isArray(request.files)) throw new Error("files must be a list");
      return withScratch(request.env, async ({ cwd, projectDir, root }) => {
        const token = request.root_token;
        writeExtra(projectDir, request.extra_files, token, root);
        for (const file of request.files) {
          writeSession(projectDir, file.session_id, file.transcript_b64, file.mtime_ms, token, root);
        }
        const options = { dir: cwd, includeWorktrees: false, ...paging(request) };
        if (typeof request.include_programmatic === "boolean") {
          options.includeProgrammatic = request.include_programmatic;
        }
        return { sessions: await fromSdk(() => sdk.listSessions(options)), dir: cwd };
      }, request.cwd_name ?? "cwd", request.dirs);
    },
    async get_session_info(request) {
      return withScratch(request.env, async ({ cwd, projectDir, root }) => {
        const token = request.root_token;
        writeExtra(projectDir, request.extra_files, token, root);
        writeSession(projectDir, request.session_id, request.transcript_b64, request.mtime_ms, token, root);
        const info = await fromSdk(() => sdk.getSessionInfo(request.session_id, { dir: cwd }));
        return { info: info ?? null, dir: cwd };
      }, request.cwd_name ?? "cwd", request.dirs);
    },
    async list_subagents(request) {
      return withScratch(request.env, async ({ cwd, projectDir }) => {
        writeSession(projectDir, request.session_id, request.transcript_b64, null);
        writeExtra(path.join(projectDir, request.session_id, "subagents"), request.agents);
        const agents = await fromSdk(() => sdk.listSubagents(request.session_id, { dir: cwd }));
        return { agents };
      });
    },
    async get_subagent_messages(request) {
      return withScratch(request.env, async ({ cwd, projectDir }) => {
        writeSession(projectDir, request.session_id, request.transcript_b64, null);
        writeExtra(path.join(projectDir, request.session_id, "subagents"), request.agents);
        const messages = await fromSdk(() =>
          sdk.getSubagentMessages(request.session_id, request.agent_id, {
            dir: cwd, ...paging(request),
          }),
        );
        return { messages };
      });
    },
    async stop() {
      return {};
    },
  };
}

let stopped = false;

/** Answer one request line; never throws. Lines after a stop are ignored. */
async function serve(line, handlers) {
  if (stopped) return;
  let id = null;
  let stopping = false;
  try {
    const request = JSON.parse(line);
    if (typeof request !== "object" || request === null || Array.isArray(request)) {
      throw new Error("a request must be a JSON object");
    }
    id = request.id ?? null;
    const handler = Object.hasOwn(handlers, request.cmd) ? handlers[request.cmd] : undefined;
    if (!handler) throw new Error(`unknown cmd ${JSON.stringify(request.cmd)}`);
    stopping = request.cmd === "stop";
    stopped = stopping;
    const result = await handler(request);
    reply({ id, ok: true, ...result }, stopping ? () => process.exit(0) : undefined);
  } catch (error) {
    if (error instanceof ReaderRaised) {
      reply({ id, ok: false, raised: true, error_type: error.errorType, error: error.detail });
    } else {
      reply({ id, ok: false, error: describe(error) });
    }
  }
}

async function main() {
  const sdkDir = process.argv[2];
  if (!sdkDir) {
    reply({ id: 0, ok: false, error: "usage: node ts_sdk_bridge.mjs <sdk-package-dir>" });
    process.exitCode = 2;
    return;
  }
  scrubEnvironment();
  let sdk;
  let info;
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(sdkDir, "package.json"), "utf8"));
    const started = performance.now();
    sdk = await import(pathToFileURL(path.join(sdkDir, manifest.main ?? "sdk.mjs")).href);
    info = { version: manifest.version, importMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    reply({ id: 0, ok: false, error: `cannot import the SDK from ${sdkDir}: ${describe(error)}` },
      () => process.exit(1));
    return;
  }
  process.on("unhandledRejection", (error) => {
    process.stderr.write(`bridge: unhandled rejection: ${describe(error)}\n`);
  });
  const handlers = makeHandlers(sdk, info);
  reply({ id: 0, ok: true, ready: true, version: info.version, import_ms: info.importMs });
  let queue = Promise.resolve();
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    queue = queue.then(() => serve(line, handlers));
  });
  lines.on("close", () => {
    queue.then(() => process.exit(0));
  });
}

await main();
