/** A response's header-setting surface, as both adapters' middleware see it (Node's ServerResponse). */
interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * The headers a connect-style middleware sets on every response (e.g. helmet's,
 * whose configuration here is static), recorded once by running it against a
 * recording response.
 */
export function headersSetBy(middleware: (req: never, res: never, next: () => void) => void): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
    getHeader: () => undefined,
  };
  middleware({ headers: {}, method: 'GET', url: '/' } as never, recorder as never, () => undefined);
  return headers;
}

/** A middleware that sets recorded headers: one loop instead of re-running the middleware that produced them. */
export function setsHeaders(headers: ReadonlyArray<readonly [string, string]>): (req: unknown, res: HeaderSink, next: () => void) => void {
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
