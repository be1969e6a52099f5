import type { FC } from 'hono/jsx';

/**
 * A labelled text field of a filter form, its name its id (so the filter is the query parameter the URL keeps).
 */
export const FilterInput: FC<{
  id: string;
  label: string;
  value?: string;
  placeholder?: string;
  help?: string;
}> = ({ id, label, value, placeholder, help }) => (
  <div class="field">
    <label for={id}>{label}</label>
    <input
      id={id}
      name={id}
      type="text"
      value={value ?? ''}
      placeholder={placeholder}
      aria-describedby={help ? `${id}-help` : undefined}
    />
    {help && (
      <span id={`${id}-help`} class="help">
        {help}
      </span>
    )}
  </div>
);

/** A labelled choice of a filter form, "Any" first (no filter). */
export const FilterSelect: FC<{ id: string; label: string; value?: string; options: readonly string[] }> = ({
  id,
  label,
  value,
  options,
}) => (
  <div class="field">
    <label for={id}>{label}</label>
    <select id={id} name={id}>
      <option value="">Any</option>
      {options.map((option) => (
        <option value={option} selected={option === value}>
          {option}
        </option>
      ))}
    </select>
  </div>
);

/**
 * The console URL of a list's next page: the page's own URL (its filters as they are) with `after` set to the last
 * item's id, the cursor the API reads as `startingAfter`.
 */
export function nextPageHref(currentUrl: string, lastId: string): string {
  const url = new URL(currentUrl);
  url.searchParams.set('after', lastId);
  return `${url.pathname}${url.search}`;
}

/** The console URL of a list's first page: the filters kept, the cursor dropped. */
export function firstPageHref(currentUrl: string): string {
  const url = new URL(currentUrl);
  url.searchParams.delete('after');
  return `${url.pathname}${url.search}`;
}
