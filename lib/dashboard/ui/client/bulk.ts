import type { BulkView } from '../../dashboard-views.interface.js';
import { READ_ONLY } from './actions.js';
import { act } from './api.js';
import { $, h, toast } from './dom.js';
import type { ListControl } from './pager.js';

type Action = BulkView['action'];

const DONE: Record<Action, string> = { cancel: 'Cancelled', retry: 'Retried', purge: 'Purged' };

/** The most requests one bulk action over a filter sends (each a bounded piece). */
const MAX_ROUNDS = 1_000;

/**
 * The rows picked in a list (`#<name>`, its toolbar `#<name>-bulk`) and its bulk actions: over
 * the picked rows of the page, or over everything the list's filter matches. The page only
 * asks; the server bounds each request's work and says whether more is left.
 */
export class Selection {
  private readonly picked = new Set<string>();

  constructor(
    private readonly name: string,
    /** What the API calls the picked rows: task `keys` or dead-letter `ids`. */
    private readonly field: 'keys' | 'ids',
    /** One item, several: for the questions. */
    private readonly noun: [string, string],
    private readonly list: ListControl,
  ) {
    $<HTMLInputElement>(`#${name} thead input.pick-all`).addEventListener('change', (event) => {
      const on = (event.target as HTMLInputElement).checked;
      for (const box of this.boxes()) {
        box.checked = on;
        this.toggle(box.value, on);
      }
    });
    for (const button of $(`#${name}-bulk`).querySelectorAll<HTMLButtonElement>('button')) {
      const action = button.dataset.bulk as Action;
      button.addEventListener('click', () =>
        button.dataset.scope === 'picked' ? void this.onPicked(action) : void this.onAll(action),
      );
    }
  }

  private boxes(): HTMLInputElement[] {
    return [...document.querySelectorAll<HTMLInputElement>(`#${this.name} tbody input.pick`)];
  }

  private toggle(id: string, on: boolean): void {
    if (on) this.picked.add(id);
    else this.picked.delete(id);
    this.show();
  }

  /** The cell with a row's checkbox (none on a read-only page). */
  cell(id: string): HTMLTableCellElement | null {
    if (READ_ONLY) return null;
    return h(
      'td',
      { class: 'pick' },
      h('input', {
        type: 'checkbox',
        class: 'pick',
        value: id,
        'aria-label': 'select',
        checked: this.picked.has(id),
        onchange: (event: Event) => this.toggle(id, (event.target as HTMLInputElement).checked),
      }),
    );
  }

  /** After a render: forget picks no longer on the page, and show the counts. */
  rendered(ids: readonly string[]): void {
    const shown = new Set(ids);
    for (const id of this.picked) if (!shown.has(id)) this.picked.delete(id);
    this.show();
  }

  private show(): void {
    const bar = $(`#${this.name}-bulk`);
    bar.querySelector('.picked')!.textContent = `${this.picked.size} selected`;
    for (const button of bar.querySelectorAll<HTMLButtonElement>('button[data-scope="picked"]')) {
      button.disabled = this.picked.size === 0;
    }
    for (const button of bar.querySelectorAll<HTMLButtonElement>('button[data-scope="filter"]')) {
      button.disabled = this.list.count === 0;
    }
    const boxes = this.boxes();
    $<HTMLInputElement>(`#${this.name} thead input.pick-all`).checked =
      boxes.length > 0 && boxes.every((box) => box.checked);
  }

  /** `3 tasks`, or with a word between: `3 selected tasks`. */
  private count(n: number, between = ''): string {
    const noun = n === 1 ? this.noun[0] : this.noun[1];
    return `${n.toLocaleString('en')} ${between ? `${between} ` : ''}${noun}`;
  }

  private question(action: Action, what: string): string {
    const verb = { cancel: 'Cancel', retry: 'Retry', purge: 'Delete' }[action];
    return `${verb} ${what}?${action === 'purge' ? ' This cannot be undone.' : ''}`;
  }

  private async onPicked(action: Action): Promise<void> {
    const ids = [...this.picked];
    if (ids.length === 0) return;
    const question = this.question(action, `the ${this.count(ids.length, 'selected')}`);
    const done = await act<BulkView>('bulk', { action, [this.field]: ids }, question);
    if (!done) return;
    this.picked.clear();
    report(done);
  }

  private async onAll(action: Action): Promise<void> {
    const total = this.list.count;
    const filter = this.list.filter();
    const described = Object.keys(filter).length ? ' that match the filter' : '';
    let question: string | null = this.question(action, `all ${this.count(total)}${described}`);
    const sum: BulkView = { action, touched: 0, skipped: 0, reasons: {}, more: true, cursor: null };
    // one bounded piece per request, until none is left (or as many as were named are done)
    for (let round = 0; sum.more && round < MAX_ROUNDS; round++) {
      const payload = { action, filter, ...(sum.cursor ? { cursor: sum.cursor } : {}) };
      const piece: BulkView | null = await act<BulkView>('bulk', payload, question);
      if (!piece) return round > 0 ? report(sum) : undefined;
      question = null;
      sum.touched += piece.touched;
      sum.skipped += piece.skipped;
      for (const [reason, n] of Object.entries(piece.reasons)) {
        sum.reasons[reason] = (sum.reasons[reason] ?? 0) + n;
      }
      sum.more = piece.more && sum.touched + sum.skipped < total;
      sum.cursor = piece.cursor;
      if (sum.more) toast(`${DONE[action]} ${sum.touched}…`);
    }
    this.picked.clear();
    report(sum);
  }
}

/** Say what a bulk action did: how many it touched, and the skipped ones by reason. */
function report(done: BulkView): void {
  const reasons = Object.entries(done.reasons)
    .map(([reason, n]) => `${reason.replace('_', ' ')}: ${n}`)
    .join(', ');
  toast(
    `${DONE[done.action]} ${done.touched}` +
      (done.skipped ? ` · skipped ${done.skipped} (${reasons})` : '') +
      (done.more ? ' · more left' : ''),
  );
}
