/** The part of `process` that signal handling uses (injected so tests can drive it). */
export interface SignalSource {
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  off(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

/**
 * Ctrl-C and SIGTERM (which batch schedulers send shortly before they kill): the first one calls the
 * handler installed by {@link InterruptHandlers.install} (the run stops within a second and what
 * finished is kept); any later one, handler or not, calls `exitNow(130)` at once. Every result file
 * is written synchronously, so no write is ever half done when a signal is handled.
 */
export class InterruptHandlers {
  private signals = 0;
  private handler: (() => void) | null = null;

  constructor(
    private readonly source: SignalSource,
    private readonly exitNow: (code: number) => void,
    private readonly say: (text: string) => void,
  ) {}

  /** Route the first signal to `handler` until the returned function is called. */
  install(handler: () => void): () => void {
    this.handler = handler;
    const on = () => this.receive();
    this.source.on('SIGINT', on);
    this.source.on('SIGTERM', on);
    return () => {
      if (this.handler === handler) this.handler = null;
      this.source.off('SIGINT', on);
      this.source.off('SIGTERM', on);
    };
  }

  private receive(): void {
    this.signals++;
    if (this.signals > 1) {
      this.say('interrupted again: stopping now\n');
      this.exitNow(130);
      return;
    }
    this.handler?.();
  }
}
