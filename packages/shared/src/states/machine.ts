import { ApiError } from '../errors/api-error';

export type Transition<S extends string, E extends string> = { from: S; to: S; event: E };

/**
 * A status machine as data: the legal transitions, and the checks every status change goes through.
 * Anything not listed is a 422 `illegal_transition` naming the resource ("A closed merchant cannot become active").
 */
export function stateMachine<S extends string, E extends string>(options: {
  resource: string;
  statuses: readonly S[];
  transitions: readonly Transition<S, E>[];
}) {
  const legal = new Set(options.transitions.map(({ from, to }) => `${from}>${to}`));
  const can = (from: S, to: S): boolean => legal.has(`${from}>${to}`);
  return {
    is: (value: string): value is S => (options.statuses as readonly string[]).includes(value),
    can,
    assert(from: S, to: S): void {
      if (!can(from, to)) {
        throw new ApiError({
          status: 422,
          code: 'illegal_transition',
          detail: `A ${from} ${options.resource} cannot become ${to}`,
        });
      }
    },
  };
}
