import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import express, { type Request, type Response } from 'express';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, of } from 'rxjs';
import { JobMessages, UPLOAD_REQUEST_LIMITS } from '@studio/contracts';
import { eventually } from '../../../test/clients';
import type { AppConfig } from '../../config/app-config';
import {
  imageUpload,
  ToolUpload,
  uploadTempRoot,
  UploadInterceptor,
  UploadSlots,
} from './generation-uploads';

/**
 * Requests whose client is gone before the upload code sees them (it left while the checks
 * before the body awaited the database): served by a real HTTP server, handed over once their
 * 'close' has passed. `live` requests stay open until `end`.
 */
async function requestServer() {
  const waiting: ((pair: { req: Request; res: Response }) => void)[] = [];
  const app = express();
  app.post('/upload', (req, res) => waiting.shift()!({ req, res }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const clients: http.ClientRequest[] = [];
  const send = () => {
    const handed = new Promise<{ req: Request; res: Response }>((resolve) => waiting.push(resolve));
    const client = http.request({
      host: '127.0.0.1',
      port,
      path: '/upload',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': 1_000_000 },
    });
    client.on('error', () => undefined);
    client.write('--x\r\n'); // headers and the start of a body that never ends
    clients.push(client);
    return { client, handed };
  };
  return {
    async closed() {
      const { client, handed } = send();
      const { req, res } = await handed;
      const gone = new Promise((resolve) => res.once('close', resolve));
      client.destroy();
      await gone;
      return { req, res };
    },
    live: () => send().handed,
    async end() {
      clients.forEach((c) => c.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('uploads whose client left before the body was read', () => {
  let requests: Awaited<ReturnType<typeof requestServer>>;
  beforeEach(async () => {
    requests = await requestServer();
  });
  afterEach(() => requests.end());

  it('hold no upload slot: a closed response would never free it', async () => {
    const slots = new UploadSlots();
    for (let i = 0; i <= UPLOAD_REQUEST_LIMITS.concurrentPerUser; i++) {
      const { res } = await requests.closed();
      expect(slots.take('user-1', res)).toBe(true);
    }
    const { res } = await requests.live();
    expect(slots.take('user-1', res)).toBe(true);
  });

  it('are answered as interrupted, and leave no temp folder behind', async () => {
    const storage = await mkdtemp(join(tmpdir(), 'uploads-spec-'));
    try {
      class Tool {
        @ToolUpload(imageUpload('superResolution', 1, (name) => name === 'image'))
        upload() {}
      }
      const interceptor = new UploadInterceptor(new Reflector(), { STORAGE_DIR: storage } as AppConfig);
      const { req, res } = await requests.closed();
      const context = {
        switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
        getHandler: () => Tool.prototype.upload,
      } as unknown as ExecutionContext;
      const next: CallHandler = { handle: () => of('handled') };

      await expect(lastValueFrom(interceptor.intercept(context, next))).rejects.toThrow(
        JobMessages.uploadAborted,
      );
      // Removed as the request ends (not awaited by the answer).
      const root = uploadTempRoot({ STORAGE_DIR: storage } as AppConfig);
      await eventually(async () => expect(await readdir(root)).toEqual([]));
    } finally {
      await rm(storage, { recursive: true, force: true });
    }
  });
});
