// What the pages of `tune` and `risk` share: the base of their style and the script that draws
// their charts (the run report's page, renderReport.ts, has its own richer ones).

/** The base style of a search's or an estimate's page; each page appends its own rules. */
export const CHART_PAGE_STYLE = `
body { margin: 0; font: 15px/1.5 "DejaVu Sans", system-ui, sans-serif; color: #1f2328; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { margin: 4px 0 8px; font-size: 28px; overflow-wrap: anywhere; }
h2 { margin: 32px 0 10px; font-size: 21px; border-bottom: 1px solid #d8dee4; }
.finding { font-size: 17px; margin: 6px 0 12px; padding: 8px 12px; background: #eef6ee; border-left: 4px solid #54a24b; }
.description { max-width: 80ch; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
th, td { border: 1px solid #d8dee4; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 22px 0 30px; }
figcaption { color: #59636e; max-width: 80ch; }
footer { margin-top: 40px; color: #59636e; font-size: 13px; }
`;

/**
 * The script that draws each chart of the JSON held by the element `holderId` with vega-embed into
 * `chart-<id>`, keeping its view on the element (the chart checks read it) and saying so in the
 * page when the bundles did not load or a chart could not be drawn.
 */
export function chartBoot(holderId: string): string {
  return `
(function () {
  var charts = JSON.parse(document.getElementById(${JSON.stringify(holderId)}).textContent);
  charts.forEach(function (c) {
    var el = document.getElementById('chart-' + c.id);
    if (typeof vegaEmbed !== 'function') { el.textContent = 'The charts need vega, vega-lite and vega-embed, which did not load.'; return; }
    vegaEmbed(el, c.spec, { mode: 'vega-lite', renderer: 'svg', actions: { export: true, source: false, compiled: false, editor: false } })
      .then(function (result) { el.vegaView = result.view; el.setAttribute('data-rendered', 'true'); })
      .catch(function (e) { el.setAttribute('data-error', String(e && e.message || e)); el.textContent = 'This chart could not be drawn: ' + (e && e.message || e); });
  });
})();
`;
}
