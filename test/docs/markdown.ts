import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs from .out/test/docs/). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The fence's language (`ts`, `sh`, …; '' when none). */
  lang: string;
  /** The file named by a `<!-- file: <path> -->` line just before the fence, if any. */
  file?: string;
  /** The block's text, ending with a newline, as a file holding it would. */
  text: string;
  /** The 1-based line of the opening fence. */
  line: number;
}

const FENCE = /^\s*```\s*([\w-]*)\s*$/;
const MARKER = /^<!--\s*file:\s*(\S+)\s*-->$/;

/** The fenced code blocks of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let previous = '';
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) {
      if (lines[i]!.trim() !== '') previous = lines[i]!.trim();
      continue;
    }
    const line = i + 1;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const file = MARKER.exec(previous)?.[1];
    blocks.push({ lang: open[1]!, ...(file ? { file } : {}), text: `${body.join('\n')}\n`, line });
    previous = '';
  }
  return blocks;
}

/** The text of `markdown` outside its fenced code blocks and inline code spans. */
export function prose(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line) || (inFence && /^\s*```\s*$/.test(line))) {
      inFence = !inFence;
      continue;
    }
    if (!inFence) out.push(line.replace(/`[^`]*`/g, ''));
  }
  return out.join('\n');
}

/** The anchors GitHub gives the headings of `markdown` (`## Quick start` → `quick-start`). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) result.add(slug(heading[1]!, seen));
  }
  return result;
}

function slug(text: string, seen: Map<string, number>): string {
  const base = text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}

/** The Markdown links `[text](target)` of `markdown` outside code, with their line. */
export function links(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let inFence = false;
  markdown.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) inFence = !inFence;
    if (inFence) return;
    const text = line.replace(/`[^`]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      found.push({ target: match[1]!, line: index + 1 });
    }
  });
  return found;
}

/** The text of a file of the repository, by its path from the root. */
export function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}
