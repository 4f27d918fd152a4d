#!/usr/bin/env node
/**
 * Bundle figures of the built frontend (npm run bundle-report -w @studio/frontend, after a build):
 * the JavaScript a first visit of each route downloads before it can render (the entry chunk, the
 * route's lazy page and every chunk they import statically, gzip -9 sized as served) and the
 * largest chunks. Reads Vite's build manifest (build.manifest in vite.config.ts).
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');

const DIST = join(__dirname, '..', 'dist');
const ENTRY = 'index.html';

/** The lazy page module each reported route renders (see src/routes.tsx); null: in the entry. */
const ROUTE_PAGES = {
  '/': null,
  '/login': 'src/pages/Login/LoginPage.tsx',
  '/profile': 'src/pages/Profile/ProfilePage.tsx',
  '/magic': 'src/pages/MagicBrush/MagicBrushPage.tsx',
  '/admin/logs': 'src/pages/AdminLogs/AdminLogsPage.tsx',
};

function readManifest(dist = DIST) {
  return JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
}

/** Files of the chunks a visit to `keys` loads before rendering: the chunks and their static imports. */
function initialFiles(manifest, keys) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build manifest`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  keys.forEach(visit);
  return [...seen].map((key) => manifest[key].file).filter((file) => file.endsWith('.js'));
}

function gzipSize(dist, file) {
  return gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
}

/** Initial JavaScript of a route in gzip bytes, with the files it counts. */
function routeInitialJs(manifest, route, dist = DIST) {
  if (!(route in ROUTE_PAGES)) throw new Error(`no page known for ${route}`);
  const page = ROUTE_PAGES[route];
  const files = initialFiles(manifest, page ? [ENTRY, page] : [ENTRY]);
  return { files, gzipBytes: files.reduce((sum, file) => sum + gzipSize(dist, file), 0) };
}

// kB of 1000 bytes, as Vite prints them.
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

function main() {
  const manifest = readManifest();
  console.log('Initial JavaScript per route (gzip -9):');
  for (const route of Object.keys(ROUTE_PAGES)) {
    const { files, gzipBytes } = routeInitialJs(manifest, route);
    console.log(`  ${route.padEnd(12)} ${kb(gzipBytes).padStart(9)}  (${files.length} chunks)`);
  }
  const chunks = [...new Set(Object.values(manifest).map((chunk) => chunk.file))]
    .filter((file) => file.endsWith('.js'))
    .map((file) => ({ file, gzipBytes: gzipSize(DIST, file) }))
    .sort((a, b) => b.gzipBytes - a.gzipBytes);
  console.log('Largest chunks (gzip -9):');
  for (const { file, gzipBytes } of chunks.slice(0, 8))
    console.log(`  ${kb(gzipBytes).padStart(9)}  ${file}`);
}

// The bundle-size browser test reads the same figures.
module.exports = { readManifest, routeInitialJs };

if (require.main === module) main();
