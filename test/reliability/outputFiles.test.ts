import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SHOWN_PATH_CHARS } from '../../src/sweep/fileErrors.js';
import { cli, tempDir } from '../cli/helpers.js';

const STACK = 'layers:\n  - name: sdk\n    preset: aws-sdk-js-standard\n';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A stack file to export from, in a fresh directory. */
function stackDir(): { dir: string; stack: string } {
  const dir = tempDir();
  const stack = join(dir, 'stack.yaml');
  writeFileSync(stack, STACK);
  return { dir, stack };
}

describe('--out replaces only a regular file, and never the input', () => {
  it('a symbolic link is refused and left as it is (its target too)', async () => {
    const { dir, stack } = stackDir();
    const target = join(dir, 'target.txt');
    writeFileSync(target, 'keep me\n');
    symlinkSync(target, join(dir, 'out.yaml'));
    const r = await cli(['export', 'aws-config', stack, '--out', join(dir, 'out.yaml')]);
    expect(r).toEqual({ code: 2, out: '', err: `error: cannot write --out ${join(dir, 'out.yaml')}: it is a symbolic link, and only a regular file is replaced (remove it or write elsewhere)\n` });
    expect(lstatSync(join(dir, 'out.yaml')).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
  });

  it('a FIFO is refused without opening it (no hang) and left as it is', async () => {
    const { dir, stack } = stackDir();
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['export', 'aws-config', stack, '--out', fifo]);
    expect(r).toEqual({ code: 2, out: '', err: `error: cannot write --out ${fifo}: it is a FIFO (named pipe), and only a regular file is replaced (remove it or write elsewhere)\n` });
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  // Nodes of the same devices as /dev/full and /dev/null, made in a temporary directory, so that a
  // regression replaces a copy and never the machine's own.
  it.runIf(isRoot)('a device node (/dev/full, /dev/null) is refused and stays a device, even as root', async () => {
    const { dir, stack } = stackDir();
    for (const [name, minor] of [['full', '7'], ['null', '3']] as const) {
      const dev = join(dir, name);
      execFileSync('mknod', ['-m', '666', dev, 'c', '1', minor]);
      const r = await cli(['export', 'aws-config', stack, '--out', dev]);
      expect(r).toEqual({ code: 2, out: '', err: `error: cannot write --out ${dev}: it is a character device, and only a regular file is replaced (remove it or write elsewhere)\n` });
      expect(statSync(dev).isCharacterDevice()).toBe(true);
    }
  });

  it('schema refuses a symbolic link the same way', async () => {
    const { dir } = stackDir();
    symlinkSync(join(dir, 'elsewhere.json'), join(dir, 'schema.json'));
    const r = await cli(['schema', 'schema.json'], dir);
    expect(r).toEqual({ code: 2, out: '', err: 'error: cannot write the schema file schema.json: it is a symbolic link, and only a regular file is replaced (remove it or write elsewhere)\n' });
    expect(existsSync(join(dir, 'elsewhere.json'))).toBe(false);
  });

  it('--out naming the input file (or a link to it) is refused and the input is unchanged', async () => {
    const { dir, stack } = stackDir();
    symlinkSync(stack, join(dir, 'alias.yaml'));
    for (const out of ['stack.yaml', './stack.yaml']) {
      const r = await cli(['export', 'aws-config', 'stack.yaml', '--out', out], dir);
      expect(r).toEqual({ code: 2, out: '', err: `error: cannot write --out ${out}: it is the input file ${stack}; write elsewhere\n` });
    }
    const viaLink = await cli(['export', 'aws-config', 'alias.yaml', '--out', 'stack.yaml'], dir);
    expect(viaLink.code).toBe(2);
    expect(viaLink.err).toMatch(/it is the input file .*alias\.yaml; write elsewhere\n$/);
    expect(readFileSync(stack, 'utf8')).toBe(STACK);
  });

  it('an imported file is an input too', async () => {
    const { dir } = stackDir();
    writeFileSync(join(dir, 'aws.ini'), '[default]\nretry_mode = standard\n');
    writeFileSync(join(dir, 'imp.yaml'), 'layers:\n  - import: { format: aws-config, file: aws.ini }\n');
    const r = await cli(['export', 'aws-config', 'imp.yaml', '--out', 'aws.ini'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: cannot write --out aws\.ini: it is the input file .*aws\.ini; write elsewhere\n$/);
    expect(readFileSync(join(dir, 'aws.ini'), 'utf8')).toBe('[default]\nretry_mode = standard\n');
  });

  it('a regular file is still replaced, and a new one written', async () => {
    const { dir, stack } = stackDir();
    writeFileSync(join(dir, 'old.ini'), 'old\n');
    expect((await cli(['export', 'aws-config', stack, '--out', join(dir, 'old.ini')])).code).toBe(0);
    expect(readFileSync(join(dir, 'old.ini'), 'utf8')).toMatch(/^\[profile /);
    expect((await cli(['export', 'aws-config', stack, '--out', join(dir, 'new', 'new.ini')])).code).toBe(0);
    expect(readFileSync(join(dir, 'new', 'new.ini'), 'utf8')).toMatch(/^\[profile /);
  });
});

describe('a write that fails says what failed, on the user path, in a few words', () => {
  it('permission denied names --out and its path, never the temporary file', async () => {
    const { stack } = stackDir();
    // /sys refuses new files even to root.
    const r = await cli(['export', 'aws-config', stack, '--out', '/sys/retrystorm-out.ini']);
    expect(r).toEqual({ code: 2, out: '', err: 'error: cannot write --out /sys/retrystorm-out.ini: permission denied\n' });
  });

  it('a path through a file', async () => {
    const { dir, stack } = stackDir();
    const r = await cli(['export', 'aws-config', stack, '--out', join(stack, 'x.ini')]);
    expect(r).toEqual({ code: 2, out: '', err: `error: cannot write --out ${join(stack, 'x.ini')}: a part of the path is not a directory\n` });
    expect(readdirSync(dir)).toEqual(['stack.yaml']);
  });

  it('a name of 10,000 characters gives a message of one short line', async () => {
    const { dir, stack } = stackDir();
    const long = join(dir, `${'n'.repeat(10_000)}.ini`);
    const r = await cli(['export', 'aws-config', stack, '--out', long]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: cannot write --out ${long.slice(0, 60)}...${'n'.repeat(56)}.ini (a path of ${(long.length).toLocaleString('en-US')} characters): the file name is too long\n`);
    expect(r.err.length).toBeLessThan(MAX_SHOWN_PATH_CHARS + 120);
  });
});
