import { API_VERSIONS } from '@pps/shared/versions';

/**
 * What makes two recordings of the same tour differ though nothing changed: ids (`pay_…`, made of time and chance),
 * times, secrets the platform makes (keys, tokens, signing and client secrets, challenge tokens), durations. Each is
 * replaced by a placeholder: an id by its prefix and the order it first appeared in (`<pay 2>`), so the recording
 * still says which resource is which; the rest by its kind.
 */
export function normaliser() {
  const seen = new Map<string, string>();
  const counts = new Map<string, number>();
  const placeholder = (id: string, prefix: string) => {
    let known = seen.get(id);
    if (!known) {
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      known = `<${prefix} ${n}>`;
      seen.set(id, known);
    }
    return known;
  };
  const versions = new Set<string>(API_VERSIONS);

  const text = (value: string): string =>
    value
      .replace(/eyJ[\w-]*\.[\w-]+\.[\w-]*/g, '<jwt>')
      .replace(/\b(sk_test|sk_live|whsec|cs_secret|cs_console|tds)_[\w\-+/=]+/g, (_, kind: string) => `<${kind}>`)
      .replace(/\bak_[\w-]{20,}/g, '<ak>')
      .replace(/\b([a-z]{2,5})_[0-9a-hjkmnp-tv-z]{26}\b/g, (id, prefix: string) => placeholder(id, prefix))
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g, '<time>')
      .replace(/\b\d{4}-\d\d-\d\d\b/g, (date) => (versions.has(date) ? date : '<date>'))
      .replace(/\b\d{2}\/\d{2}\/\d{4}\b/g, '<date>');

  /**
   * A NACHA file (`GET /admin/ach-files/{id}`): its fixed-width dates blanked where the format puts them, the file's
   * creation date and time (file header, positions 24–33), each batch's effective and settlement dates (batch
   * header, 64–72), and each entry's individual id (entry detail, 40–54: its payment's id, made by chance).
   */
  const nacha = (file: string) =>
    file
      .split('\n')
      .map((line) => {
        const blank = (from: number, to: number) => `${line.slice(0, from)}${'#'.repeat(to - from)}${line.slice(to)}`;
        if (line.startsWith('1')) return blank(23, 33);
        if (line.startsWith('5')) return blank(63, 72);
        if (line.startsWith('6')) return blank(39, 54);
        return line;
      })
      .join('\n');

  /** Durations and the like, by their field's name: figures of how long, not of what. */
  const TIMINGS = new Set(['durationMs', 'latencyMs', 'expiresIn', 'retryAfter']);

  /**
   * The sandbox clock's offset once set to a time: the seconds from the server's now to that time, which the tour
   * sets a moment after reading the clock; how long that moment was moves it by a second. Kept to the minute.
   */
  const toTheMinute = (seconds: number) => Math.round(seconds / 60) * 60;

  /** What the sandbox makes by chance: an approval's authorization code. */
  const CHANCE = new Set(['authCode']);

  const value = (input: unknown, key = ''): unknown => {
    if (typeof input === 'string' && CHANCE.has(key)) return `<${key}>`;
    if (typeof input === 'string') return input.startsWith('101 ') ? nacha(input) : text(input);
    if (typeof input === 'number' && TIMINGS.has(key)) return '<ms>';
    if (typeof input === 'number' && key === 'offsetSeconds') return toTheMinute(input);
    if (Array.isArray(input)) return input.map((item) => value(item, key));
    if (input !== null && typeof input === 'object') {
      const out: Record<string, unknown> = {};
      for (const [field, item] of Object.entries(input)) out[text(field)] = value(item, field);
      return out;
    }
    return input;
  };
  return { text, value };
}
