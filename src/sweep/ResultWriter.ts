import { randomInt } from 'node:crypto';
import { closeSync, readdirSync, fstatSync, ftruncateSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fsErrorWords, isFsError, shownPath } from './fileErrors.js';
import { writeJsonChunks } from './jsonStream.js';
import { RESULTS_FILE, RUN_END_FILES, RUN_FILE } from './ResultReader.js';

/** An output directory that cannot be written (permissions, full disk...). */
export class OutputError extends Error {}

/** A file system error in a few words: its code and what it means (`EACCES: permission denied`), never Node's message (which repeats the path). */
export function describeFsError(e: unknown): string {
  return isFsError(e) ? `${e.code}: ${fsErrorWords(e)}` : String(e);
}

/**
 * The sweep's result files in one directory. Whole files (run.json, summary.json, summary.csv,
 * results.json) are written to a temporary name and renamed, so no reader ever sees half a file;
 * results.jsonl grows one complete line at a time as replications finish: a line of up to about a
 * million characters is one write call, and a short write is continued or undone (appendChunks).
 * Only a kill (SIGKILL) in the middle of a write can leave the last line cut short, since the
 * kernel copies a write page by page and stops at a fatal signal; readers take that line as not
 * written (readRunDir in ResultReader.ts), and --resume rewrites the file without it. JSON values
 * are written in pieces ({@link writeJsonChunks}), so a file or a line may be longer than any string.
 */
export class ResultWriter {
  private fd: number | null = null;

  /**
   * The files of `dir`: by default a run's (results.jsonl, and the end files a new run removes);
   * `retrystorm risk` names its own (risk.jsonl...).
   */
  constructor(
    readonly dir: string,
    private readonly files: { lines: string; endFiles: readonly string[] } = { lines: RESULTS_FILE, endFiles: RUN_END_FILES },
  ) {}

  private guard<T>(what: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw new OutputError(`cannot write ${shownPath(what)} (${describeFsError(e)})`);
    }
  }

  /** Create the directory, write the manifest, and start results.jsonl (or the lines file named) with the given records (one line each). */
  start(manifestJson: string, records: readonly unknown[]): void {
    this.guard(this.dir, () => mkdirSync(this.dir, { recursive: true }));
    // Files of an earlier run that this one would not overwrite must not be mistaken for its output.
    for (const f of this.files.endFiles) {
      this.guard(join(this.dir, f), () => rmSync(join(this.dir, f), { force: true }));
    }
    // Temporary files a killed run left behind (`<name>.tmp-<n>`, see writeFile) are nobody's.
    for (const f of this.guard(this.dir, () => readdirSync(this.dir))) {
      if (/\.tmp-\d+$/.test(f)) this.guard(join(this.dir, f), () => rmSync(join(this.dir, f), { force: true }));
    }
    this.writeFile(RUN_FILE, manifestJson + '\n');
    this.writeFileChunks(this.files.lines, (emit) => {
      for (const r of records) {
        writeJsonChunks(r, emit);
        emit('\n');
      }
    });
    this.fd = this.guard(join(this.dir, this.files.lines), () => openSync(join(this.dir, this.files.lines), 'a'));
  }

  /** Append one record as one line (a single write call). */
  append(line: string): void {
    this.appendChunks([line + '\n']);
  }

  /** Append `value` as one line of JSON (`toJson(value)`), in pieces when it is long. */
  appendJson(value: unknown): void {
    const chunks: string[] = [];
    writeJsonChunks(value, (c) => chunks.push(c));
    chunks.push('\n');
    this.appendChunks(chunks.length <= 2 ? [chunks.join('')] : chunks);
  }

  private appendChunks(chunks: string[]): void {
    const fd = this.fd;
    if (fd === null) throw new Error('ResultWriter.append before start');
    this.guard(join(this.dir, this.files.lines), () => {
      const before = fstatSync(fd).size;
      try {
        // A short write (a full disk) is continued, or undone, so the file never holds half a line.
        for (const chunk of chunks) {
          const bytes = Buffer.from(chunk);
          let off = 0;
          while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
        }
      } catch (e) {
        try {
          ftruncateSync(fd, before);
        } catch {
          /* the write error is the one to report */
        }
        throw e;
      }
    });
  }

  /** Write a whole file atomically (a temporary name with a random number, then rename). */
  writeFile(name: string, text: string): void {
    this.writeFileChunks(name, (emit) => emit(text));
  }

  /** Write `toJson(value, indent)` as a whole file, atomically, in pieces (any size). */
  writeJsonFile(name: string, value: unknown, indent?: number): void {
    this.writeFileChunks(name, (emit) => writeJsonChunks(value, emit, indent === undefined ? {} : { indent }));
  }

  private writeFileChunks(name: string, produce: (emit: (chunk: string) => void) => void): void {
    const path = join(this.dir, name);
    const tmp = `${path}.tmp-${randomInt(2 ** 47)}`;
    this.guard(path, () => {
      let fd: number | null = null;
      try {
        fd = openSync(tmp, 'w');
        const out = fd;
        produce((chunk) => {
          const bytes = Buffer.from(chunk);
          let off = 0;
          while (off < bytes.length) off += writeSync(out, bytes, off, bytes.length - off);
        });
        closeSync(fd);
        fd = null;
        renameSync(tmp, path);
      } catch (e) {
        if (fd !== null) closeSync(fd);
        rmSync(tmp, { force: true });
        throw e;
      }
    });
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
