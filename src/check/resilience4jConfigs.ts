import { describeName, describeValue, listNames } from '../policy/schema/describeValue.js';
import { isObject, type FieldReader } from './FieldReader.js';
import type { SpringValue } from './springConfig.js';

/**
 * The resilience4j modules a Spring Boot configuration sets under `resilience4j.<module>` (the
 * prefixes of resilience4j-spring-boot2/3's @ConfigurationProperties classes, e.g.
 * RetryProperties `resilience4j.retry`, resilience4j/resilience4j 2.x).
 */
export const RESILIENCE4J_MODULES = ['retry', 'circuitbreaker', 'bulkhead', 'thread-pool-bulkhead', 'timelimiter', 'ratelimiter'] as const;
/** One of {@link RESILIENCE4J_MODULES}. */
export type Resilience4jModule = (typeof RESILIENCE4J_MODULES)[number];

/** The config every instance (and config) not named `default` inherits when it names no baseConfig. */
export const RESILIENCE4J_DEFAULT_CONFIG = 'default';

/** One property of an instance or config: its value and the key it is written under (for messages). */
export interface Resilience4jProperty {
  value: unknown;
  key: string;
}

/** An instance (`instances.<name>`, or the older `backends.<name>`) or a config (`configs.<name>`) of one module. */
export interface Resilience4jBlock {
  module: Resilience4jModule;
  kind: 'instances' | 'configs';
  name: string;
  /** By property name as written after the block's name (`max-attempts`, `maxAttempts`). */
  props: Map<string, Resilience4jProperty>;
}

/** Spring's relaxed binding of a name: `thread-pool-bulkhead`, `threadPoolBulkhead` and `thread_pool_bulkhead` are one. */
export const relaxed = (name: string) => name.replace(/[-_]/g, '').toLowerCase();

/**
 * The instances and configs of every module in a Spring configuration's dotted keys
 * (`resilience4j.<module>.<instances|backends|configs>.<name>.<property>`, or the name alone with
 * an empty value; the segments before the name by Spring's relaxed binding, the name as written). Other keys (`spring.*`,
 * `resilience4j.retry.metrics.*`) are left alone.
 */
export function resilience4jBlocks(values: Map<string, SpringValue>): Resilience4jBlock[] {
  const blocks = new Map<string, Resilience4jBlock>();
  for (const key of values.keys()) {
    const parts = key.split('.');
    // `instances: { a: }` (or `{}`) names an instance with nothing of its own: four segments, no property.
    if (parts.length < 4 || relaxed(parts[0] as string) !== 'resilience4j') continue;
    const value = values.get(key)?.value;
    if (parts.length === 4 && !(value === null || value === '' || (isObject(value) && Object.keys(value).length === 0))) continue;
    const module = RESILIENCE4J_MODULES.find((m) => relaxed(m) === relaxed(parts[1] as string));
    const kindSeg = relaxed(parts[2] as string);
    if (module === undefined || !['instances', 'backends', 'configs'].includes(kindSeg)) continue;
    const kind = kindSeg === 'configs' ? 'configs' : 'instances';
    const name = parts[3] as string;
    const id = `${module}.${kind}.${name}`;
    const block = blocks.get(id) ?? { module, kind, name, props: new Map() };
    blocks.set(id, block);
    if (parts.length > 4) block.props.set(parts.slice(4).join('.'), { value, key });
  }
  return [...blocks.values()];
}

/** A block with what it inherits: its own properties over its base configs', and the chain of bases (nearest first). */
export interface ResolvedBlock {
  /** By relaxed property name (`maxattempts`). */
  props: Map<string, Resilience4jProperty>;
  bases: string[];
}

/**
 * The base configs of a file's blocks, as resilience4j's Common*ConfigurationProperties resolve
 * them (resilience4j/resilience4j, resilience4j-framework-common/.../retry/configuration/
 * CommonRetryConfigurationProperties.java `createRetryConfig`, commit 18052ce, 2.x; the other
 * modules do the same): a block naming `baseConfig` inherits that config of its module (and what
 * that config inherits in turn), its own properties winning; a block naming none inherits
 * `configs.default` unless it is itself named `default`. A baseConfig naming no config is a problem
 * (resilience4j throws ConfigurationNotFoundException), and so is a cycle of baseConfigs
 * (resilience4j recurses without end); each is recorded once in the reader, however many blocks
 * lead to it.
 */
