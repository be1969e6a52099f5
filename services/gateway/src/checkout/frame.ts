/** The hosted card form's page and its headers (docs/decisions.md, Checkout). */

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The form's Content-Security-Policy: its own script and style only (no inline script), requests to its own origin
 * only, no native form submission (a form that could submit without its script would put the card in a URL), and
 * framed only by the session's allowed origins.
 */
export function frameCsp(allowedOrigins: string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${allowedOrigins.length > 0 ? allowedOrigins.join(' ') : "'none'"}`,
  ].join('; ');
}

/** Headers of every answer of the frame route: never cached, never sniffed, no referrer leaves it. */
export const frameHeaders = (allowedOrigins: string[]): Record<string, string> => ({
  'content-security-policy': frameCsp(allowedOrigins),
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});

export type FrameState = 'open' | 'expired' | 'complete';

/** The page's icon, inline (`img-src data:`): a browser that opens the form asks for no /favicon.ico, which is a 404. */
const ICON = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect x='1' y='3' width='14' height='10' rx='2' fill='#2f5bea'/><rect x='1' y='5.5' width='14' height='2' fill='#1a1f36'/></svg>",
)}`;

const NOTICES: Record<Exclude<FrameState, 'open'>, string> = {
  expired: 'This checkout session has expired. Reload the page to start again.',
  complete: 'This checkout session cannot save any more cards. Reload the page to start again.',
};

/**
 * The form: labelled fields, each with its error element (aria-live, referenced by aria-describedby), no `name`
 * attributes (nothing to submit natively), disabled until the embedding page has sent the client secret.
 */
export function frameHtml(session: { id: string; allowedOrigins: string[]; state: FrameState }): string {
  const notice = session.state === 'open' ? '' : NOTICES[session.state];
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Card details</title>
  <link rel="icon" href="${ICON}">
  <link rel="stylesheet" href="/checkout/assets/frame.css">
  <script src="/checkout/assets/frame.js" defer></script>
</head>
<body>
  <main id="checkout" data-session="${escapeHtml(session.id)}" data-origins="${escapeHtml(JSON.stringify(session.allowedOrigins))}" data-state="${session.state}">
    <form id="card-form" method="post" novalidate>
      <fieldset id="card-fields" disabled>
        <legend>Card details</legend>
        <div id="form-alert" class="alert" role="alert"${notice ? '' : ' hidden'}>${escapeHtml(notice)}</div>
        <div class="field">
          <label for="holder">Name on card</label>
          <input id="holder" type="text" autocomplete="cc-name" maxlength="200" spellcheck="false" required aria-invalid="false" aria-describedby="holder-error">
          <p id="holder-error" class="error" aria-live="polite"></p>
        </div>
        <div class="field">
          <label for="number">Card number</label>
          <div class="number">
            <input id="number" type="text" inputmode="numeric" autocomplete="cc-number" maxlength="23" spellcheck="false" placeholder="1234 1234 1234 1234" required aria-invalid="false" aria-describedby="number-brand number-error">
            <span id="number-brand" class="brand" aria-live="polite"></span>
          </div>
          <p id="number-error" class="error" aria-live="polite"></p>
        </div>
        <div class="row">
          <div class="field">
            <label for="expiry">Expiry date</label>
            <input id="expiry" type="text" inputmode="numeric" autocomplete="cc-exp" maxlength="7" spellcheck="false" placeholder="MM / YY" required aria-invalid="false" aria-describedby="expiry-hint expiry-error">
            <p id="expiry-hint" class="hint">Month and year, MM / YY</p>
            <p id="expiry-error" class="error" aria-live="polite"></p>
          </div>
          <div class="field">
            <label for="code">Security code</label>
            <input id="code" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" spellcheck="false" required aria-invalid="false" aria-describedby="code-hint code-error">
            <p id="code-hint" class="hint">3 digits on the back, 4 on the front for American Express</p>
            <p id="code-error" class="error" aria-live="polite"></p>
          </div>
        </div>
        <button id="submit" type="submit">Save card</button>
        <p id="form-status" class="status" role="status"></p>
      </fieldset>
    </form>
  </main>
</body>
</html>
`;
}
