import sharp from 'sharp';
import { FaceAnalyzer } from './face-analyzer';
import { FIXTURES, fixture, gradientImage } from './spec-helpers';
import { tf } from './tf-runtime';

jest.setTimeout(120_000);

describe('FaceAnalyzer', () => {
  const analyzer = new FaceAnalyzer();

  beforeAll(async () => {
    const started = Date.now();
    await analyzer.load();
    console.log(`face models load: ${Date.now() - started} ms`);
  });

  afterAll(() => analyzer.close());

  it('finds one face with 468 landmarks in each fixture', async () => {
    const lines: string[] = [];
    for (const name of FIXTURES) {
      const image = fixture(name);
      const meta = await sharp(image).metadata();
      const started = Date.now();
      const detection = await analyzer.detect(image);
      lines.push(`${name}: detect ${Date.now() - started} ms, box ${detection.faces[0]?.box.join(',')}`);
      expect(detection).toMatchObject({ width: meta.width, height: meta.height });
      expect(detection.faces).toHaveLength(1);
      const [face] = detection.faces;
      expect(face.landmarks).toHaveLength(468);
      expect(face.score).toBeGreaterThan(0.5);
      const [x, y, w, h] = face.box;
      expect(w).toBeGreaterThan(50);
      for (const [px, py] of face.landmarks) {
        expect(px).toBeGreaterThanOrEqual(x - 1);
        expect(px).toBeLessThanOrEqual(x + w + 1);
        expect(py).toBeGreaterThanOrEqual(y - 1);
        expect(py).toBeLessThanOrEqual(y + h + 1);
      }
    }
    console.log(lines.join('\n'));
  });

  it('finds no face in a gradient', async () => {
    const detection = await analyzer.detect(await gradientImage());
    expect(detection).toEqual({ width: 320, height: 240, faces: [] });
    await expect(analyzer.embedding(await gradientImage())).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('gives close embeddings for the same face and distant ones for different faces', async () => {
    const names = ['ai-face.jpg', 'cgi-model-1.jpg', 'cgi-model-3.jpg', 'cgi-model-22.jpg'];
    const embeddings: Float32Array[] = [];
    for (const name of names) {
      const started = Date.now();
      embeddings.push(await analyzer.embedding(fixture(name)));
      console.log(`${name}: detect + embedding ${Date.now() - started} ms`);
    }
    expect(embeddings[0]).toHaveLength(256);

    const same: string[] = [];
    for (const [i, name] of names.entries()) {
      const blurred = await sharp(fixture(name)).blur(1.5).toBuffer();
      const brighter = await sharp(fixture(name)).modulate({ brightness: 1.2 }).toBuffer();
      for (const variant of [blurred, brighter]) {
        const distance = analyzer.distance(embeddings[i], await analyzer.embedding(variant));
        same.push(`${name} ${distance.toFixed(2)}`);
        expect(distance).toBeLessThan(3.5);
      }
    }
    const different: string[] = [];
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const distance = analyzer.distance(embeddings[i], embeddings[j]);
        different.push(`${names[i]}/${names[j]} ${distance.toFixed(2)}`);
        expect(distance).toBeGreaterThan(4.5);
      }
    }
    console.log(
      `same face (blurred, brighter): ${same.join(', ')}\ndifferent faces: ${different.join(', ')}`,
    );
  });

  it('is safe to call concurrently and keeps no tensors', async () => {
    const tensors = tf.memory().numTensors;
    const results = await Promise.all(FIXTURES.map((name) => analyzer.detect(fixture(name))));
    const embeddings = await Promise.all(FIXTURES.map((name) => analyzer.embedding(fixture(name))));
    expect(results.map((r) => r.faces.length)).toEqual(FIXTURES.map(() => 1));
    expect(embeddings.map((e) => e.length)).toEqual(FIXTURES.map(() => 256));
    expect(tf.memory().numTensors).toBe(tensors);
  });
});
