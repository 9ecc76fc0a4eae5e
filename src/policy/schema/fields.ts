import { z } from 'zod';
import { formatCount } from '../groupThousands.js';
import { describeValue } from './describeValue.js';
import { nearestName } from './nearestName.js';

/** Maps one raw zod issue to the text after the path (`must be > 0 (got -5)`). */
type ErrorFn = (issue: z.core.$ZodRawIssue) => string;

/**
 * Marks the text of an `unrecognized_keys` issue that carries per-key suggestions, so that
 * `zodProblems` can split it into one problem per key. Never shown to users.
 */
export const UNKNOWN_KEYS_MARK = '\u0000unknown-keys:';

function isMissing(issue: z.core.$ZodRawIssue): boolean {
  return issue.input === undefined;
}

/** `must be <what> (got <value>)`, or `is required` when the field is absent. */
function mustBe(what: string): ErrorFn {
  return (issue) => (isMissing(issue) ? 'is required' : `must be ${what} (got ${describeValue(issue.input)})`);
}

/**
 * A rule on a number: `must be > 0 (got -5)` for a number that breaks it, `must be a number > 0
 * (got "x")` for something else, `must be a finite number > 0 (got Infinity)` for non-finite values.
 */
function mustBeNumber(condition: string): ErrorFn {
  return (issue) => {
    if (isMissing(issue)) return 'is required';
    const input = issue.input;
    const rule = condition === 'finite' ? '' : ` ${condition}`;
    const what =
      typeof input !== 'number' ? `a number${rule}` : Number.isFinite(input) ? condition : `a finite number${rule}`;
    return `must be ${what} (got ${describeValue(input)})`;
  };
}

/** Object errors: absent, not an object, or unknown keys (with the nearest known key). */
function objectError(knownKeys: readonly string[], what: string): ErrorFn {
  return (issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => [key, nearestName(key, knownKeys) ?? null]);
      return UNKNOWN_KEYS_MARK + JSON.stringify(keys);
    }
    return mustBe(what)(issue);
  };
}

/** Sizes of arrays are reported as counts: `must have 1 to 16 layers (got 17)`. */
function sizeError(size: string, what: string): ErrorFn {
  return (issue) => {
    const input = issue.input;
    if (Array.isArray(input) && (issue.code === 'too_small' || issue.code === 'too_big')) {
      return `must have ${size} (got ${input.length})`;
    }
    return mustBe(what)(issue);
  };
}

/** The value of the discriminator field of a discriminated union, with the allowed values. */
function discriminatorError(discriminator: string, values: readonly string[], what: string): ErrorFn {
  return (issue) => {
    if (issue.code === 'invalid_union' && 'discriminator' in issue && issue.discriminator !== undefined) {
      const input = issue.input;
      const value = input !== null && typeof input === 'object' ? (input as Record<string, unknown>)[discriminator] : undefined;
      if (value === undefined) return 'is required';
      return `must be one of ${values.join(', ')} (got ${describeValue(value)})`;
    }
    return mustBe(what)(issue);
  };
}

function listWords(values: ReadonlyArray<string | number>, quoteStrings: boolean): string {
  return values.map((v) => (typeof v === 'string' && quoteStrings ? JSON.stringify(v) : String(v))).join(', ');
}

/** A numeric comparison understood by `fields.number` (`finite`: any finite number, negative included). */
export type NumberRule = '> 0' | '>= 0' | '>= 1' | 'between 0 and 1' | '> 0 and <= 1' | 'finite';

/**
 * Builders of zod schemas whose every issue carries the project's message style
 * (`<path> must be a positive integer (got 0)`). All objects are strict: unknown keys are errors
 * and suggest the nearest known key.
 */
