/**
 * The members a request body's schema takes, read once from the zod schema's definition (`_zod.def`, zod 4's public
 * description of a schema for the libraries built on it) into a tree that a body is walked against: so an older
 * version's body loses the members the newest refuses (`unknown_field`) without being validated twice.
 *
 * - an object refusing unknown members (`strictObject`) keeps its own; an object that ignores them is walked into but
 *   never cut;
 * - a union on a discriminator (`paymentType`) is walked as the branch the body names; one without, as every
 *   branch's members together (a member another branch takes is kept, and refused as newest refuses it);
 * - wrappers (optional, nullable, default, a pipe's input, lazy) are seen through; anything else is a leaf.
 */
export type Members =
  | { kind: 'object'; strict: boolean; members: Map<string, Members> }
  | { kind: 'array'; element: Members }
  | { kind: 'record'; value: Members }
  | { kind: 'union'; discriminator?: string; branches: { values: unknown[]; members: Members }[] }
  | { kind: 'leaf' };

type Definition = {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  innerType?: Schema;
  in?: Schema;
  element?: Schema;
  valueType?: Schema;
  options?: Schema[];
  discriminator?: string;
  values?: unknown[];
  left?: Schema;
  right?: Schema;
  getter?: () => Schema;
};
type Schema = { _zod?: { def: Definition } };

const LEAF: Members = { kind: 'leaf' };
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

const memo = new WeakMap<object, Members>();

/** The members tree of a zod schema (memoised per schema: built once per route). */
export function membersOf(schema: unknown, depth = 0): Members {
  const def = (schema as Schema | undefined)?._zod?.def;
  if (!def || depth > 64) return LEAF;
  const known = memo.get(schema as object);
  if (known) return known;
  const built = build(def, depth);
  memo.set(schema as object, built);
  return built;
}

function build(def: Definition, depth: number): Members {
  if (WRAPPERS.has(def.type)) return membersOf(def.innerType, depth + 1);
  if (def.type === 'pipe') return membersOf(def.in, depth + 1);
  if (def.type === 'lazy' && def.getter) return membersOf(def.getter(), depth + 1);
  if (def.type === 'array' && def.element) return { kind: 'array', element: membersOf(def.element, depth + 1) };
  if (def.type === 'record' && def.valueType) return { kind: 'record', value: membersOf(def.valueType, depth + 1) };
  if (def.type === 'object' && def.shape) {
    const members = new Map(Object.entries(def.shape).map(([name, member]) => [name, membersOf(member, depth + 1)]));
    return { kind: 'object', strict: def.catchall?._zod?.def.type === 'never', members };
  }
  if (def.type === 'intersection' && def.left && def.right) {
    const left = membersOf(def.left, depth + 1);
    const right = membersOf(def.right, depth + 1);
    if (left.kind !== 'object' || right.kind !== 'object') return LEAF;
    return {
      kind: 'object',
      strict: left.strict && right.strict,
      members: new Map([...left.members, ...right.members]),
    };
  }
  if (def.type === 'union' && def.options) {
    const branches = def.options.map((option) => {
      const members = membersOf(option, depth + 1);
      const discriminant =
        def.discriminator && members.kind === 'object' ? members.members.get(def.discriminator) : undefined;
      const values = discriminant ? literalValues(option, def.discriminator as string) : [];
      return { values, members };
    });
    return { kind: 'union', discriminator: def.discriminator, branches };
  }
  return LEAF;
}

/** The literal values a branch's discriminator member takes (`z.literal('card')`, or an enum of them). */
function literalValues(option: Schema, discriminator: string): unknown[] {
  let member = option._zod?.def.shape?.[discriminator]?._zod?.def;
  while (member && WRAPPERS.has(member.type)) member = member.innerType?._zod?.def;
  if (member?.type === 'literal') return member.values ?? [];
  if (member?.type === 'enum') return Object.values((member as { entries?: Record<string, unknown> }).entries ?? {});
  return [];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Removes, in place, every member of `value` that its schema's objects refuse; true when one was removed. */
export function removeUnknownMembers(members: Members, value: unknown): boolean {
  switch (members.kind) {
    case 'object': {
      if (!isRecord(value)) return false;
      let removed = false;
      for (const name of Object.keys(value)) {
        const member = members.members.get(name);
        if (member) removed = removeUnknownMembers(member, value[name]) || removed;
        else if (members.strict) {
          delete value[name];
          removed = true;
        }
      }
      return removed;
    }
    case 'array':
      return Array.isArray(value) && value.map((item) => removeUnknownMembers(members.element, item)).some(Boolean);
    case 'record':
      return (
        isRecord(value) &&
        Object.values(value)
          .map((item) => removeUnknownMembers(members.value, item))
          .some(Boolean)
      );
    case 'union':
      return removeUnknownMembers(branchFor(members, value), value);
    default:
      return false;
  }
}

/** The branch a body names by the union's discriminator; else every object branch's members together. */
function branchFor(union: Extract<Members, { kind: 'union' }>, value: unknown): Members {
  if (union.discriminator && isRecord(value)) {
    const named = union.branches.find((branch) => branch.values.includes(value[union.discriminator as string]));
    if (named) return named.members;
  }
  const objects = union.branches.map((branch) => branch.members).filter((members) => members.kind === 'object');
  if (objects.length === 0 || !isRecord(value)) return LEAF;
  return {
    kind: 'object',
    strict: objects.every((members) => members.strict),
    members: new Map(objects.flatMap((members) => [...members.members])),
  };
}
