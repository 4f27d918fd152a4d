// npm run deps (and npm test): dependency-cruiser's module rules (.dependency-cruiser.cjs) on the
// backend. Violations listed in .dependency-cruiser-known-violations.json (what was there when the
// rules came in, issue 31; phase 2 empties it) do not fail the check; any other fails it, with
// dependency-cruiser's own message naming the rule and why.
//
// dependency-cruiser's --ignore-known softens known module and dependency violations but not
// folder-scope ones (the module cycles), so those are matched here the same way: rule, from, to.
//
// Usage: node deploy/local/check-module-rules.mjs [--known <file> | --no-known] [paths...]
// (run from the folder holding backend/; default paths: the backend, the libraries and the frontend)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'dependency-cruiser';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
let known = path.join(root, '.dependency-cruiser-known-violations.json');
const paths = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--known') known = path.resolve(args[++i]);
  else if (args[i] === '--no-known') known = undefined;
  else paths.push(args[i]);
}
if (paths.length === 0) {
  // the whole code base; a folder this tree does not have (the rules' test fixtures) is left out
  for (const folder of ['backend/src', 'libs/contracts/src', 'libs/inference/src', 'frontend/src']) {
    if (existsSync(folder)) paths.push(folder);
  }
}

// the package exports only its API; its CLI (which reads the config and tsconfig) is beside it
const bin = path.join(
  fileURLToPath(import.meta.resolve('dependency-cruiser')),
  '../../../bin/dependency-cruise.mjs',
);
const useKnown = known !== undefined && existsSync(known);
const cruise = spawnSync(
  process.execPath,
  [
    bin,
    '--config',
    path.join(root, '.dependency-cruiser.cjs'),
    '--output-type',
    'json',
    ...(useKnown ? ['--ignore-known', known] : []),
    ...paths,
  ],
  { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
);
if (!cruise.stdout) {
  process.stderr.write(cruise.stderr);
  process.exit(cruise.status || 1);
}
const result = JSON.parse(cruise.stdout);

const knownList = useKnown ? JSON.parse(readFileSync(known, 'utf8')) : [];
const isKnownCycle = (rule, from, to) =>
  knownList.some((k) => k.type === 'cycle' && k.rule.name === rule && k.from === from && k.to === to);

// softened to 'ignore' as dependency-cruiser does with the known violations it handles itself;
// format() counts the violations again from the modules and folders
let ignored = 0;
for (const folder of result.folders ?? []) {
  for (const dependency of folder.dependencies ?? []) {
    for (const rule of dependency.rules ?? []) {
      if (rule.severity !== 'ignore' && isKnownCycle(rule.name, folder.name, dependency.name)) {
        rule.severity = 'ignore';
        ignored++;
      }
    }
  }
}

const report = await format(result, { outputType: 'err-long' });
process.stdout.write(report.output);
if (ignored > 0) {
  process.stdout.write(
    `${ignored} known module cycle edges ignored (listed in ${path.relative(root, known)}).\n`,
  );
}
process.exit(report.exitCode > 0 ? 1 : 0);
