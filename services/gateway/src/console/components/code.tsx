import type { FC } from 'hono/jsx';

/** JSON text made readable: indented when it parses, as it came when it does not (a body cut at the log's limit). */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * Text shown as it is (JSON, a command) in a `<pre>`: escaped by JSX like any text, never markup; and a named region
 * with a tab stop, so a keyboard can scroll a long line into view (axe-core asks it of a scrolling box).
 */
export const CodeBlock: FC<{ label: string; text: string }> = ({ label, text }) => (
  // biome-ignore lint/a11y/useSemanticElements: the box that scrolls is the one to name and focus; a <section> around it would not scroll
  <pre class="code" role="region" aria-label={label} tabindex={0}>
    {text}
  </pre>
);
