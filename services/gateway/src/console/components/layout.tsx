import type { Child, FC } from 'hono/jsx';
import type { Viewer } from '../session/sessions.usecases';

/** A link of the navigation. */
type Section = { href: string; label: string };
type NavEntry = Section | { heading: string; sections: Section[] };

/**
 * The console's sections an account sees, in the order the navigation lists them; a group is a heading over its
 * sections (the developers' tools apart from the money).
 */
const ACCOUNT_SECTIONS: NavEntry[] = [
  { href: '/console', label: 'Home' },
  { href: '/console/payments', label: 'Payments' },
  { href: '/console/merchants', label: 'Merchants' },
  { href: '/console/disputes', label: 'Disputes' },
  { href: '/console/payouts', label: 'Payouts' },
  {
    heading: 'Developers',
    sections: [
      { href: '/console/developers', label: 'Apps and keys' },
      { href: '/console/webhooks', label: 'Webhooks' },
      { href: '/console/events', label: 'Events' },
      { href: '/console/requests', label: 'Request log' },
    ],
  },
];

/** The operator's sections: every account, the roles' health, the bank's files, the reports and the queue board. */
const OPERATOR_SECTIONS: NavEntry[] = [
  { href: '/console/accounts', label: 'Accounts' },
  { href: '/console/health', label: 'Health' },
  { href: '/console/ach-files', label: 'ACH files' },
  { href: '/console/settlement-reports', label: 'Settlement reports' },
  { href: '/admin/queues', label: 'Queues' },
];

const SectionLink: FC<{ section: Section; current?: string }> = ({ section, current }) => (
  <a href={section.href} aria-current={current === section.href ? 'page' : undefined}>
    {section.label}
  </a>
);

/**
 * Every page: one `<h1>` (the page's title), a skip link, the navigation and sign-out when signed in, the console's
 * own stylesheet and scripts from this origin (no inline script: the Content-Security-Policy forbids it); uPlot
 * only on pages with `charts`.
 */
export const Layout: FC<{ title: string; viewer?: Viewer; current?: string; charts?: boolean; children?: Child }> = ({
  title,
  viewer,
  current,
  charts,
  children,
}) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}' />
      <title>{`${title} · PPS console`}</title>
      <link rel="icon" href="/favicon.ico" />
      <link rel="stylesheet" href="/console/assets/console.css" />
      {charts && <link rel="stylesheet" href="/console/assets/uPlot.min.css" />}
      <script src="/console/assets/htmx.min.js" defer></script>
      {charts && <script src="/console/assets/uPlot.min.js" defer></script>}
      <script src="/console/assets/console.js" defer></script>
    </head>
    <body>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <p class="brand">PPS console</p>
        {viewer && (
          <>
            <nav aria-label="Console">
              <ul>
                {(viewer.kind === 'account' ? ACCOUNT_SECTIONS : OPERATOR_SECTIONS).map((section) =>
                  'heading' in section ? (
                    <li class="group">
                      <span id={`nav-${section.heading.toLowerCase()}`}>{section.heading}</span>
                      <ul aria-labelledby={`nav-${section.heading.toLowerCase()}`}>
                        {section.sections.map((inner) => (
                          <li>
                            <SectionLink section={inner} current={current} />
                          </li>
                        ))}
                      </ul>
                    </li>
                  ) : (
                    <li>
                      <SectionLink section={section} current={current} />
                    </li>
                  ),
                )}
              </ul>
            </nav>
            <p class="who">{viewer.kind === 'account' ? viewer.account.name : 'Operator'}</p>
            <form method="post" action="/console/sign-out">
              <CsrfField viewer={viewer} />
              <button type="submit">Sign out</button>
            </form>
          </>
        )}
      </header>
      <main id="main">
        <h1>{title}</h1>
        {children}
      </main>
    </body>
  </html>
);

/** The session's CSRF token, in every form that changes something. */
export const CsrfField: FC<{ viewer: Viewer }> = ({ viewer }) => (
  <input type="hidden" name="_csrf" value={viewer.csrfToken} />
);

/** A message the page leads with: what went wrong (role alert), or what was done (role status). */
export const Notice: FC<{ kind: 'error' | 'done'; children?: Child }> = ({ kind, children }) => (
  <p class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
    {children}
  </p>
);
