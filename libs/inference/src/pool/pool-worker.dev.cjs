// Entry of a pool thread when the pool runs from TypeScript sources (jest, ts-node): there is no
// compiled pool-worker.js beside engine-pool.ts then, so the thread starts here, teaches require()
// TypeScript and the workspace's source aliases (as jest's moduleNameMapper does) and loads
// pool-worker.ts. Built code (dist/pool/pool-worker.js) never comes here.
const path = require('node:path');
const Module = require('node:module');

require('ts-node').register({
  transpileOnly: true,
  project: path.resolve(__dirname, '../../tsconfig.json'),
});
const sources = { '@studio/contracts': path.resolve(__dirname, '../../../contracts/src/index.ts') };
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, sources[request] ?? request, ...rest);
};

module.exports = require('./pool-worker.ts');
