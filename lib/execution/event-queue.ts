/**
 * An unbounded async queue: `push` never waits, `next` waits for an item or for `close`, after
 * which it resolves `undefined`.
 */
export class EventQueue<T> {
  private readonly items: T[] = [];
  private waiter?: (item: T | undefined) => void;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter(item);
    } else {
      this.items.push(item);
    }
  }

  get size(): number {
    return this.items.length;
  }

  next(): Promise<T | undefined> {
    if (this.items.length > 0) return Promise.resolve(this.items.shift());
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  close(): void {
    this.closed = true;
    this.items.length = 0;
    this.waiter?.(undefined);
    this.waiter = undefined;
  }
}
