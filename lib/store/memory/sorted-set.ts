/** A score bound of a range: `-inf`, `+inf`, `(n` (exclusive) or `n`. */
export interface ScoreBound {
  value: number;
  exclusive: boolean;
}

export function parseScoreBound(text: string): ScoreBound {
  const exclusive = text.startsWith('(');
  const body = exclusive ? text.slice(1) : text;
  const value =
    body === '-inf' ? -Infinity : body === '+inf' || body === 'inf' ? Infinity : Number(body);
  if (Number.isNaN(value)) throw new Error('ERR min or max is not a float');
  return { value, exclusive };
}

function above(score: number, min: ScoreBound): boolean {
  return min.exclusive ? score > min.value : score >= min.value;
}

function below(score: number, max: ScoreBound): boolean {
  return max.exclusive ? score < max.value : score <= max.value;
}

/** Members ordered by (score, member), as a Redis sorted set orders them. */
export class SortedSet {
  private readonly scores = new Map<string, number>();
  private readonly order: string[] = [];

  get size(): number {
    return this.scores.size;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  private compare(member: string, score: number, other: string): number {
    const otherScore = this.scores.get(other)!;
    if (score !== otherScore) return score < otherScore ? -1 : 1;
    return member < other ? -1 : member > other ? 1 : 0;
  }

  /** Index of the first member not ordered before (score, member). */
  private search(member: string, score: number): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(member, score, this.order[mid]) > 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Index of the first member whose score is inside `min`. */
  private firstFrom(min: ScoreBound): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (!above(this.scores.get(this.order[mid])!, min)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Returns whether the member is new. */
  add(member: string, score: number): boolean {
    const old = this.scores.get(member);
    if (old !== undefined) {
      if (old === score) return false;
      this.order.splice(this.search(member, old), 1);
    }
    this.scores.set(member, score);
    this.order.splice(this.search(member, score), 0, member);
    return old === undefined;
  }

  remove(member: string): boolean {
    const old = this.scores.get(member);
    if (old === undefined) return false;
    this.order.splice(this.search(member, old), 1);
    this.scores.delete(member);
    return true;
  }

  /** Members by rank, `stop` inclusive; negative ranks count from the end. */
  range(start: number, stop: number): [string, number][] {
    const n = this.order.length;
    const from = Math.max(0, start < 0 ? n + start : start);
    const to = Math.min(n - 1, stop < 0 ? n + stop : stop);
    const out: [string, number][] = [];
    for (let i = from; i <= to; i++) out.push([this.order[i], this.scores.get(this.order[i])!]);
    return out;
  }

  rangeByScore(min: ScoreBound, max: ScoreBound, offset = 0, count = Infinity): [string, number][] {
    const out: [string, number][] = [];
    let skip = offset;
    for (let i = this.firstFrom(min); i < this.order.length && out.length < count; i++) {
      const score = this.scores.get(this.order[i])!;
      if (!below(score, max)) break;
      if (skip > 0) {
        skip--;
        continue;
      }
      out.push([this.order[i], score]);
    }
    return out;
  }

  countByScore(min: ScoreBound, max: ScoreBound): number {
    return this.rangeByScore(min, max).length;
  }

  removeByScore(min: ScoreBound, max: ScoreBound): number {
    const doomed = this.rangeByScore(min, max);
    for (const [member] of doomed) this.remove(member);
    return doomed.length;
  }
}
