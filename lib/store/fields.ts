/** A flat field/value list (a hash or a stream entry as Redis gives it) as a record. */
export function fieldsToRecord(
  list: readonly unknown[] | null | undefined,
): Record<string, string> {
  const record: Record<string, string> = {};
  if (!Array.isArray(list)) return record;
  for (let i = 0; i + 1 < list.length; i += 2) {
    const field = list[i];
    const value = list[i + 1];
    if (typeof field === 'string' && typeof value === 'string') record[field] = value;
  }
  return record;
}

/** A number field, or undefined when absent or not a finite number. */
export function numberField(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}
