// The Khronos glTF validator (npm `gltf-validator`) on each file given:
// prints one JSON object a file, {file, errors, warnings, infos, hints,
// codes: {CODE: count}, first: [messages]}, one a line. Run by
// tests/tools/mod.rs with NODE_PATH set to where the package is installed.
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function report(file) {
  const full = path.resolve(file);
  const resources = (uri) =>
    fs.promises.readFile(path.resolve(path.dirname(full), decodeURIComponent(uri))).then((b) => new Uint8Array(b));
  const result = await validator.validateBytes(new Uint8Array(fs.readFileSync(full)), {
    uri: path.basename(full),
    maxIssues: 0,
    writeTimestamp: false,
    externalResourceFunction: resources,
  });
  const issues = result.issues;
  const codes = {};
  for (const message of issues.messages) codes[message.code] = (codes[message.code] || 0) + 1;
  return {
    file,
    version: validator.version(),
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    hints: issues.numHints,
    codes,
    first: issues.messages.slice(0, 5).map((m) => `${m.code} ${m.pointer || ''}: ${m.message}`),
  };
}

(async () => {
  for (const file of process.argv.slice(2)) console.log(JSON.stringify(await report(file)));
})().catch((error) => {
  console.error(String(error));
  process.exit(2);
});
