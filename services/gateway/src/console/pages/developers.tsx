import { API_VERSIONS, changesSince, isApiVersion, NEWEST_VERSION, VERSION_CHANGES } from '@pps/shared/versions';
import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { setAccountStatus } from '../../admin/accounts.usecases';
import { listAccountApps } from '../../auth-api/auth.usecases';
import { type GatewayDeps, gatewayContext } from '../../deps';
import { CodeBlock } from '../components/code';
import { when } from '../components/format';
import { CsrfField, Layout, Notice } from '../components/layout';
import { Fields, Table } from '../components/table';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';
import type { Viewer } from '../session/sessions.usecases';

/** A changelog line as the docs show it: its `code spans` as code. */
const withCode = (line: string) => line.split('`').map((part, index) => (index % 2 === 1 ? <code>{part}</code> : part));

/**
 * The account's API version and the form that moves it (docs/api.md, Versions): the versions newest first, the
 * newest marked, and what a move to the newest would change, by each change module's changelog line.
 */
const ApiVersionForm: FC<{ viewer: Viewer; pinned: string; error?: string }> = ({ viewer, pinned, error }) => {
  const ahead = isApiVersion(pinned) ? changesSince(pinned) : VERSION_CHANGES;
  return (
    <section aria-labelledby="api-version">
      <h2 id="api-version">API version</h2>
      {error && <Notice kind="error">{error}</Notice>}
      <p>
        Requests without a <code>PPS-Version</code> header are answered in <strong>{pinned}</strong>
        {pinned === NEWEST_VERSION ? ', the newest version.' : '.'} Webhook endpoints keep their own version, shown on
        each.
      </p>
      {ahead.length > 0 && (
        <>
          <p>Moving to {NEWEST_VERSION} changes:</p>
          <ul>
            {ahead.map((change) => (
              <li>{withCode(change.changelog)}</li>
            ))}
          </ul>
        </>
      )}
      <form method="post" action="/console/developers/api-version">
        <CsrfField viewer={viewer} />
        <label for="apiVersion">Version</label>
        <select id="apiVersion" name="apiVersion">
          {[...API_VERSIONS].reverse().map((version) => (
            <option value={version} selected={version === pinned}>
              {version === NEWEST_VERSION ? `${version} (newest)` : version}
            </option>
          ))}
        </select>
        <button type="submit">Change version</button>
      </form>
    </section>
  );
};

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
  const page = async (c: ConsoleContext, versionError?: string) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const apps = await listAccountApps({ ctx: { db: ctx.db, account } });
    const done = c.req.query('done') === 'version';
    return c.html(
      <Layout title="Apps and keys" viewer={c.get('viewer')} current="/console/developers">
        {done && <Notice kind="done">The API version is now {account.apiVersion}.</Notice>}
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
        <ApiVersionForm viewer={c.get('viewer')} pinned={account.apiVersion} error={versionError} />
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
      versionError ? 422 : 200,
    );
  };
  app.get('/console/developers', (c) => page(c));
  // The account's pin, moved by its own developer: the use case the operator's `PUT /admin/accounts/{id}` runs.
  app.post('/console/developers/api-version', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const asked = c.get('form').apiVersion ?? '';
    if (!isApiVersion(asked)) {
      return page(c, `${JSON.stringify(asked.slice(0, 40))} is not an API version: choose one of the list.`);
    }
    await setAccountStatus({ ctx, input: { id: account.id, apiVersion: asked } });
    deps.auth.forgetAccount(account.id);
    return c.redirect('/console/developers?done=version', 303);
  });
}
