/**
 * docs/configuration.md lists every setting of the configuration schema and nothing else: a
 * setting added to app-config.ts without a line in the table (or a line left behind for a
 * removed one) fails here, naming it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema } from './app-config';

const DOC = path.resolve(__dirname, '../../../docs/configuration.md');

/** The variables named in the first column of the table under "## Settings of the app". */
export function documentedSettings(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Settings of the app'));
  if (!section) throw new Error('docs/configuration.md has no "## Settings of the app" section');
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|')[1] ?? '')
    .flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]));
  return [...new Set(names)].sort();
}

const schemaSettings = () => Object.keys(configSchema.innerType().shape).sort();

describe('docs/configuration.md', () => {
  const documented = documentedSettings(readFileSync(DOC, 'utf8'));

  it('documents every setting of the configuration schema', () => {
    expect(schemaSettings().filter((name) => !documented.includes(name))).toEqual([]);
  });

  it('documents no setting that the configuration schema lacks', () => {
    expect(documented.filter((name) => !schemaSettings().includes(name))).toEqual([]);
  });

  it('reads the names of a table row, several to a row', () => {
    const markdown = [
      '# Configuration',
      '## Settings of the app',
      '| variable | default | notes |',
      '|---|---|---|',
      '| `PORT` | 3000 | HTTP port, see `NODE_ENV` |',
      '| `S3_BUCKET`, `S3_REGION` | —, us-east-1 | the bucket |',
      '## Elsewhere',
      '| `NOT_A_SETTING` | 1 | another table |',
    ].join('\n');
    expect(documentedSettings(markdown)).toEqual(['PORT', 'S3_BUCKET', 'S3_REGION']);
  });
});
