#!/usr/bin/env node
// Runs one clone with a personal API key and saves the signed output (docs/api.md).
// Usage: STUDIO_URL=http://localhost:3000 STUDIO_KEY=sk_studio_… node clone-with-key.mjs photo.png out.png
// Node 22 or later (fetch, FormData and Blob are built in); nothing to install.
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';

const [input, output = 'clone.png'] = process.argv.slice(2);
const base = process.env.STUDIO_URL ?? 'http://localhost:3000';
const key = process.env.STUDIO_KEY;
if (!input || !key) {
  console.error('usage: STUDIO_URL=… STUDIO_KEY=sk_studio_… node clone-with-key.mjs <image> [out.png]');
  process.exit(2);
}
const auth = { Authorization: `Bearer ${key}` };

async function call(path, init = {}) {
  const res = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : null;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${body?.content ?? ''}`);
  return { res, body };
}

// 1. Upload the image and start the job. The Idempotency-Key makes a retry after a timeout safe:
//    the same key and file within 24 hours answer the first job again, never charge twice.
const form = new FormData();
form.set('amount', '1');
form.set('original', new Blob([await readFile(input)], { type: 'image/png' }), basename(input));
const idempotencyKey = randomUUID();
let started;
for (let attempt = 1; ; attempt++) {
  try {
    started = await call('/api/generateNoise', {
      method: 'POST',
      headers: { 'Idempotency-Key': idempotencyKey },
      body: form,
    });
    break;
  } catch (err) {
    if (attempt === 3) throw err;
    console.error(`retrying (${err.message})`);
  }
}
let job = started.body.content.job;
console.log(`job ${job._id}: ${job.cost} coin(s), ${job.state}`);

// 2. Wait for it to end.
while (job.state === 'queued' || job.state === 'running') {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  job = (await call(`/api/jobs/${job._id}`)).body.content;
}
if (job.state !== 'succeeded')
  throw new Error(`job ${job.state}: ${job.error ?? ''} (refunded ${job.refunded ?? 0})`);

// 3. Download the output: a PNG carrying the studio's C2PA manifest and watermark.
const file = await fetch(`${base}${job.items[0].url}`, { headers: auth });
if (!file.ok) throw new Error(`download: ${file.status}`);
await writeFile(output, Buffer.from(await file.arrayBuffer()));
console.log(`saved ${output}`);
