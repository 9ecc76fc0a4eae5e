import type { VlSpec } from '../types.js';

/** The channels that tell marks apart by a data field, each of which a reader needs a legend for, and how a caption names them. */
export const LEGEND_CHANNELS: Readonly<Record<string, string>> = {
  color: 'colour',
  fill: 'colour',
  stroke: 'colour',
  shape: 'shape',
  strokeDash: 'dash pattern',
  size: 'size',
};

/** One channel of a chart that encodes a field: which, the field, its legend's title, and whether the legend is switched off. */
export interface EncodedChannel {
  channel: string;
  field: string;
  title: string;
  legend: boolean;
}

/** The views of a spec, depth first: itself, its layers and its concatenated views. */
function views(spec: VlSpec): VlSpec[] {
  const children = ['layer', 'vconcat', 'hconcat', 'concat'].flatMap((k) => (Array.isArray(spec[k]) ? (spec[k] as VlSpec[]) : []));
  return [spec, ...children.flatMap(views)];
}

/**
 * The channels of a chart that encode a field through a scale (colour, shape, dash pattern...),
 * once per channel and title: those a reader can only decode with a legend. A channel whose
 * colours come straight from the data (`scale: null`, a band in its line's colour) encodes
 * nothing new and is left out.
 */
export function encodedChannels(spec: VlSpec): EncodedChannel[] {
  const out: EncodedChannel[] = [];
  for (const v of views(spec)) {
    const enc = v.encoding as Record<string, Record<string, unknown> | undefined> | undefined;
    for (const [channel, def] of Object.entries(enc ?? {})) {
      if (!(channel in LEGEND_CHANNELS) || !def || typeof def.field !== 'string' || def.scale === null) continue;
      const title = typeof def.title === 'string' ? def.title : def.field;
      if (out.some((c) => c.channel === channel && c.title === title)) continue;
      out.push({ channel, field: def.field, title, legend: def.legend !== null });
    }
  }
  return out;
}

/** Whether a chart draws dashed lines: a dash-pattern encoding, or a mark dashed by itself (a frontier, a rule). */
export function drawsDashes(spec: VlSpec): boolean {
  return views(spec).some((v) => {
    const mark = v.mark as Record<string, unknown> | undefined;
    const enc = v.encoding as Record<string, unknown> | undefined;
    return (typeof mark === 'object' && mark !== null && Array.isArray(mark.strokeDash)) || enc?.strokeDash !== undefined;
  });
}

/** The words of a caption that name an encoding (`dash`, `dashed`, `shape`), each with whether the chart draws it. */
const CAPTION_ENCODINGS: ReadonlyArray<{ words: RegExp; name: string; drawn: (spec: VlSpec) => boolean }> = [
  { words: /\bdash(ed|es| pattern)?\b/i, name: 'dashes', drawn: drawsDashes },
  { words: /\bshapes?\b/i, name: 'shapes', drawn: (spec) => encodedChannels(spec).some((c) => c.channel === 'shape') },
];

/** What a caption says the chart draws that it does not (`dashes`, `shapes`): [] when the caption names only encodings drawn. */
export function captionMismatches(caption: string, spec: VlSpec): string[] {
  return CAPTION_ENCODINGS.filter((e) => e.words.test(caption) && !e.drawn(spec)).map((e) => e.name);
}

/**
 * What tells a chart's lines (or points) apart, from its encodings, for its caption: `variant
 * (colour)`, `variant (colour) and spike rate (dash pattern)`; '' when one series is drawn. A
 * title's unit in brackets is left out (the axis or legend gives it).
 */
export function encodingWords(spec: VlSpec): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const c of encodedChannels(spec)) {
    const what = c.title.replace(/\s*\([^)]*\)$/, '').toLowerCase();
    const word = LEGEND_CHANNELS[c.channel] as string;
    // A field drawn in colour and shape at once is named once.
    const key = `${what}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const both = encodedChannels(spec).filter((o) => o.title === c.title && LEGEND_CHANNELS[o.channel] !== word);
    parts.push(`${what} (${[word, ...both.map((o) => LEGEND_CHANNELS[o.channel] as string)].join(' and ')})`);
  }
  return parts.join(' and ');
}
