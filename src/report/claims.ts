import { difference, noPracticalDifference, practicalDifference, verdict, type Difference } from './compare.js';
import { formatNumber, formatParams } from './format.js';
import { metricInfo } from './metrics.js';
import type { ClaimHint } from './reportHints.js';
import { cellLabel, cellMatches, metricMean, sameValue, type ReportModel, type ReportPart } from './reportModel.js';
import type { ReportCell } from './types.js';

/** What a run's own data says of a claim. */
export type ClaimStatus = 'supported' | 'contradicted' | 'not shown';

/** One compared pair of cells of a claim and the difference of the metric between them. */
export interface ClaimEvidence {
  /** Where the pair was compared (its swept parameters), '' for cells without any. */
  where: string;
  a: string;
  b: string;
  difference: Difference | null;
  /** The pair's own reading: supports, contradicts, or cannot tell. */
  status: ClaimStatus;
}

/** A claim as checked against the data of one part. */
export interface ClaimResult {
  claim: ClaimHint;
  part: string;
  /** The claim as a sentence (its `text`, or one made from its fields). */
  text: string;
  status: ClaimStatus;
  /** Why, in a few words (`beyond noise at 12 of 12 points`, `no cell matches`...). */
  reason: string;
  evidence: ClaimEvidence[];
  /**
   * The status as the report and the index print it: the status itself, except that a claim a
   * quick run cannot show reads `not decided at quick size (n runs)`, n the fewest replications of
   * the cells it compares ({@link QUICK_UNDECIDED}).
   */
  shown: string;
}

/** The words of a claim a quick run cannot show: the quick size is why, with its number of runs. */
export const QUICK_UNDECIDED = 'not decided at quick size';

/** `not decided at quick size (2 runs)`. */
export function quickUndecidedText(runs: number): string {
  return `${QUICK_UNDECIDED} (${runs} ${runs === 1 ? 'run' : 'runs'})`;
}

/** Why a claim is not shown when every cell it compares has a single replication. */
export const ONE_REPLICATION = 'one replication per cell: no interval to tell';

const RELATION_WORDS: Record<ClaimHint['relation'], string> = { less: 'lower than', greater: 'higher than', similar: 'similar to' };

function describeSelector(sel: { variant?: string; params?: Record<string, unknown> }): string {
  const p = sel.params ? formatParams(sel.params) : '';
  return [sel.variant, p ? `at ${p}` : ''].filter((s) => s).join(' ') || 'every cell';
}

/** The claim as a sentence: its own text, or `Writes of full-jitter is lower than exponential (at ...)`. */
export function claimText(claim: ClaimHint): string {
  if (claim.text) return claim.text;
  const title = metricInfo(claim.metric).title;
  const [a, b] = claim.variants ?? (claim.cells ? claim.cells.map(describeSelector) : ['?', '?']);
  const at = claim.params ? ` at ${formatParams(claim.params)}` : '';
  const tol = claim.tolerance !== undefined ? ` (within ${formatNumber(claim.tolerance * 100)}%)` : '';
  return `${title}: ${a} ${RELATION_WORDS[claim.relation]} ${b}${tol}${at}`;
}

/** The pairs of cells a claim compares in a part: variant a against variant b at every sweep point (matching `params`), or the two selected cells. */
function pairsOf(claim: ClaimHint, part: ReportPart): Array<[ReportCell, ReportCell]> {
  const inPart = (sel: { variant?: string; params?: Record<string, unknown> }) => part.cells.filter((c) => cellMatches(c, { ...sel, part: part.name }));
  if (claim.variants) {
    const [va, vb] = claim.variants;
    const as = inPart({ variant: va, ...(claim.params ? { params: claim.params } : {}) });
    return as.flatMap((a) => {
      const b = part.cells.find((c) => c.variant === vb && sameValue(c.params, a.params));
      return b ? [[a, b] as [ReportCell, ReportCell]] : [];
    });
  }
  if (claim.cells) {
    const [sa, sb] = claim.cells;
    const as = inPart({ ...sa, ...(claim.params ? { params: { ...claim.params, ...(sa.params ?? {}) } } : {}) });
    const bs = inPart({ ...sb, ...(claim.params ? { params: { ...claim.params, ...(sb.params ?? {}) } } : {}) });
    if (bs.length === 1) return as.map((a) => [a, bs[0] as ReportCell]);
    return as.flatMap((a) => {
      const b = bs.find((c) => sameValue(c.params, a.params));
      return b ? [[a, b] as [ReportCell, ReportCell]] : [];
    });
  }
  return [];
}

/** One pair's reading of a claim from the difference a - b (`practical`: the metric's practical threshold, {@link verdict}). */
function pairStatus(claim: ClaimHint, d: Difference | null, scale: number, practical: number): ClaimStatus {
  if (!d || !d.ci95) return 'not shown';
  if (claim.relation === 'similar') {
    if (claim.tolerance === undefined) {
      const v = verdict(d, scale, practical);
      return noPracticalDifference(v) ? 'supported' : v === 'unknown' ? 'not shown' : 'contradicted';
    }
    const band = claim.tolerance * Math.abs(scale) + 1e-9 * Math.abs(scale);
    if (d.ci95[0] >= -band && d.ci95[1] <= band) return 'supported';
    if (d.ci95[0] > band || d.ci95[1] < -band) return 'contradicted';
    return 'not shown';
  }
  const v = verdict(d, scale, practical);
  const want = claim.relation === 'less' ? 'lower' : 'higher';
  if (v === want) return 'supported';
  if (v === 'lower' || v === 'higher') return 'contradicted';
  return 'not shown';
}

