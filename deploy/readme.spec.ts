/**
 * README.md is the front door (issue 31): under 150 lines, and every page of docs/ is reachable
 * from it; every link in README and in docs/ to a file of this repository points at one that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Relative link targets of a markdown text, without their #anchor. */
function localLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1].split('#')[0])
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target));
}

describe('README.md and docs/', () => {
  const readme = read('README.md');
  const pages = readdirSync(path.join(ROOT, 'docs')).filter((file) => file.endsWith('.md'));

  it('keeps the README under 150 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThan(150);
  });

  it('links every docs page from the README', () => {
    const linked = localLinks(readme).map((target) => path.normalize(target));
    expect(pages.filter((page) => !linked.includes(path.join('docs', page)))).toEqual([]);
  });

  it('links only to files that exist', () => {
    const broken = [
      ...localLinks(readme).map((target) => ['README.md', target]),
      ...pages.flatMap((page) => localLinks(read(`docs/${page}`)).map((target) => [`docs/${page}`, target])),
    ].filter(([from, target]) => !existsSync(path.resolve(ROOT, path.dirname(from), target)));
    expect(broken).toEqual([]);
  });
});
