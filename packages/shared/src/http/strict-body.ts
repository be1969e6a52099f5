import { z } from '@hono/zod-openapi';

/**
 * The fields each refused object takes, by the `keys` array of its `unrecognized_keys` issue. zod hands the error map
 * the raw issue and keeps that same array in the issue it reports, so the mapper (`zodToApiError`) can name the
 * field a misspelt one was meant to be without the schema in hand.
 */
const fieldsTaken = new WeakMap<readonly string[], readonly string[]>();

/**
 * An object of a request body: a field it does not take is a 400 `unknown_field` at that field's pointer, never
 * ignored (docs/decisions.md: a misspelt `capture` charged a card that was meant to be authorized only). The
 * OpenAPI document says so with `additionalProperties: false`.
 */
export const strictObject = <Shape extends z.ZodRawShape>(shape: Shape) => {
  const taken = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') fieldsTaken.set(issue.keys, taken);
      return undefined;
    },
  });
};

/** The fields the object of an `unrecognized_keys` issue takes, when `strictObject` made it. */
export const fieldsTakenBy = (keys: readonly string[]) => fieldsTaken.get(keys) ?? [];

/**
 * Optimal string alignment distance (Levenshtein with adjacent transpositions, each edit costing one): `captrue`
 * is one edit from `capture`, as a reader counts it.
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The field a misspelt one was most likely meant to be: the same name in another case, or the nearest within two
 * edits (one for names of four letters or fewer, so `id` is not "corrected" to `to`); none when it is not close.
 */
export function nearestField(name: string, taken: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameLetters = taken.find((field) => field.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  const allowed = name.length <= 4 ? 1 : 2;
  let nearest: { field: string; distance: number } | undefined;
  for (const field of taken) {
    const distance = editDistance(lower, field.toLowerCase());
    if (distance <= allowed && (!nearest || distance < nearest.distance)) nearest = { field, distance };
  }
  return nearest?.field;
}

/** The detail of an unknown field: the field it was likely meant to be, else the fields its object takes. */
export function unknownFieldDetail(name: string, taken: readonly string[]): string {
  const nearest = nearestField(name, taken);
  if (nearest) return `${name} is not a field of this object; did you mean ${nearest}?`;
  const takes = taken.length > 0 ? `; it takes ${taken.join(', ')}` : '';
  return `${name} is not a field of this object${takes}`;
}
