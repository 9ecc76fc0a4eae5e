import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckInputError, loadStacks, type CheckStack, type ImportReader } from '../../src/check/index.js';

/** The directory of the configuration fixtures. */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** The text of a fixture file. */
export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** Reads imports from the fixtures directory, naming them as written. */
export const fixtureReader: ImportReader = (file) => {
  try {
    return { source: file, text: fixture(file) };
  } catch {
    throw new CheckInputError([`${file}: cannot read (no such file)`]);
  }
};

/** The one stack of a stack-file document (given as an object, read as JSON). */
export function stackOf(doc: object, source = 'stack.json'): CheckStack {
  const stacks = loadStacks(JSON.stringify(doc), source, { readImport: fixtureReader });
  const stack = stacks[0];
  if (stacks.length !== 1 || stack === undefined) throw new Error(`expected one stack, got ${stacks.length}`);
  return stack;
}

/** The problems a load throws (fails the test when it does not throw a CheckInputError). */
export function loadProblems(load: () => unknown): string[] {
  try {
    load();
  } catch (e) {
    if (e instanceof CheckInputError) return e.problems;
    throw e;
  }
  throw new Error('expected a CheckInputError');
}
