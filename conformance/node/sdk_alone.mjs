// The TS SDK's own CPU cost of getSessionMessages, without rechain's bridge around it.
//
// Usage: node sdk_alone.mjs <sdk-package-dir> <plan.json> <concurrency>
// plan.json: [{"config": dir, "cwd": dir, "session_id", "include_system_messages"}, ...],
// each transcript already laid out at <config>/projects/<sanitized cwd>/<id>.jsonl (as the
// bridge lays a batch out). The first call warms up untimed (as the benchmark warms the
// bridge with one case), then every call runs, up to <concurrency> at once, calls with the
// same config dir together (CLAUDE_CONFIG_DIR is process-wide). Prints
// {"calls", "cpu_ms", "wall_ms"}: this process's CPU (all threads) for the timed calls.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, planFile, concurrencyText] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planFile, "utf8"));
const manifest = JSON.parse(fs.readFileSync(path.join(sdkDir, "package.json"), "utf8"));
const sdk = await import(pathToFileURL(path.join(sdkDir, manifest.main ?? "sdk.mjs")).href);

/** One SDK call as the bridge makes it (errors are answers here too). */
async function call(one) {
  try {
    await sdk.getSessionMessages(one.session_id, {
      dir: one.cwd, includeSystemMessages: Boolean(one.include_system_messages),
    });
  } catch { /* the SDK raising costs what it costs */ }
}

const groups = new Map();
for (const one of plan) {
  if (!groups.has(one.config)) groups.set(one.config, []);
  groups.get(one.config).push(one);
}
process.env.CLAUDE_CONFIG_DIR = plan[0].config;
await call(plan[0]);
const cpu = process.cpuUsage();
const started = performance.now();
for (const [config, calls] of groups) {
  process.env.CLAUDE_CONFIG_DIR = config;
  let next = 0;
  const lane = async () => { while (next < calls.length) await call(calls[next++]); };
  await Promise.all(Array.from({ length: Math.max(1, Number(concurrencyText)) }, lane));
}
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({
  calls: plan.length, cpu_ms: (used.user + used.system) / 1000,
  wall_ms: performance.now() - started,
})}\n`);
