import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, anchors, links, prose, read } from './markdown.js';

// The README and the pages of docs/ link to each other and to files of the repository: every
// relative link names a file that exists, and every #anchor a heading of the page it points to.
// They are written for users: no notes about how they were made.

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...['examples/README.md'].filter((page) => existsSync(join(ROOT, page))),
];

describe('the documentation', () => {
  it('links only to files that exist and to headings that exist', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const { target, line } of links(read(page))) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:, …
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(ROOT, file))) {
          broken.push(`${page}:${line}: ${target} (no ${file})`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor)) {
          broken.push(`${page}:${line}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('lists every page of docs/ in docs/README.md', () => {
    const index = read('docs/README.md');
    const listed = new Set(links(index).map(({ target }) => target.split('#')[0]));
    const missing = PAGES.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md').filter(
      (page) => !listed.has(page.slice('docs/'.length)),
    );
    assert.deepEqual(missing, []);
  });

  it('says nothing about how it was made', () => {
    const notes = /\bSPEC\b|\bthe spec\b|spec is silent|\bthis session\b|BullMQ targets/i;
    const found = PAGES.flatMap((page) =>
      prose(read(page))
        .split('\n')
        .flatMap((line) => (notes.test(line) ? [`${page}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(found, []);
  });
});
