// Ruff's WebAssembly build (npm @astral-sh/ruff-wasm-nodejs, rules E and F) over every file in
// FILE_LIST, twice in one process: the first pass includes V8 compiling the module, the second
// is warm. Prints one line: "files N diagnostics D first S cpu S warm S cpu S" (wall, then CPU
// time of the process, which a busy machine distorts less).
//   node bench/ruff_wasm.cjs DEPS_DIR FILE_LIST
'use strict';
const fs = require('fs');
const path = require('path');

const [depsDir, listPath] = process.argv.slice(2);
if (!depsDir || !listPath) {
  console.error('usage: node ruff_wasm.cjs DEPS_DIR FILE_LIST');
  process.exit(2);
}
const start = process.hrtime.bigint();
const ruff = require(path.resolve(depsDir, 'node_modules/@astral-sh/ruff-wasm-nodejs'));
const workspace = new ruff.Workspace({ lint: { select: ['E', 'F'] } }, ruff.PositionEncoding.Utf16);
const files = fs.readFileSync(listPath, 'utf8').split('\n').filter(Boolean);

function lintAll() {
  let diagnostics = 0;
  for (const file of files) {
    diagnostics += workspace.check(fs.readFileSync(file, 'utf8')).length;
  }
  return diagnostics;
}
const seconds = (from) => Number(process.hrtime.bigint() - from) / 1e9;
const cpu = (from) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
};
lintAll();
const first = seconds(start);
const firstCpu = cpu();
const warmStart = process.hrtime.bigint();
const warmCpuStart = process.cpuUsage();
const diagnostics = lintAll();
const warm = seconds(warmStart);
const warmCpu = cpu(warmCpuStart);
console.log(`files ${files.length} diagnostics ${diagnostics} first ${first.toFixed(3)} ` +
            `cpu ${firstCpu.toFixed(3)} warm ${warm.toFixed(3)} cpu ${warmCpu.toFixed(3)}`);
