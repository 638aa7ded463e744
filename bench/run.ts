// `npm run bench`: runs every bench/*.bench.ts one after another (never in parallel: they measure time).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { cpus, totalmem } from "node:os";

const only = process.argv.slice(2);
const files = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

console.log(
  `# Toolwall benchmarks\n\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}\n`,
);
let failed = 0;
for (const file of files) {
  console.error(`bench: ${file}…`);
  const result = spawnSync(process.execPath, ["--expose-gc", new URL(file, import.meta.url).pathname], {
    stdio: "inherit",
  });
  if (result.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