/**
 * Check a claim against one part's data. Each compared pair reads the paired 95% interval of the
 * difference (cells of one sweep point share their common random numbers; others are compared as
 * independent means) by the report's one rule ({@link verdict}): `less` holds where the interval
 * lies below 0 and the difference is at least the metric's practical threshold (5% of the second
 * cell's mean unless the hints say otherwise), `greater` likewise above, `similar` where there is no
 * practical difference (or, with a `tolerance`, where the interval lies within ± tolerance x the
 * second cell's mean). A difference beyond noise but under the threshold neither supports nor
 * contradicts `less` or `greater`.
 * The claim is supported when every pair supports it, contradicted when any pair contradicts it,
 * and otherwise not shown (within noise, one replication, or no matching cells). In a quick run
 * (`quick`) a claim not shown reads `not decided at quick size (n runs)`.
 */
export function evaluateClaim(claim: ClaimHint, part: ReportPart, quick = false): ClaimResult {
  const pairs = pairsOf(claim, part);
  const cells = pairs.length > 0 ? pairs.flat() : part.cells;
  const runs = cells.length > 0 ? Math.min(...cells.map((c) => c.replications)) : 0;
  const shown = (status: ClaimStatus) => (quick && status === 'not shown' ? quickUndecidedText(runs) : status);
  const evidence: ClaimEvidence[] = pairs.map(([a, b]) => {
    const d = difference(a, b, claim.metric);
    return {
      where: formatParams(a.params === b.params || sameValue(a.params, b.params) ? a.params : {}),
      a: cellLabel(a, [a, b]),
      b: cellLabel(b, [a, b]),
      difference: d,
      status: pairStatus(claim, d, metricMean(b, claim.metric) ?? 0, practicalDifference(part.hints, claim.metric)),
    };
  });
  const text = claimText(claim);
  if (evidence.length === 0) return { claim, part: part.name, text, status: 'not shown', reason: 'no cells of this run match it', evidence, shown: shown('not shown') };
  const count = (s: ClaimStatus) => evidence.filter((e) => e.status === s).length;
  const n = evidence.length;
  const of = (k: number) => `${k} of ${n} ${n === 1 ? 'point' : 'points'} compared`;
  if (count('contradicted') > 0) return { claim, part: part.name, text, status: 'contradicted', reason: `contradicted at ${of(count('contradicted'))}`, evidence, shown: shown('contradicted') };
  if (count('supported') === n) {
    const where = n === 1 ? 'at the one point compared' : `at all ${n} points compared`;
    const how =
      claim.relation !== 'similar'
        ? `holds beyond noise ${where}`
        : claim.tolerance !== undefined
          ? `holds ${where}: the interval of the difference lies within ± ${formatNumber(claim.tolerance * 100)}%`
          : evidence.every((e) => e.difference?.ci95 && e.difference.ci95[0] <= 0 && e.difference.ci95[1] >= 0)
            ? `holds ${where}: the interval of the difference includes 0`
            : `holds ${where}: no practical difference (within noise, or under the practical threshold)`;
    return { claim, part: part.name, text, status: 'supported', reason: how, evidence, shown: shown('supported') };
  }
  const noInterval = evidence.filter((e) => !e.difference?.ci95).length;
  return {
    claim,
    part: part.name,
    text,
    status: 'not shown',
    reason: noInterval === n ? ONE_REPLICATION : `no practical difference at ${of(n - count('supported'))}`,
    evidence,
    shown: shown('not shown'),
  };
}

/**
 * Every claim of a report, checked: each part's own claims in that part; a claim of the
 * experiment's `report` in its `part`, or else in every part whose cells it matches (in the first
 * part when it matches none, to say it is not shown).
 */
export function evaluateAllClaims(model: ReportModel): ClaimResult[] {
  const out: ClaimResult[] = [];
  const quick = model.run.quick;
  for (const claim of model.hints.claims ?? []) {
    const parts = claim.part !== undefined ? model.parts.filter((p) => p.name === claim.part) : model.parts;
    const results = parts.map((p) => evaluateClaim(claim, p, quick));
    const matched = results.filter((r) => r.evidence.length > 0);
    if (matched.length > 0) out.push(...matched);
    else if (results[0]) out.push(results[0]);
    else out.push({ claim, part: claim.part ?? '', text: claimText(claim), status: 'not shown', reason: `there is no part ${JSON.stringify(claim.part)}`, evidence: [], shown: 'not shown' });
  }
  for (const part of model.parts) {
    for (const claim of part.hints.claims ?? []) out.push(evaluateClaim(claim, part, quick));
  }
  return out;
}
