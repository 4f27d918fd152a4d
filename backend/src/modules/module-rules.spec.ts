/**
 * The backend's module rules (.dependency-cruiser.cjs, checked by deploy/local/check-module-rules.mjs
 * in npm test), run by the real checker on small backends written to a temp folder, and on a temp
 * copy of this backend with one deliberate back-import.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const CHECK = path.join(ROOT, 'deploy/local/check-module-rules.mjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: { name: string; severity: string }[];
};

function check(cwd: string, ...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CHECK, ...args],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

/** Writes files (path relative to backend/src/modules → content) under a fresh temp folder. */
async function backend(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'module-rules-'));
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(dir, 'backend/src/modules', file);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  return dir;
}

// Two modules with a public face each: shop (above) uses ledger (below) through ledger's index.ts.
const tree = {
  'ledger/index.ts': "export { Ledger } from './ledger';\n",
  'ledger/ledger.ts': 'export class Ledger {\n  balance = 0;\n}\n',
  'shop/index.ts': "export { Shop } from './shop';\n",
  'shop/shop.ts': "import { Ledger } from '../ledger';\n\nexport class Shop {\n  ledger = new Ledger();\n}\n",
};

describe('module rules', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
  const fixture = async (files: Record<string, string>) => {
    const dir = await backend(files);
    dirs.push(dir);
    return dir;
  };

  it('passes modules that form a tree and import each other through their index.ts', async () => {
    const { code, output } = await check(await fixture(tree), '--no-known');
    expect(output).not.toContain('no-module-cycles');
    expect(output).not.toContain('only-through-module-face');
    expect(code).toBe(0);
  });

  it('fails on a back-import that closes a loop, naming the rule and why', async () => {
    const dir = await fixture({
      ...tree,
      'ledger/refunds.ts':
        "import { Shop } from '../shop';\n\nexport const refund = (shop: Shop) => shop.ledger;\n",
    });
    const { code, output } = await check(dir, '--no-known');
    expect(output).toMatch(
      /error no-module-cycles: backend\/src\/modules\/(ledger|shop) → \s*backend\/src\/modules\/(shop|ledger)/,
    );
    expect(output).toContain('Backend modules must form a tree');
    expect(output).toContain('a module above');
    expect(code).toBe(1);
  });

  it('fails on two files that import each other, even within one module and through types only', async () => {
    const dir = await fixture({
      ...tree,
      'shop/basket.ts':
        "import type { Till } from './till';\n\nexport interface Basket {\n  till: Till;\n}\n",
      'shop/till.ts':
        "import type { Basket } from './basket';\n\nexport interface Till {\n  open?: Basket;\n}\n",
    });
    const { code, output } = await check(dir, '--no-known');
    expect(output).toMatch(
      /error no-circular: backend\/src\/modules\/shop\/(basket|till)\.ts → backend\/src\/modules\/shop\/(till|basket)\.ts/,
    );
    expect(output).toContain('No file may import itself back around a loop');
    expect(code).toBe(1);
  });

  it("reports an import past another module's index.ts, naming the rule and why", async () => {
    const dir = await fixture({
      ...tree,
      'shop/shop.ts':
        "import { Ledger } from '../ledger/ledger';\n\nexport class Shop {\n  ledger = new Ledger();\n}\n",
    });
    const { code, output } = await check(dir, '--no-known');
    const severity = config.forbidden.find((rule) => rule.name === 'only-through-module-face')?.severity;
    expect(output).toContain(
      `${severity} only-through-module-face: backend/src/modules/shop/shop.ts → backend/src/modules/ledger/ledger.ts`,
    );
    expect(output).toContain('only through its index.ts');
    expect(code).toBe(severity === 'error' ? 1 : 0);
  });

  it('passes this backend, and fails a copy of it with a deliberate back-import and an import past a face', async () => {
    expect((await check(ROOT)).code).toBe(0);

    // accounts imports auth; auth importing accounts back (through its face, so only the loop is
    // wrong) closes the loop that auth's ACCOUNT_DIRECTORY port exists to avoid
    const dir = await mkdtemp(path.join(tmpdir(), 'module-rules-copy-'));
    dirs.push(dir);
    await cp(path.join(ROOT, 'backend/src'), path.join(dir, 'backend/src'), { recursive: true });
    await writeFile(
      path.join(dir, 'backend/src/modules/auth/deliberate-back-import.ts'),
      "import { AccountsRepository } from '../accounts';\n\nexport type Back = AccountsRepository;\n",
    );
    // and a module reaching past another's face (generation does use billing, through its index.ts)
    await writeFile(
      path.join(dir, 'backend/src/modules/generation/deliberate-deep-import.ts'),
      "import { LedgerService } from '../billing/ledger.service';\n\nexport type Deep = LedgerService;\n",
    );
    const { code, output } = await check(dir);
    expect(output).toMatch(
      /error no-module-cycles: backend\/src\/modules\/auth → \s*backend\/src\/modules\/accounts/,
    );
    expect(output).toContain('Backend modules must form a tree');
    expect(output).toContain(
      'error only-through-module-face: backend/src/modules/generation/deliberate-deep-import.ts → backend/src/modules/billing/ledger.service.ts',
    );
    expect(output).toContain('only through its index.ts');
    expect(code).toBe(1);
  }, 120000);
});
