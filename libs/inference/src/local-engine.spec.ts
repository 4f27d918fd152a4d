/**
 * @jest-environment ./libs/inference/src/sr-onnx.jest-env.cjs
 */
import sharp from 'sharp';
import { JobMessages } from '@studio/contracts';
import { CapabilityUnavailableError, EngineInputError } from './engine.port';
import { FACE_OVAL } from './geometry';
import { decodeRgb } from './image-io';
import { LocalCpuEngine } from './local-engine';
import { seamFigure } from './seam';
import { AI_GENERATED_MARK, IPTC_COMPOSITE_WITH_AI } from './provenance';
import { fixture, gradientImage } from './spec-helpers';

jest.setTimeout(120_000);

describe('LocalCpuEngine', () => {
  const engine = new LocalCpuEngine();

  beforeAll(async () => {
    const started = Date.now();
    await engine.warmup();
    console.log(`warmup (all models): ${Date.now() - started} ms`);
  });

  afterAll(() => engine.close());

  it('has every capability but generate', async () => {
    expect([...engine.capabilities].sort()).toEqual([
      'clone',
      'faceSwap',
      'faceSwapVideo',
      'inpaint',
      'superResolve',
    ]);
    await expect(engine.generate({ prompt: 'x', width: 64, height: 64 })).rejects.toEqual(
      new CapabilityUnavailableError('generate'),
    );
  });

  it('inpaints (OpenCV) and swaps faces in videos (ffmpeg)', async () => {
    const image = await sharp(fixture('ai-face.jpg')).resize(128, 128).png().toBuffer();
    const mask = await sharp({ create: { width: 128, height: 128, channels: 4, background: '#00000000' } })
      .composite([
        {
          input: { create: { width: 20, height: 20, channels: 4, background: '#ffffff' } },
          top: 10,
          left: 10,
        },
      ])
      .png()
      .toBuffer();
    await expect(engine.inpaint({ image, mask, prompt: 'ignored' })).resolves.toMatchObject({
      format: 'png',
      width: 128,
      height: 128,
    });
    await expect(
      engine.faceSwapVideo({ videoPath: '/nonexistent/in.mp4', face: image, outputPath: '/tmp/out.mp4' }),
    ).rejects.toEqual(new EngineInputError('bad_request', JobMessages.badVideo));
  });

  describe('faceSwap', () => {
    // Pairs of different people; the output face must be closer to the source face than to the
    // target's original face (Euclidean distance of faceres embeddings).
    const pairs: [string, string][] = [
      ['cgi-model-1.jpg', 'cgi-model-22.jpg'],
      ['cgi-model-22.jpg', 'cgi-model-3.jpg'],
      ['ai-face.jpg', 'cgi-model-3.jpg'],
      ['cgi-model-22.jpg', 'ai-face.jpg'],
    ];

    it.each(pairs)('puts the face of %s onto %s', async (sourceName, targetName) => {
      const source = fixture(sourceName);
      const target = fixture(targetName);
      const progress: number[] = [];
      const started = Date.now();
      const result = await engine.faceSwap({ face: source, target }, { onProgress: (f) => progress.push(f) });
      const ms = Date.now() - started;

      // The target's own size (it is no longer fitted within 1024 px).
      const targetMeta = await sharp(target).metadata();
      expect(result).toMatchObject({ format: 'jpeg', width: targetMeta.width, height: targetMeta.height });
      const meta = await sharp(result.data).metadata();
      expect(meta).toMatchObject({ format: 'jpeg', width: result.width, height: result.height });
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.at(-1)).toBe(1);

      const faces = engine.faces;
      const [swapped] = (await faces.detect(result.data)).faces;
      expect(swapped).toBeDefined();
      const output = await faces.embedding(result.data, swapped.box);
      const toSource = faces.distance(output, await faces.embedding(source));
      const toTarget = faces.distance(output, await faces.embedding(target));
      console.log(
        `${sourceName} -> ${targetName}: output-source ${toSource.toFixed(2)}, output-target ${toTarget.toFixed(2)}, ` +
          `${ms} ms`,
      );
      expect(toSource).toBeLessThan(toTarget);
    });

    it('marks the output as AI-generated in its metadata', async () => {
      const result = await engine.faceSwap({
        face: fixture('cgi-model-22.jpg'),
        target: fixture('ai-face.jpg'),
      });
      const meta = await sharp(result.data).metadata();
      expect(meta.exif?.toString('latin1')).toContain(`${AI_GENERATED_MARK} image: face swap`);
      expect(meta.xmp?.toString('utf8')).toContain(IPTC_COMPOSITE_WITH_AI);
    });

    it('blends the face in without a seam along its outline', async () => {
      const target = fixture('cgi-model-3.jpg');
      const result = await engine.faceSwap({ face: fixture('ai-face.jpg'), target });
      const targetRgb = await decodeRgb(target, 4096);
      const [face] = await engine.faces.detectRgb(targetRgb);
      const seam = seamFigure(
        targetRgb,
        await decodeRgb(result.data, 4096),
        FACE_OVAL.map((k) => face.landmarks[k]),
      );
      console.log(`ai-face -> cgi-model-3 seam ${seam.toFixed(2)} ΔE`);
      // a feathered paste with the Lab transfer measured 3.2 here
      expect(seam).toBeLessThan(1);
    });

    it('refuses, as bad input, faces turned too differently to swap', async () => {
      // ai-upper's face is turned about 43 degrees; mirrored, the same face turned the other way
      const turned = fixture('ai-upper.jpg');
      const swap = engine.faceSwap({ face: await sharp(turned).flop().png().toBuffer(), target: turned });
      await expect(swap).rejects.toBeInstanceOf(EngineInputError);
      await expect(swap).rejects.toMatchObject({ code: 'bad_request' });
      await expect(swap).rejects.toThrow(/^Face 1 of the target is turned [89]\d° differently/);
    });

    it('fails with the right input error when a side has no face', async () => {
      const noFace = await gradientImage();
      const source = engine.faceSwap({ face: noFace, target: fixture('ai-face.jpg') });
      await expect(source).rejects.toBeInstanceOf(EngineInputError);
      await expect(source).rejects.toMatchObject({
        code: 'no_face_source',
        message: JobMessages.noFaceSource,
      });
      const target = engine.faceSwap({ face: fixture('ai-face.jpg'), target: noFace });
      await expect(target).rejects.toMatchObject({
        code: 'no_face_target',
        message: JobMessages.noFaceTarget,
      });
      const unreadable = engine.faceSwap({ face: Buffer.from('nope'), target: fixture('ai-face.jpg') });
      await expect(unreadable).rejects.toMatchObject({ code: 'bad_image', message: JobMessages.badImage });
    });
  });

  it('runs different jobs concurrently', async () => {
    const small = await sharp(fixture('ai-face.jpg')).resize(96, 96).png().toBuffer();
    const [swap, upscaled, clones] = await Promise.all([
      engine.faceSwap({ face: fixture('cgi-model-1.jpg'), target: fixture('cgi-model-22.jpg') }),
      engine.superResolve({ image: small }),
      engine.clone({ image: small, amount: 2 }),
    ]);
    expect(swap).toMatchObject({ width: 905, height: 1280 }); // the target's own size
    expect(upscaled).toMatchObject({ width: 192, height: 192 });
    expect(clones).toHaveLength(2);
  });

  it('stops a cancelled job', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      engine.superResolve({ image: fixture('ai-face.jpg') }, { signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});
