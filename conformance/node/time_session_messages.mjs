// Times getSessionMessages on one transcript already laid out in a config dir.
// argv: <sdk dir> <config dir> <project cwd> <session id> <repeats>
// Prints {"ms": [...], "messages": N, "peak_mb"} on stdout (peak_mb: VmHWM, this
// process's own peak resident memory, on Linux, read after the first load: one load's
// peak, whatever the later repeats leave for the collector). The import is not timed.
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [sdkDir, configDir, cwd, sessionId, repeatsText] = process.argv.slice(2);
process.env.CLAUDE_CONFIG_DIR = configDir;
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);
const timings = [];
let count = 0;
let peakMb = null;
for (let i = 0; i < Number(repeatsText); i++) {
  const started = performance.now();
  const messages = await sdk.getSessionMessages(sessionId, { dir: cwd });
  timings.push(performance.now() - started);
  count = messages.length;
  if (i === 0) peakMb = ownPeakMb();
}
function ownPeakMb() {
  try {
    const hwm = readFileSync("/proc/self/status", "utf8").match(/^VmHWM:\s+(\d+)/m);
    return hwm ? Number(hwm[1]) / 1024 : null;
  } catch {
    return null; // not Linux: no peak
  }
}

process.stdout.write(JSON.stringify({ ms: timings, messages: count, peak_mb: peakMb }) + "\n");
