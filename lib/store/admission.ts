/**
 * The admission rules of one message as the claim script reads them (includes/admission.lua):
 * checked in order; `k` is the rule's key under the docket's prefix (the store adds the
 * prefix). Short field names keep the JSON small: it travels with every claim and finish.
 */
export type AdmissionRule =
  /** First start within `w` ms wins; other keys are dropped. */
  | { t: 'cooldown'; k: string; w: number }
  /** One start per burst, `s` ms after the last add. */
  | { t: 'debounce'; k: string; s: number }
  /** At most `l` starts per sliding `p` ms; the excess is deferred, or dropped when `d`. */
  | { t: 'rate'; k: string; l: number; p: number; d: boolean }
  /** At most `m` running at once; a slot not renewed for `s` ms is taken back. */
  | { t: 'conc'; k: string; m: number; s: number };

/** The JSON the scripts read ('' for no rules). */
export function encodeAdmission(rules: readonly AdmissionRule[]): string {
  return rules.length === 0 ? '' : JSON.stringify(rules);
}
