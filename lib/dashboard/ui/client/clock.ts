/** The server's clock as the page sees it: the page's own, moved by the skew the API showed. */
let skew = 0;

/** Set the skew from a time the server took (an ISO string). */
export function syncClock(serverTime: string): void {
  skew = Date.parse(serverTime) - Date.now();
}

/** Now on the server's clock, epoch ms. */
export function now(): number {
  return Date.now() + skew;
}
