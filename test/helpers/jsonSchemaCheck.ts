/**
 * A small JSON Schema (draft 2020-12) checker covering the keywords the generated experiment
 * schema uses: $ref to #/$defs, type, const, enum, properties, required, additionalProperties,
 * propertyNames, items, minItems, maxItems, minimum, maximum, exclusiveMinimum, pattern,
 * minLength, anyOf, oneOf, not. Returns the paths where the value does not match.
 */
export function jsonSchemaCheck(root: Record<string, unknown>, value: unknown): string[] {
  const defs = (root.$defs ?? {}) as Record<string, Record<string, unknown>>;
  const known = new Set([
    '$schema', '$id', '$ref', '$defs', 'title', 'description', 'default', 'type', 'const', 'enum', 'properties',
    'required', 'additionalProperties', 'propertyNames', 'items', 'minItems', 'maxItems', 'minimum', 'maximum',
    'exclusiveMinimum', 'pattern', 'minLength', 'anyOf', 'oneOf', 'not',
  ]);

  function typeOk(type: string, v: unknown): boolean {
    switch (type) {
      case 'object':
        return v !== null && typeof v === 'object' && !Array.isArray(v);
      case 'array':
        return Array.isArray(v);
      case 'string':
        return typeof v === 'string';
      case 'number':
        return typeof v === 'number';
      case 'integer':
        return Number.isInteger(v);
      case 'boolean':
        return typeof v === 'boolean';
      case 'null':
        return v === null;
      default:
        throw new Error(`unsupported type ${type}`);
    }
  }

  function check(schema: Record<string, unknown>, v: unknown, path: string): string[] {
    for (const key of Object.keys(schema)) if (!known.has(key)) throw new Error(`unsupported keyword ${key} at ${path}`);
    const errors: string[] = [];
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/$defs/', '');
      const target = defs[name];
      if (target === undefined) throw new Error(`unknown $ref ${schema.$ref}`);
      errors.push(...check(target, v, path));
    }
    if (typeof schema.type === 'string' && !typeOk(schema.type, v)) return [...errors, `${path}: not ${schema.type}`];
    if ('const' in schema && schema.const !== v) errors.push(`${path}: not ${JSON.stringify(schema.const)}`);
    if (Array.isArray(schema.enum) && !schema.enum.includes(v)) errors.push(`${path}: not in enum`);
    if (typeof v === 'number') {
      if (typeof schema.minimum === 'number' && v < schema.minimum) errors.push(`${path}: < minimum`);
      if (typeof schema.maximum === 'number' && v > schema.maximum) errors.push(`${path}: > maximum`);
      if (typeof schema.exclusiveMinimum === 'number' && v <= schema.exclusiveMinimum) errors.push(`${path}: <= exclusiveMinimum`);
    }
    if (typeof v === 'string') {
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(v)) errors.push(`${path}: pattern`);
      if (typeof schema.minLength === 'number' && v.length < schema.minLength) errors.push(`${path}: minLength`);
    }
    if (Array.isArray(v)) {
      if (typeof schema.minItems === 'number' && v.length < schema.minItems) errors.push(`${path}: minItems`);
      if (typeof schema.maxItems === 'number' && v.length > schema.maxItems) errors.push(`${path}: maxItems`);
      if (schema.items !== undefined) v.forEach((item, i) => errors.push(...check(schema.items as Record<string, unknown>, item, `${path}.${i}`)));
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const obj = v as Record<string, unknown>;
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const req of (schema.required ?? []) as string[]) if (!(req in obj)) errors.push(`${path}.${req}: required`);
      for (const [key, item] of Object.entries(obj)) {
        const sub = props[key];
        if (sub !== undefined) errors.push(...check(sub, item, `${path}.${key}`));
        else if (schema.additionalProperties === false) errors.push(`${path}.${key}: additional property`);
        else if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
          errors.push(...check(schema.additionalProperties as Record<string, unknown>, item, `${path}.${key}`));
        }
        if (schema.propertyNames !== undefined) errors.push(...check(schema.propertyNames as Record<string, unknown>, key, `${path}.${key}(name)`));
      }
    }
    if (Array.isArray(schema.anyOf)) {
      const ok = (schema.anyOf as Array<Record<string, unknown>>).some((s) => check(s, v, path).length === 0);
      if (!ok) errors.push(`${path}: matches no anyOf`);
    }
    if (Array.isArray(schema.oneOf)) {
      const n = (schema.oneOf as Array<Record<string, unknown>>).filter((s) => check(s, v, path).length === 0).length;
      if (n !== 1) errors.push(`${path}: matches ${n} of oneOf`);
    }
    if (schema.not !== undefined && check(schema.not as Record<string, unknown>, v, path).length === 0) errors.push(`${path}: matches not`);
    return errors;
  }

  return check(root, value, '$');
}
