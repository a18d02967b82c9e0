/** `date` as an ISO string, or null when it is not a valid date (a stored value may be garbage). */
export function isoOrNull(date: Date | null | undefined): string | null {
  return date && Number.isFinite(date.getTime()) ? date.toISOString() : null;
}
