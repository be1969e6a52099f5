import { dollars } from '../console/components/format';
import type { OpenChallenge } from './challenges.repository';

/** What the page says: the challenge to answer, or why there is none. */
export type ChallengePageState =
  | { kind: 'open'; challenge: OpenChallenge; token: string }
  | { kind: 'unknown' }
  | { kind: 'expired'; backTo: string | null }
  | { kind: 'unavailable' };

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1f24}
main{max-width:26rem;margin:4rem auto;background:#fff;border:1px solid #d0d4da;border-radius:8px;padding:2rem}
h1{font-size:1.3rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1.5rem}
dt{color:#4b5563}dd{margin:0}.actions{display:flex;gap:.75rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #1b1f24;background:#fff;cursor:pointer}
button.primary{background:#1f4fd1;border-color:#1f4fd1;color:#fff}button:focus-visible{outline:3px solid #f59e0b}
.note{color:#4b5563;font-size:.9rem;margin-top:1.5rem}`;

/**
 * The hosted 3-D Secure challenge page (docs/api.md, 3-D Secure): the sandbox's stand-in for the issuer's page. A
 * plain form, no script: "Complete" authenticates the cardholder, "Fail" refuses; either way the browser is sent
 * back to the shop's `returnUrl`. The token travels in the form's body, never in a URL a log keeps.
 */
export function ChallengePage({ state }: { state: ChallengePageState }) {
  const title =
    state.kind === 'open'
      ? 'Confirm your payment'
      : state.kind === 'expired'
        ? 'This confirmation has ended'
        : state.kind === 'unknown'
          ? 'No payment to confirm'
          : 'Your payment could not be confirmed';
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · 3-D Secure (sandbox)`}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>
          <h1>{title}</h1>
          {state.kind === 'open' ? <OpenChallengeForm challenge={state.challenge} token={state.token} /> : null}
          {state.kind === 'expired' ? (
            <>
              <p>Its link works once, for 15 minutes. The payment was not made.</p>
              {state.backTo ? <a href={state.backTo}>Back to the shop</a> : null}
            </>
          ) : null}
          {state.kind === 'unknown' ? <p>This link is not a payment's confirmation, or it was already used.</p> : null}
          {state.kind === 'unavailable' ? <p>The bank did not answer in time. Try again in a moment.</p> : null}
        </main>
      </body>
    </html>
  );
}

function OpenChallengeForm({ challenge, token }: { challenge: OpenChallenge; token: string }) {
  return (
    <form method="post" action="/3ds/challenge">
      <p>Your bank asks you to confirm this payment.</p>
      <dl>
        <dt>Amount</dt>
        <dd>{`${dollars(challenge.amount)} ${challenge.currency}`}</dd>
        {challenge.card ? (
          <>
            <dt>Card</dt>
            <dd>{`${challenge.card.brand} ending ${challenge.card.last4}`}</dd>
          </>
        ) : null}
      </dl>
      <input type="hidden" name="token" value={token} />
      <div class="actions">
        <button type="submit" name="outcome" value="completed" class="primary">
          Complete
        </button>
        <button type="submit" name="outcome" value="failed">
          Fail
        </button>
      </div>
      <p class="note">Sandbox: no bank is asked. Complete authenticates the cardholder; Fail refuses.</p>
    </form>
  );
}
