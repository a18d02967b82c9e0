import { toast } from './dom.js';

/** The JSON API, addressed relative to the page (see `pageBase` on the server). */
const API = `${document.body.dataset.base ?? './'}api/`;

/** The error message of an answer that is not ok. */
function messageOf(data: unknown, response: Response): string {
  const message = (data as { message?: unknown } | null)?.message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' && message
    ? message
    : `${response.status} ${response.statusText}`;
}

/** An answer that is not ok: the server's message and the HTTP status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** GET `path` under the API; rejects with the server's message (an `ApiError`). */
export async function get<T>(path: string): Promise<T> {
  const response = await fetch(API + path, {
    headers: { accept: 'application/json' },
    cache: 'no-store',
  });
  if (!response.ok) {
    const data: unknown = await response.json().catch(() => null);
    throw new ApiError(messageOf(data, response), response.status);
  }
  return (await response.json()) as T;
}

let afterAction: () => void = () => undefined;

/** What to do after every action (the page refreshes). */
export function onAction(handler: () => void): void {
  afterAction = handler;
}

/**
 * POST `payload` to the action `path`, after `question` is confirmed when given. Resolves to
 * the answer, or null when refused, failed (both said in a toast) or not confirmed.
 */
export async function act<T = Record<string, unknown>>(
  path: string,
  payload: unknown,
  question?: string | null,
): Promise<T | null> {
  if (question && !window.confirm(question)) return null;
  try {
    const response = await fetch(API + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(payload),
    });
    const data: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const denied = response.status === 401 || response.status === 403;
      toast(`${denied ? 'Not allowed: ' : 'Failed: '}${messageOf(data, response)}`, true);
      return null;
    }
    return (data ?? {}) as T;
  } catch (error) {
    toast(`Failed: ${(error as Error).message}`, true);
    return null;
  } finally {
    afterAction();
  }
}
