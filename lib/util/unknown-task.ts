/**
 * What the CLI and the dashboard say when Redis has no record of `key`: `where` names the
 * docket (`docket 'orders'`) when the context does not.
 */
export function unknownTask(key: string, where?: string): string {
  return `no task ${key}${where ? ` in ${where}` : ''} (never added here, or its record expired)`;
}
