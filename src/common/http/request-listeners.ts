import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts a handler in front of the server's request listeners (the HTTP adapter's):
 * a request it `accepts` is served by `serve` and never reaches the framework;
 * every other request goes on to the listeners as before. Handlers installed one
 * after another are asked last-installed first.
 */
export function serveAheadOfFramework(server: Server, accepts: (req: IncomingMessage) => boolean, serve: RequestListener): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (accepts(req)) {
      serve(req, res);
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
}
