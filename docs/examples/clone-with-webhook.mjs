#!/usr/bin/env node
// Runs one clone with a personal API key, waits for its webhook instead of polling, and saves the
// signed output (docs/api.md, "Signed webhooks").
// Usage: STUDIO_URL=… STUDIO_KEY=sk_studio_… STUDIO_WEBHOOK_SECRET=whsec_… WEBHOOK_PORT=8787 \
//          node clone-with-webhook.mjs photo.png out.png
// Register the endpoint first on Profile → Account → Webhooks, for the job events, at the public
// https address that reaches WEBHOOK_PORT here (a tunnel or reverse proxy; for a local studio
// started with WEBHOOK_ALLOW_LOOPBACK=true, http://127.0.0.1:8787/ itself).
// Node 22 or later; the signature is checked as the Standard Webhooks specification says, with
// node:crypto only (the `standardwebhooks` npm package does the same in one call).
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { basename } from 'node:path';

const [input, output = 'clone.png'] = process.argv.slice(2);
const base = process.env.STUDIO_URL ?? 'http://localhost:3000';
const key = process.env.STUDIO_KEY;
const secret = process.env.STUDIO_WEBHOOK_SECRET;
const port = Number(process.env.WEBHOOK_PORT ?? 8787);
if (!input || !key || !secret?.startsWith('whsec_')) {
  console.error(
    'usage: STUDIO_URL=… STUDIO_KEY=sk_studio_… STUDIO_WEBHOOK_SECRET=whsec_… node clone-with-webhook.mjs <image> [out.png]',
  );
  process.exit(2);
}
const auth = { Authorization: `Bearer ${key}` };

/** Standard Webhooks: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> under the secret's bytes. */
function verified(headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  if (!id || !timestamp || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((candidate) => {
      const [version, signature] = candidate.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

// 1. Listen for the studio's deliveries; resolve when the job we start has ended.
const seen = new Set();
const waiting = new Map();
const early = new Map();
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (!verified(req.headers, body)) return res.writeHead(401).end();
    res.writeHead(204).end(); // answer at once; the work happens after
    const id = req.headers['webhook-id'];
    if (seen.has(id)) return; // a retry or replay of one already handled
    seen.add(id);
    const event = JSON.parse(body);
    if (!event.type.startsWith('job.')) return;
    const done = waiting.get(event.data.jobId);
    if (done) done(event);
    else early.set(event.data.jobId, event);
  });
});
await new Promise((resolve) => server.listen(port, resolve));
const ended = (jobId) =>
  early.has(jobId)
    ? Promise.resolve(early.get(jobId))
    : new Promise((resolve) => waiting.set(jobId, resolve));

async function call(path, init = {}) {
  const res = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : null;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${body?.content ?? ''}`);
  return body;
}

try {
  // 2. Upload the image and start the job (the Idempotency-Key makes a retry safe).
  const form = new FormData();
  form.set('amount', '1');
  form.set('original', new Blob([await readFile(input)], { type: 'image/png' }), basename(input));
  const started = await call('/api/generateNoise', {
    method: 'POST',
    headers: { 'Idempotency-Key': randomUUID() },
    body: form,
  });
  const jobId = started.content.job._id;
  console.log(`job ${jobId} started; waiting for its webhook`);

  // 3. The webhook says how it ended.
  const event = await ended(jobId);
  if (event.type !== 'job.succeeded')
    throw new Error(`${event.type}: ${event.data.message ?? ''} (refunded ${event.data.refunded ?? 0})`);

  // 4. Download the output: a PNG carrying the studio's C2PA manifest and watermark.
  const job = (await call(`/api/jobs/${jobId}`)).content;
  const file = await fetch(`${base}${job.items[0].url}`, { headers: auth });
  if (!file.ok) throw new Error(`download: ${file.status}`);
  await writeFile(output, Buffer.from(await file.arrayBuffer()));
  console.log(`saved ${output}`);
} finally {
  server.close();
}
