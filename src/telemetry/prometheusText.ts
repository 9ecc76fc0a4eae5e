/**
 * The Prometheus text exposition format (version 0.0.4, as `/metrics` and `promtool` write it): one
 * sample a line, `name{label="value",...} value [timestamp]`, with `# HELP` and `# TYPE` comments
 * and blank lines skipped. Label values escape `\\`, `\"` and `\n`; values are Go floats (`+Inf`,
 * `-Inf`, `NaN` included). Source: prometheus/docs, content/docs/instrumenting/exposition_formats.md.
 */
import { describeValue } from '../policy/schema/describeValue.js';
import { ProblemList } from './TelemetryInputError.js';

/** One sample of a metric: its name, labels and value, and where it was read (`:12` a line, or a JSON path). */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  where: string;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** A sample value as the format writes it (Go's ParseFloat, plus the spellings of infinity), or undefined. */
export function parseSampleValue(text: string): number | undefined {
  if (/^[+]?Inf$/i.test(text)) return Infinity;
  if (/^-Inf$/i.test(text)) return -Infinity;
  if (/^NaN$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** Reads the `{...}` label set at the start of `rest`; returns the labels and what follows, or a reason. */
function readLabels(rest: string): { labels: Record<string, string>; rest: string } | string {
  // No prototype: a label may be named "constructor" or "__proto__".
  const labels = Object.create(null) as Record<string, string>;
  let s = rest.slice(1);
  for (;;) {
    s = s.trimStart();
    if (s.startsWith('}')) return { labels, rest: s.slice(1) };
    const name = LABEL_NAME.exec(s)?.[0];
    if (name === undefined) return 'a label name (a letter or "_", then letters, digits and "_") or "}" was expected';
    s = s.slice(name.length).trimStart();
    if (!s.startsWith('=')) return `"=" was expected after the label name ${name}`;
    s = s.slice(1).trimStart();
    if (!s.startsWith('"')) return `the value of label ${name} must be in double quotes`;
    let value = '';
    let i = 1;
    for (; i < s.length && s[i] !== '"'; i++) {
      if (s[i] === '\\') {
        const next = s[++i];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else return `the value of label ${name} has an unknown escape (only \\\\, \\" and \\n)`;
      } else value += s[i];
    }
    if (i >= s.length) return `the value of label ${name} is not closed by a double quote`;
    if (name in labels) return `the label ${name} is given twice`;
    labels[name] = value;
    s = s.slice(i + 1).trimStart();
    if (s.startsWith(',')) s = s.slice(1);
    else if (!s.startsWith('}')) return `"," or "}" was expected after the value of label ${name}`;
  }
}

/**
 * The samples of a text exposition (`file` names it in messages), or a TelemetryInputError naming
 * each bad line by its number, the rule, and the line as quoted by `describeValue`.
 */
export function parsePrometheusText(text: string, file: string): Sample[] {
  const problems = new ProblemList(file);
  const out: Sample[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `:${index + 1}:`;
    const bad = (rule: string) => problems.add(where, `${rule} (got ${describeValue(raw)})`);
    const name = NAME.exec(line)?.[0];
    if (name === undefined) return bad('a sample must start with a metric name (a letter, "_" or ":", then letters, digits, "_" and ":")');
    let rest = line.slice(name.length);
    let labels = Object.create(null) as Record<string, string>;
    if (rest.trimStart().startsWith('{')) {
      const read = readLabels(rest.trimStart());
      if (typeof read === 'string') return bad(read);
      labels = read.labels;
      rest = read.rest;
    }
    const fields = rest.trim().split(/\s+/);
    if (fields.length < 1 || fields.length > 2 || fields[0] === '') return bad('a sample is a name, optional labels, a value and an optional timestamp');
    const value = parseSampleValue(fields[0] as string);
    if (value === undefined) return bad(`the value must be a number, +Inf, -Inf or NaN`);
    if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) return bad('the timestamp must be an integer (milliseconds)');
    out.push({ name, labels, value, where });
  });
  problems.done();
  return out;
}
