/**
 * Lighthouse's performance score and its timings for / and /profile (the built frontend served by
 * the real API), beside the same audit of a bare page (one line of text from node:http) on the same
 * machine in the same run: the bare page's figures are what the machine alone costs. The
 * deterministic part (accessibility, bytes, render-blocking, layout shift) is the test
 * frontend/e2e/lighthouse.e2e-spec.ts.
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';

const ROUNDS = Number(process.env.BENCH_LIGHTHOUSE_ROUNDS ?? 3);
const SCRIPT = join(__dirname, '../../frontend/scripts/lighthouse.mjs');

interface Audit {
  path: string;
  performance: number;
  timings: Record<string, number>;
}

async function audit(base: string, paths: string): Promise<Audit[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [SCRIPT, '--base', base, '--json', '--paths', paths],
    {
      maxBuffer: 10 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout) as Audit[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    FRONTEND_DIST: join(__dirname, '../../frontend/dist'),
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const appBase = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html lang="en"><title>bare</title><p>bare page</p></html>');
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  const rows = new Map<string, Audit[]>();
  const add = (label: string, a: Audit) => rows.set(label, [...(rows.get(label) ?? []), a]);
  try {
    // Interleaved, so that what else the machine does weighs on both alike.
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const a of await audit(bareBase, '/')) add('bare page (baseline)', a);
      for (const a of await audit(appBase, '/,/profile')) add(a.path, a);
    }
  } finally {
    bare.close();
    await app.close();
  }
  console.log(
    `lighthouse (desktop preset), median of ${ROUNDS} interleaved rounds; load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('route                  performance   FCP ms   LCP ms   TBT ms');
  for (const [label, audits] of rows) {
    const m = (id: string) => String(median(audits.map((a) => a.timings[id]))).padStart(8);
    console.log(
      `${label.padEnd(22)} ${String(median(audits.map((a) => a.performance))).padStart(11)} ${m('first-contentful-paint')} ${m('largest-contentful-paint')} ${m('total-blocking-time')}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
