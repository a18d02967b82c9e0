import type { DeadLetter } from '../public-api.js';
import { previewArgs } from './preview.js';

/**
 * Which dead letters pass a list's filter: its task, and a search that keeps a key starting
 * with the text or a task name, error or argument preview (with `showArguments`) holding it,
 * case aside.
 */
export function deadLetterFilter(
  filter: { task?: string; q?: string },
  showArguments: boolean,
): (letter: DeadLetter) => boolean {
  const search = filter.q?.toLowerCase();
  return (letter) => {
    if (filter.task !== undefined && letter.taskName !== filter.task) return false;
    if (search === undefined) return true;
    return (
      letter.key.toLowerCase().startsWith(search) ||
      letter.taskName.toLowerCase().includes(search) ||
      letter.error.toLowerCase().includes(search) ||
      (showArguments && previewArgs(letter.args).toLowerCase().includes(search))
    );
  };
}
