import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../../test/test-app';
import { IMMUTABLE_CACHE } from './create-app';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as sent, still compressed when Content-Encoding says so. */
  body: Buffer;
}

/** A GET that keeps the body as it came over the wire (fetch and supertest would decode it). */
function rawGet(url: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    }).on('error', reject);
  });
}

function decode(res: RawResponse): string {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(res.body).toString('utf8');
  return res.body.toString('utf8');
}

/**
 * The API serves the built frontend and its own JSON compressed (brotli, else gzip), content-hashed
 * assets with a year's immutable cache and index.html revalidated on every use.
 */
describe('compression and caching of the frontend and the API', () => {
  const dist = mkdtempSync(join(tmpdir(), 'studio-dist-'));
  const script = `console.log(${JSON.stringify('a studio bundle '.repeat(400))});\n`;
  const indexHtml = `<!doctype html><html><head><title>AI Studio</title></head><body>${'<div></div>'.repeat(200)}</body></html>`;
  let image: Buffer;
  let t: TestApp;
  const brOrGzip = { 'Accept-Encoding': 'br, gzip' };

  beforeAll(async () => {
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), indexHtml);
    writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.js'), script);
    writeFileSync(join(dist, 'assets', 'style-Ef56Gh78.css'), 'body { margin: 0; }\n'.repeat(200));
    image = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#7c3aed' } })
      .png()
      .toBuffer();
    writeFileSync(join(dist, 'assets', 'logo-Ij90Kl12.png'), image);
    t = await startTestApp({ FRONTEND_DIST: dist });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves a hashed script brotli-compressed with a year of immutable cache', async () => {
    const res = await rawGet(`${t.url}/assets/index-Ab12Cd34.js`, brOrGzip);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
    expect(res.body.length).toBeLessThan(script.length / 5);
    expect(decode(res)).toBe(script);
  });

  it('falls back to gzip for a client without brotli, and to identity for one without either', async () => {
    const gzip = await rawGet(`${t.url}/assets/style-Ef56Gh78.css`, { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(decode(gzip)).toContain('body { margin: 0; }');
    const plain = await rawGet(`${t.url}/assets/style-Ef56Gh78.css`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('serves index.html compressed and revalidated, at / and at client-side routes', async () => {
    for (const path of ['/', '/profile', '/admin/logs']) {
      const res = await rawGet(`${t.url}${path}`, brOrGzip);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(decode(res)).toBe(indexHtml);
    }
  });

  it('answers HEAD at client-side routes as GET would (link checkers, uptime probes)', async () => {
    for (const path of ['/', '/profile']) {
      const res = await fetch(`${t.url}${path}`, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('sends images as they are (already compressed), still with the immutable cache', async () => {
    const res = await rawGet(`${t.url}/assets/logo-Ij90Kl12.png`, brOrGzip);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(res.body.equals(image)).toBe(true);
  });

  it('compresses the API JSON', async () => {
    const doc = await rawGet(`${t.url}/api/openapi.json`, brOrGzip);
    expect(doc.status).toBe(200);
    expect(doc.headers['content-type']).toMatch(/application\/json/);
    expect(doc.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decode(doc)).info.title).toBe('AI Studio API');
  });
});
