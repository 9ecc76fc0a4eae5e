import { describeName, describeValue } from '../policy/schema/describeValue.js';
import { isObject, type JsonObject, type Segment } from './FieldReader.js';
import { readDocument } from './readDocument.js';

/** One Kubernetes-style resource of a file. */
export interface Resource {
  /** `apiVersion` (empty when absent). */
  apiVersion: string;
  /** `kind` (empty when absent). */
  kind: string;
  /** `metadata.name` (empty when absent). */
  name: string;
  /** The resource itself. */
  value: JsonObject;
  /** How messages name it: `VirtualService "reviews"` (with the document number when the file has several). */
  label: string;
}

/** A line that separates YAML documents (`---`, optionally followed by a comment or content). */
const DOCUMENT_START = /^---(?:\s|$)/;

/**
 * The resources of a file: every YAML document of a multi-document file (`---` separated), every
 * element of a top-level list, and the `items` of a `kind: List`. Each document is read through
 * readDocument (so the YAML limits apply), padded so that messages keep the file's line numbers.
 * Empty documents are skipped; anything that is not an object is a resource with no kind.
 */
export function readResources(text: string, source: string): Resource[] {
  const lines = text.split(/\r?\n/);
  const values: unknown[] = [];
  const json = /\.json$/i.test(source) || /^\s*[{[]/.test(text);
  if (json) {
    values.push(readDocument(text, source));
  } else {
    let start = 0;
    const flush = (end: number) => {
      const piece = lines.slice(start, end).join('\n');
      if (piece.trim() !== '') values.push(readDocument('\n'.repeat(start) + piece, source));
    };
    lines.forEach((line, i) => {
      if (!DOCUMENT_START.test(line)) return;
      flush(i);
      // The separator line itself may carry content after `---`; keep it by blanking only the marker.
      lines[i] = line.replace(/^---/, '   ');
      start = i;
    });
    flush(lines.length);
  }
  const flat: unknown[] = [];
  const add = (v: unknown) => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) v.forEach(add);
    else if (isObject(v) && v.kind === 'List' && Array.isArray(v.items)) v.items.forEach(add);
    else flat.push(v);
  };
  values.forEach(add);
  const several = flat.length > 1;
  return flat.map((v, i) => {
    const value = isObject(v) ? v : { value: v };
    const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
    const kind = typeof value.kind === 'string' ? value.kind : '';
    const metadata = isObject(value.metadata) ? value.metadata : {};
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    const label = `${kind !== '' ? describeName(kind) : 'document'}${name !== '' ? ` ${describeValue(name)}` : ''}${several ? ` (document ${i + 1})` : ''}`;
    return { apiVersion, kind, name, value, label };
  });
}

/** The group of an apiVersion (`networking.istio.io/v1` -> `networking.istio.io`; `v1` -> ``). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The annotations of a resource (string values only; others are reported by the importer that reads them). */
export function annotationsOf(resource: Resource): JsonObject {
  const metadata = resource.value.metadata;
  return isObject(metadata) && isObject(metadata.annotations) ? metadata.annotations : {};
}

/** A path into a resource, for messages. */
export type ResourcePath = Segment[];