export class Resilience4jBases {
  private readonly configs = new Map<string, Resilience4jBlock>();
  /** Each block's base (null: none, or a problem recorded), worked out once. */
  private readonly baseOfBlock = new Map<Resilience4jBlock, Resilience4jBlock | null>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly blocks: readonly Resilience4jBlock[],
    private readonly r: FieldReader,
  ) {
    for (const b of blocks) if (b.kind === 'configs' && !this.configs.has(`${b.module}.${b.name}`)) this.configs.set(`${b.module}.${b.name}`, b);
  }

  /** Check every block's chain of bases, as resilience4j does for every instance when the application starts (linear in the blocks). */
  checkAll(): void {
    const done = new Set<Resilience4jBlock>();
    for (const block of this.blocks) this.chain(block, done).forEach((b) => done.add(b));
  }

  /** A block's properties with those it inherits. */
  resolve(block: Resilience4jBlock): ResolvedBlock {
    const chain = this.chain(block, new Set());
    const props = new Map<string, Resilience4jProperty>();
    for (const b of [...chain].reverse()) for (const [k, v] of b.props) props.set(relaxed(k), v);
    return { props, bases: chain.slice(1).map((b) => b.name) };
  }

  private fail(key: string, text: string): void {
    if (this.reported.has(`${key} ${text}`)) return;
    this.reported.add(`${key} ${text}`);
    this.r.fail([key], text);
  }

  /** The block and its bases, nearest first, up to a problem or a block in `stop`. */
  private chain(block: Resilience4jBlock, stop: ReadonlySet<Resilience4jBlock>): Resilience4jBlock[] {
    const chain = [block];
    const seen = new Set(chain);
    for (let base = this.baseOf(block); base !== null && !stop.has(base); base = this.baseOf(base)) {
      if (seen.has(base)) {
        this.failCycle(chain.slice(chain.indexOf(base)));
        break;
      }
      chain.push(base);
      seen.add(base);
    }
    return chain;
  }

  /** A cycle told from its first config by name, at that config's baseConfig (so the same whichever block leads into it). */
  private failCycle(cycle: Resilience4jBlock[]): void {
    const first = cycle.reduce((a, b) => (b.name < a.name ? b : a));
    const at = cycle.indexOf(first);
    const ordered = [...cycle.slice(at), ...cycle.slice(0, at), first];
    this.fail(baseConfigOf(first)?.key ?? '', `makes a cycle of base configs (${ordered.map((b) => `configs.${describeName(b.name)}`).join(' -> ')}): resilience4j cannot resolve it`);
  }

  private baseOf(block: Resilience4jBlock): Resilience4jBlock | null {
    const known = this.baseOfBlock.get(block);
    if (known !== undefined) return known;
    const named = baseConfigOf(block);
    const baseName = typeof named?.value === 'string' && named.value.trim() !== '' ? named.value.trim() : undefined;
    let base: Resilience4jBlock | null = null;
    if (named !== undefined && baseName === undefined) this.fail(named.key, `must name a config under resilience4j.${block.module}.configs (got ${this.r.quote(named.value)})`);
    else if (named !== undefined && baseName !== undefined) {
      base = this.configs.get(`${block.module}.${baseName}`) ?? null;
      if (base === null) {
        const names = [...this.configs.values()].filter((c) => c.module === block.module).map((c) => c.name);
        this.fail(named.key, `names the base config ${describeValue(baseName)}, which resilience4j.${block.module}.configs does not have (configs: ${listNames(names) || 'none'})`);
      }
    } else if (block.name !== RESILIENCE4J_DEFAULT_CONFIG) base = this.configs.get(`${block.module}.${RESILIENCE4J_DEFAULT_CONFIG}`) ?? null;
    this.baseOfBlock.set(block, base);
    return base;
  }
}

/** The `baseConfig` property of a block (by relaxed name), if it has one. */
function baseConfigOf(block: Resilience4jBlock): Resilience4jProperty | undefined {
  for (const [k, v] of block.props) if (relaxed(k) === 'baseconfig') return v;
  return undefined;
}
