// Times getSessionMessages on one transcript already laid out in a config dir.
// argv: <sdk dir> <config dir> <project cwd> <session id> <repeats>
// Prints {"ms": [...], "messages": N} on stdout. The import is not timed.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [sdkDir, configDir, cwd, sessionId, repeatsText] = process.argv.slice(2);
process.env.CLAUDE_CONFIG_DIR = configDir;
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);
const timings = [];
let count = 0;
for (let i = 0; i < Number(repeatsText); i++) {
  const started = performance.now();
  const messages = await sdk.getSessionMessages(sessionId, { dir: cwd });
  timings.push(performance.now() - started);
  count = messages.length;
}
process.stdout.write(JSON.stringify({ ms: timings, messages: count }) + "\n");
