import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the test server does with one request. */
export type Answer =
  | { status: number; headers?: Record<string, string>; delayMs?: number; body?: string }
  /** Close the connection without answering (socket.destroy()). */
  | { drop: true; delayMs?: number };

/** A request the server received. */
export interface Arrival {
  method: string;
  path: string;
  atMs: number;
  headers: IncomingHttpHeaders;
}

/**
 * A real HTTP server on 127.0.0.1 (an ephemeral port) that answers each path from a script: the
 * i-th request of a path gets its i-th answer, the last one repeating. Records every arrival.
 */
export class TestServer {
  readonly arrivals: Arrival[] = [];
  private readonly scripts = new Map<string, Answer[]>();
  private readonly counts = new Map<string, number>();
  private server: Server | undefined;
  private port = 0;

  /** Answers for `path`, in order (the last repeats). */
  script(path: string, ...answers: Answer[]): string {
    this.scripts.set(path, answers);
    this.counts.set(path, 0);
    return `${this.url}${path}`;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Arrivals at one path. */
  at(path: string): Arrival[] {
    return this.arrivals.filter((a) => a.path === path);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] as string;
      this.arrivals.push({ method: req.method ?? 'GET', path, atMs: performance.now(), headers: req.headers });
      const answers = this.scripts.get(path) ?? [{ status: 404 }];
      const i = this.counts.get(path) ?? 0;
      this.counts.set(path, i + 1);
      const a = answers[Math.min(i, answers.length - 1)] as Answer;
      req.resume();
      const act = (): void => {
        if ('drop' in a) {
          req.socket.destroy();
          return;
        }
        if (res.destroyed) return;
        // No keep-alive: a reused socket the server is closing would fail a request for reasons of its own.
        res.writeHead(a.status, { 'content-type': 'text/plain', connection: 'close', ...a.headers });
        res.end(a.body ?? String(a.status));
      };
      if (a.delayMs) setTimeout(act, a.delayMs);
      else act();
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
