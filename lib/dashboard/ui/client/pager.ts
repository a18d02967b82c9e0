import type { PageView } from '../../dashboard-views.interface.js';
import { $ } from './dom.js';

/** The size of a page of a list. */
const LIMIT = 50;

/**
 * The filter form and the pager of a list (`#<name>-filter`, `#<name>-pager`): it builds the
 * list's query (the form's fields, `offset`, `limit`) and says which rows a page shows. A
 * change of the filter goes back to the first page.
 */
export class ListControl {
  private offset = 0;
  private total = 0;
  private typing: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly name: string,
    private readonly changed: () => void,
  ) {
    const form = $<HTMLFormElement>(`#${name}-filter`);
    const restart = () => {
      this.offset = 0;
      this.changed();
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      clearTimeout(this.typing);
      restart();
    });
    // a select's change; the search field's own change (at Enter, or when it loses the focus)
    // is the submit's or the typing's, which restart already
    form.addEventListener('change', (event) => {
      if (event.target instanceof HTMLSelectElement) restart();
    });
    // while typing, search when the typing pauses
    form.addEventListener('input', () => {
      clearTimeout(this.typing);
      this.typing = setTimeout(restart, 300);
    });
    for (const button of $(`#${name}-pager`).querySelectorAll<HTMLButtonElement>('button')) {
      button.addEventListener('click', () => this.go(button.dataset.page ?? ''));
    }
  }

  private go(where: string): void {
    const last = Math.max(0, Math.floor((this.total - 1) / LIMIT) * LIMIT);
    const to = {
      first: 0,
      prev: Math.max(0, this.offset - LIMIT),
      next: Math.min(last, this.offset + LIMIT),
      last,
    }[where];
    if (to === undefined || to === this.offset) return;
    this.offset = to;
    this.changed();
  }

  /** How many items pass the filter, as the last page said. */
  get count(): number {
    return this.total;
  }

  /** The filter's fields that are given (search, task, state). */
  filter(): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const [name, value] of new FormData($<HTMLFormElement>(`#${this.name}-filter`))) {
      if (typeof value === 'string' && value.trim() !== '') fields[name] = value.trim();
    }
    return fields;
  }

  /** The query of the current page: the filter's fields, `offset` and `limit`. */
  query(): string {
    const params = new URLSearchParams(this.filter());
    params.set('offset', String(this.offset));
    params.set('limit', String(LIMIT));
    return params.toString();
  }

  /** Show which rows of how many the page holds, and which moves are possible. */
  render(page: PageView<unknown>): void {
    this.total = page.total;
    // the list shrank under the page (tasks ran): the next read shows its last page
    if (page.items.length === 0 && page.offset > 0 && page.total > 0) {
      this.offset = Math.floor((page.total - 1) / LIMIT) * LIMIT;
    }
    const pager = $(`#${this.name}-pager`);
    const first = page.items.length ? page.offset + 1 : 0;
    pager.querySelector('.range')!.textContent =
      `${first}–${page.offset + page.items.length} of ${page.total}`;
    pager.hidden = page.total === 0;
    const at = (name: string) => pager.querySelector<HTMLButtonElement>(`[data-page="${name}"]`)!;
    at('first').disabled = at('prev').disabled = page.offset === 0;
    at('next').disabled = at('last').disabled = page.offset + page.items.length >= page.total;
  }

  /**
   * Add the task names the docket knows to the task filter's choices. A choice stays while the
   * page is open: its tasks may still be listed (dead letters, history) when no live worker
   * runs it any more, or between a worker's restarts.
   */
  tasks(names: string[]): void {
    const select = document.querySelector<HTMLSelectElement>(`#${this.name}-filter [name="task"]`);
    if (!select) return;
    // the chosen task is one of the choices already, so it stays among them
    const current = [...select.options].slice(1).map((o) => o.value);
    const wanted = [...new Set([...current, ...names].filter(Boolean))].sort();
    if (current.join('\n') === wanted.join('\n')) return;
    const chosen = select.value;
    select.replaceChildren(select.options[0], ...wanted.map((name) => new Option(name, name)));
    select.value = chosen;
  }
}