export const fields = {
  /** A finite number satisfying `rule`. */
  number(rule: NumberRule) {
    const error = mustBeNumber(rule);
    const base = z.number({ error });
    switch (rule) {
      case '> 0':
        return base.gt(0, { error });
      case '>= 0':
        return base.gte(0, { error });
      case '>= 1':
        return base.gte(1, { error });
      case 'between 0 and 1':
        return base.gte(0, { error }).lte(1, { error });
      case '> 0 and <= 1':
        return base.gt(0, { error }).lte(1, { error });
      case 'finite':
        return base;
    }
  },
  /** A finite number satisfying `rule` and at most `max` (a bound beyond which the value means nothing a run can simulate): `must be at most 1,000,000,000 (got 1e+308)`. */
  numberAtMost(rule: '> 0' | '>= 0', max: number) {
    return fields.number(rule).lte(max, { error: mustBe(`at most ${formatCount(max)}`) });
  },
  /** A finite number > 0 and at least `min` (a resolution bound): `must be > 0 (got 0)`, `must be >= 0.001 (got 1e-9)`. */
  positiveAtLeast(min: number) {
    const error = mustBeNumber('> 0');
    return z.number({ error }).gt(0, { error, abort: true }).gte(min, { error: mustBeNumber(`>= ${min}`) });
  },
  /** A finite number in [min, max]: `must be between 0 and 100 (got 150)`. */
  range(min: number, max: number) {
    const error = mustBeNumber(`between ${min} and ${max}`);
    return z.number({ error }).gte(min, { error }).lte(max, { error });
  },
  /** An integer (a safe integer) >= `min`, if given; `what` names the rule in messages. */
  integer(what: string, min?: number) {
    const error = mustBe(what);
    const base = z.number({ error }).int({ error });
    return min === undefined ? base : base.gte(min, { error });
  },
  /** A positive integer (1, 2, ...). */
  positiveInt() {
    return fields.integer('a positive integer', 1);
  },
  /** A positive integer up to `max` (a bound that keeps per-item state within memory). */
  boundedInt(max: number) {
    const error = mustBe('a positive integer');
    return z
      .number({ error })
      .int({ error })
      .gte(1, { error })
      .lte(max, { error: mustBe(`at most ${formatCount(max)}`) });
  },
  /** An integer >= 0. */
  nonNegativeInt() {
    return fields.integer('an integer >= 0', 0);
  },
  /** An integer >= `min`, or the string "unlimited". */
  intOrUnlimited(min: 0 | 1) {
    const what = `${min === 1 ? 'a positive integer' : 'an integer >= 0'} or "unlimited"`;
    const error = mustBe(what);
    return z.union([z.number({ error }).int({ error }).gte(min, { error }), z.literal('unlimited', { error })], { error });
  },
  /** One of the given strings. */
  oneOf<const T extends readonly [string, ...string[]]>(values: T) {
    return z.enum(values, { error: mustBe(`one of ${listWords(values, false)}`) });
  },
  /** One of the given literal values (numbers and strings mixed; strings are quoted in messages). */
  literals<const T extends readonly [string | number, ...Array<string | number>]>(values: T) {
    return z.literal(values, { error: mustBe(`one of ${listWords(values, true)}`) });
  },
  /** true or false. */
  boolean() {
    return z.boolean({ error: mustBe('true or false') });
  },
  /** Any string. */
  string() {
    return z.string({ error: mustBe('a string') });
  },
  /** A non-empty string. */
  nonEmptyString() {
    const error = mustBe('a non-empty string');
    return z.string({ error }).min(1, { error });
  },
  /** A string matching `pattern`; `what` describes it in messages. */
  matching(pattern: RegExp, what: string) {
    const error = mustBe(what);
    return z.string({ error }).regex(pattern, { error });
  },
  /** A strict object: unknown keys are errors. `what` names it in type errors. */
  object<S extends z.core.$ZodLooseShape>(shape: S, what = 'an object') {
    return z.strictObject(shape, { error: objectError(Object.keys(shape), what) });
  },
  /** An array of `item` with at least `min` (and at most `max`) entries; `noun` is the plural of the entries. */
  array<T extends z.core.SomeType>(item: T, noun: string, min = 0, max?: number) {
    const what = `a list of ${noun}`;
    const size = max === undefined ? `at least ${min} ${min === 1 ? 'entry' : 'entries'}` : `${min} to ${max} ${noun}`;
    const error = sizeError(size, what);
    const base = z.array(item, { error });
    const withMin = min > 0 ? base.min(min, { error }) : base;
    return max === undefined ? withMin : withMin.max(max, { error });
  },
  /** An object whose keys are free (names, dotted paths) and whose values are `value`. */
  record<T extends z.core.SomeType>(value: T, what = 'an object') {
    return z.record(z.string(), value, { error: mustBe(what) });
  },
  /** One of several shapes; `what` describes the alternatives in messages. */
  union<const T extends readonly z.core.SomeType[]>(options: T, what: string) {
    return z.union(options, { error: mustBe(what) });
  },
  /** Objects told apart by the value of `discriminator` (e.g. `kind`). */
  choice<const T extends readonly [z.core.$ZodTypeDiscriminable, ...z.core.$ZodTypeDiscriminable[]]>(
    discriminator: string,
    values: readonly string[],
    options: T,
    what = 'an object',
  ) {
    return z.discriminatedUnion(discriminator, options, { error: discriminatorError(discriminator, values, what) });
  },
};
