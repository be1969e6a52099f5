import type { Hono } from 'hono';
import { listAccountApps } from '../../auth-api/auth.usecases';
import { type GatewayDeps, gatewayContext } from '../../deps';
import { CodeBlock } from '../components/code';
import { when } from '../components/format';
import { Layout } from '../components/layout';
import { Fields, Table } from '../components/table';
import { accountOf, type ConsoleEnv } from '../console-env';

/**
 * How an app's key is replaced, as docs/api.md (Authentication) gives it: the one call that makes a key, made by the
 * developer with the account's API key, so the key is seen by them alone and never by this console.
 */
const replaceKeyCall = (appId: string) =>
  [
    'curl -s -X POST "$API/auth/key" -H "x-api-key: $KEY" \\',
    "  -H 'Content-Type: application/json' \\",
    `  -d '{"data":{"type":"auth","attributes":{"appId":"${appId}"}}}'`,
  ].join('\n');

/**
 * GET /console/developers: the account and its apps (app id, name, key version, created), as `GET /auth` lists
 * them, and how to replace an app's key. No key is shown or made here: the API key and the app keys are kept only
 * as hashes, and a key the console made would pass through a browser page. The apps are the gateway's own data, so
 * the page calls the use case `GET /auth` calls, for the signed-in account.
 */
export function registerDevelopersPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  const ctx = gatewayContext(deps);
  app.get('/console/developers', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const apps = await listAccountApps({ ctx: { db: ctx.db, account } });
    return c.html(
      <Layout title="Apps and keys" viewer={c.get('viewer')} current="/console/developers">
        <Fields
          fields={[
            ['Account', account.name],
            ['Account id', account.id],
          ]}
        />
        <Table
          caption="Apps of this account, oldest first"
          headers={['App id', 'Name', 'Key version', 'Created']}
          empty="This account has no app."
          rows={apps.map((row) => [row.id, row.name, String(row.keyVersion), when(row.createdAt.toISOString())])}
        />
        <section aria-labelledby="keys">
          <h2 id="keys">Keys</h2>
          <p>
            The API key was given once, when the account was onboarded; app keys are given once, by the call that makes
            them. The platform keeps only their hashes, so nobody can show a key again: not this console, not an
            operator.
          </p>
          <p>
            To replace an app's key, call <code>POST /auth/key</code> with the account's API key in{' '}
            <code>x-api-key</code> and the app's id. The answer carries the new app key, once; from then on the previous
            key and every app token minted from it are refused (<code>token_revoked</code>). Mint a new token with{' '}
            <code>POST /auth/token</code>.
          </p>
          {apps[0] && <CodeBlock label="Replacing an app key with curl" text={replaceKeyCall(apps[0].id)} />}
        </section>
        <section aria-labelledby="tools">
          <h2 id="tools">Developer tools</h2>
          <ul>
            <li>
              <a href="/console/webhooks">Webhooks</a>: the endpoints events are posted to, every delivery and its
              attempts.
            </li>
            <li>
              <a href="/console/events">Events</a>: everything that happened to this account's resources.
            </li>
            <li>
              <a href="/console/requests">Request log</a>: every API request of the last 30 days, with its bodies.
            </li>
          </ul>
        </section>
      </Layout>,
    );
  });
}
