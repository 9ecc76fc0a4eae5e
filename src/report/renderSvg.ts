import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { VlSpec } from './types.js';

/** Warnings and errors vega-lite logged while compiling a spec. */
export interface CompileLog {
  warnings: string[];
  errors: string[];
}

/** Compile a vega-lite spec to vega, recording what the compiler logs instead of printing it. */
export function compileSpec(spec: VlSpec): { vega: vega.Spec; log: CompileLog } {
  const log: CompileLog = { warnings: [], errors: [] };
  let level = 2;
  const logger: vega.LoggerInterface = {
    level(l?: number) {
      if (l === undefined) return level;
      level = l;
      return logger;
    },
    warn(...args: unknown[]) {
      log.warnings.push(args.map(String).join(' '));
      return logger;
    },
    error(...args: unknown[]) {
      log.errors.push(args.map(String).join(' '));
      return logger;
    },
    info() {
      return logger;
    },
    debug() {
      return logger;
    },
  };
  const out = compile(spec as unknown as TopLevelSpec, { logger });
  return { vega: out.spec, log };
}

/**
 * Draw a chart as SVG without a browser: vega-lite compiles it, vega runs it headless (renderer
 * 'none') and writes the scene as SVG. `title` is added above the chart (the HTML page prints it
 * as a heading instead). Text is measured by vega's estimate, so the SVG names fonts it assumes.
 */
export async function chartSvg(spec: VlSpec, title?: string): Promise<string> {
  const withTitle = title ? { ...spec, title: { text: title, anchor: 'start', fontSize: 14 } } : spec;
  const { vega: compiled } = compileSpec(withTitle);
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.Warn });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
