/**
 * README.md is the front door (issue 31): under 150 lines, and every page of docs/ is reachable
 * from it; every link in README and in docs/ to a file of this repository points at one that exists,
 * and to a heading of it that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Relative link targets of a markdown text, with their #anchor if any. */
function localLinksWithAnchors(markdown: string): { target: string; anchor?: string }[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1].split('#'))
    .map(([target, anchor]) => ({ target, anchor }))
    .filter(({ target }) => target !== '' && !/^[a-z]+:/.test(target));
}
const localLinks = (markdown: string) => localLinksWithAnchors(markdown).map(({ target }) => target);

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as dashes. */
const anchors = (markdown: string) =>
  [...markdown.matchAll(/^#+ (.+)$/gm)].map((match) =>
    match[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-'),
  );

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

  it('links to headings that exist', () => {
    const missing = pages
      .map((page) => `docs/${page}`)
      .concat('README.md')
      .flatMap((from) =>
        localLinksWithAnchors(read(from))
          .filter(({ target, anchor }) => anchor && target.endsWith('.md'))
          .filter(({ target, anchor }) => {
            const file = path.relative(ROOT, path.resolve(ROOT, path.dirname(from), target));
            return !existsSync(path.join(ROOT, file)) || !anchors(read(file)).includes(anchor as string);
          })
          .map(({ target, anchor }) => `${from} -> ${target}#${anchor}`),
      );
    expect(missing).toEqual([]);
  });
});
