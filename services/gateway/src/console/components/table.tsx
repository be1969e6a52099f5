import type { Child, FC } from 'hono/jsx';

/**
 * A table with a caption and header cells (what axe-core and a screen reader need), or a sentence when it is empty.
 * `rows` are arrays of cells, the first a row header. Its box scrolls sideways when a cell is long (a name, a path),
 * so it is a named region with a tab stop: a keyboard can scroll it too.
 */
export const Table: FC<{ caption: string; headers: string[]; rows: Child[][]; empty: string }> = ({
  caption,
  headers,
  rows,
  empty,
}) =>
  rows.length === 0 ? (
    <p class="empty">{empty}</p>
  ) : (
    // biome-ignore lint/a11y/useSemanticElements: a <section> would take the sections' spacing; this box only scrolls
    <div class="table-wrap" role="region" aria-label={caption} tabindex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {headers.map((header) => (
              <th scope="col">{header}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([first, ...rest]) => (
            <tr>
              <th scope="row">{first}</th>
              {rest.map((cell) => (
                <td>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

/** A definition list of a resource's fields, label then value, skipping those without a value. */
export const Fields: FC<{ fields: [string, Child | undefined | null][] }> = ({ fields }) => (
  <dl class="fields">
    {fields
      .filter(([, value]) => value !== undefined && value !== null && value !== '')
      .map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </>
      ))}
  </dl>
);
