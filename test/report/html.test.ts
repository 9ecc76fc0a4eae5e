import { describe, expect, it } from 'vitest';
import {
  buildReport,
  escapeHtml,
  flattenForTable,
  inlineScript,
  jsonForScript,
  renderIndexHtml,
  stripSourceMap,
} from '../../src/report/index.js';
import { cell, runInfo, summary, sweepCells } from './helpers.js';

const HOSTILE = '</script><img src=x onerror=alert(1)>';

describe('escaping', () => {
  it('escapes the five HTML special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
  });

  it('JSON for a script element cannot close it, and parses back unchanged', () => {
    const value = { name: HOSTILE, c: '<!-- x -->', amp: 'a & b', ls: 'line\u2028sep\u2029' };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('inlined code loses its source map comment and cannot close its script element', () => {
    expect(stripSourceMap('a();\n//# sourceMappingURL=a.min.js.map\n')).toBe('a();\n');
    expect(stripSourceMap('a();\n//# sourceMappingURL=a.min.js.map')).toBe('a();\n');
    const code = inlineScript('var s = "</script>"; var t = "</SCRIPT >"; var c = "<!--";\n//# sourceMappingURL=x.map');
    expect(code).toBe('var s = "<\\/script>"; var t = "<\\/SCRIPT >"; var c = "<\\!--";\n');
    expect(new Function(`${code}; return [s, t, c];`)()).toEqual(['</script>', '</SCRIPT >', '<!--']);
  });
});

describe('renderReportHtml', () => {
  const shared = { mode: 'shared' as const, base: '../assets/' };
  const cells = sweepCells().map((c) => (c.variant === 'none' ? { ...c, variant: HOSTILE } : c));
  const source = {
    name: 'x',
    description: `Described ${HOSTILE}`,
    variants: { [HOSTILE]: { 'stack.0.policy.backoff.kind': 'none' }, exponential: {}, 'full-jitter': {} },
    report: { finding: `Finding ${HOSTILE}` },
  };
  const built = buildReport(summary(cells, HOSTILE, `Described ${HOSTILE}`), runInfo(source), shared);
  const html = built.html;

  it('shows user text as text: no element is injected and no script element closed early', () => {
    expect(html).not.toContain('<img');
    expect(html).not.toContain('onerror=alert(1)>');
    expect(html.match(/<script\b/g)).toHaveLength(5);
    expect(html.match(/<\/script>/g)).toHaveLength(5);
    expect(html).toContain('<h1 id="experiment-name">&#60;/script&#62;&#60;img src=x onerror=alert(1)&#62;</h1>');
    expect(html).toContain('<title>&#60;/script&#62;&#60;img src=x onerror=alert(1)&#62;: retrystorm report</title>');
    expect(html).toContain('Finding &#60;/script&#62;&#60;img');
  });

  it('embeds the chart specs as JSON that reads back with the exact names', () => {
    const m = /<script type="application\/json" id="retrystorm-charts">([^<]*)<\/script>/.exec(html);
    const charts = JSON.parse(m?.[1] ?? 'null') as Array<{ id: string; spec: unknown }>;
    expect(charts.map((c) => c.id)).toEqual(built.charts.map((c) => c.id));
    expect(JSON.stringify(charts)).toContain(JSON.stringify(HOSTILE).slice(1, -1));
  });

  it('has the header, the parameters, a findings table and a figure with a caption per chart', () => {
    expect(html).toContain('<th scope="row">Seed</th><td>42</td>');
    expect(html).toContain('<th scope="row">retrystorm</th><td>0.1.0</td>');
    expect(html).toContain('<th scope="row">Date</th><td>2025-01-02 03:04 UTC</td>');
    expect(html).toContain('<th scope="row">Run time</th><td>1.23 s</td>');
    expect(html).toContain('<th scope="row">Swept: <code>workload.<wbr>clients</code></th><td>10, 20, 40, 1000</td>');
    expect(html).toContain('<code>stack.<wbr>0.<wbr>policy.<wbr>backoff.<wbr>kind</code> = &#34;none&#34;');
    expect(html).toMatch(/<table class="findings"><tr><th scope="col">Variant<\/th><th scope="col">Writes <span class="unit">\(calls\)<\/span><\/th>/);
    expect(html.match(/<figure class="chart"/g)).toHaveLength(built.charts.length);
    expect(html.match(/<figcaption>[^<]+<\/figcaption>/g)).toHaveLength(built.charts.length);
  });

  it('references the shared bundles by relative path, or inlines them', () => {
    expect(html).toContain('<script src="../assets/vega.min.js"></script>\n<script src="../assets/vega-lite.min.js"></script>\n<script src="../assets/vega-embed.min.js"></script>');
    const inline = buildReport(summary(sweepCells()), runInfo(null), { mode: 'inline', scripts: { vega: 'window.A=1;', vegaLite: 'window.B="</script>";', vegaEmbed: 'window.C=3;\n//# sourceMappingURL=c.map' } }).html;
    expect(inline).toContain('<script>window.A=1;</script>');
    expect(inline).toContain('<script>window.B="<\\/script>";</script>');
    expect(inline).toContain('<script>window.C=3;\n</script>');
    expect(inline).not.toContain('src="../assets');
  });

  it('forbids network access in its content security policy', () => {
    expect(html).toContain("default-src 'none';");
    expect(html).toContain("connect-src 'none'");
  });

  it('lists ignored hints and errored cells in a notice', () => {
    const errored = { ...cell({ metrics: { leafCalls: 1 } }), state: 'errored' as const, errors: [`replication 1: boom ${HOSTILE}`] };
    const r = buildReport(summary([errored]), runInfo({ report: { charts: 3 } }), shared);
    expect(r.warnings).toEqual(['report hint ignored: report.charts must be a list (got 3)']);
    expect(r.html).toContain('<li>report hint ignored: report.charts must be a list (got 3)</li>');
    expect(r.html).toContain('1 cell had errored replications');
    expect(r.html).toContain('replication 1: boom &#60;/script&#62;&#60;img');
  });

  it('flattens the scenario into dotted paths with compact distributions', () => {
    expect(flattenForTable({ a: { serviceMs: { dist: 'exponential', mean: 10 }, retryOn: ['timeout', '503'] }, stack: [{ name: 'x' }], capacity: [] })).toEqual([
      ['a.serviceMs', 'exponential(mean 10)'],
      ['a.retryOn', 'timeout, 503'],
      ['stack.0.name', 'x'],
      ['capacity', ''],
    ]);
  });

  it('shows an empirical distribution with its lists, a long one cut to its first entries and its length', () => {
    const values = Array.from({ length: 500 }, (_, i) => i + 1);
    expect(
      flattenForTable({
        serviceMs: { dist: 'histogram', le: [5, 10, '+Inf'], counts: [3, 7, 9], min: 0, tail: 'at-bound' },
        thinkMs: { dist: 'samples', values, interpolate: false },
      }),
    ).toEqual([
      ['serviceMs', 'histogram(le [5,10,"+Inf"], counts [3,7,9], min 0, tail at-bound)'],
      ['thinkMs', 'samples(values [1,2,3,4,5,6,7,8,9,10,11,... (500 in all)], interpolate false)'],
    ]);
  });
});

describe('renderIndexHtml', () => {
  it('links every report with its finding, escaped', () => {
    const html = renderIndexHtml(
      [
        { name: 'aws', description: 'd', finding: 'Jitter wins.', href: 'aws/index.html', date: null },
        { name: HOSTILE, description: HOSTILE, finding: HOSTILE, href: 'x y/index.html', date: '2025-01-02T03:04:05Z' },
      ],
      '0.1.0',
    );
    expect(html).toContain('<a href="aws/index.html">aws</a></th><td>Jitter wins.');
    expect(html).toContain('<a href="x%20y/index.html">&#60;/script&#62;&#60;img src=x onerror=alert(1)&#62;</a>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
  });
});
