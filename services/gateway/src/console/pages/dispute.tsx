import { EVIDENCE_TEXT_MAX_LENGTH } from '@pps/shared/contract';
import type { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { GatewayDeps } from '../../deps';
import { dollars, when } from '../components/format';
import { CsrfField, Layout, Notice } from '../components/layout';
import { NotFound } from '../components/not-found';
import { Fields } from '../components/table';
import { type ApiAnswer, type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

/** The evidence a dispute takes (docs/api.md, Disputes), in the order the form asks for it, with what each is. */
const EVIDENCE_FIELDS = [
  ['productDescription', 'Product description', 'What was sold.'],
  ['customerName', 'Customer name', "The cardholder's name as the merchant knows it."],
  ['customerCommunication', 'Customer communication', 'What the cardholder and the merchant said to each other.'],
  ['refundPolicy', 'Refund policy', "The merchant's refund policy, as shown to the cardholder."],
  ['shippingTrackingNumber', 'Shipping tracking number', 'The carrier tracking number of the delivery.'],
  [
    'uncategorizedText',
    'Other evidence',
    'Anything else. In the sandbox, winning_evidence or losing_evidence decides the outcome.',
  ],
] as const;
type EvidenceName = (typeof EVIDENCE_FIELDS)[number][0];
type Evidence = Partial<Record<EvidenceName, string>>;

type Dispute = {
  id: string;
  attributes: {
    paymentId: string;
    merchantId: string;
    amount: string;
    reason: string;
    networkReasonCode: string;
    phase: string;
    status: string;
    dueBy: string;
    evidence: Evidence;
    evidenceDetails: { submissionCount: number; submittedAt: string | null; pastDue: boolean };
    createdAt: string;
    closedAt: string | null;
  };
};

const disputeOf = async (api: ConsoleApi, id: string) => {
  const answer = await api.get<{ data: Dispute }>(`/disputes/${encodeURIComponent(id)}`);
  return answer.status === 200 ? answer.body.data : undefined;
};

/** Evidence is taken while the dispute needs a response and before it is due (the API decides, and may refuse). */
const isOpen = (dispute: Dispute) =>
  dispute.attributes.status === 'needs_response' && !dispute.attributes.evidenceDetails.pastDue;

/** The evidence fields a form posted, as text (a field left out is not sent, so the saved one is kept). */
const evidenceOf = (form: Record<string, string>): Evidence =>
  Object.fromEntries(EVIDENCE_FIELDS.filter(([name]) => name in form).map(([name]) => [name, form[name]]));

const DONE = { saved: 'Evidence saved.', submitted: 'Evidence submitted to the bank.', accepted: 'Dispute accepted.' };
type Done = keyof typeof DONE;
type PageNotice = { kind: 'error' | 'done'; text: string };

/** The notice a redirect after an action asks for (`?done=submitted`), from known words only. */
const doneNotice = (c: ConsoleContext): PageNotice | undefined => {
  const done = c.req.query('done');
  return done && Object.hasOwn(DONE, done) ? { kind: 'done', text: DONE[done as Done] } : undefined;
};

const refused = (what: string, answer: ApiAnswer): PageNotice => ({
  kind: 'error',
  text: `${what} was refused: ${refusalsOf(answer).join(' ')}`,
});

/** The evidence as saved or submitted: text, kept as typed (line breaks shown), never markup. */
const EvidenceShown = ({ evidence }: { evidence: Evidence }) => (
  <Fields
    fields={EVIDENCE_FIELDS.map(([name, label]) => [
      label,
      evidence[name] ? <span class="evidence-text">{evidence[name]}</span> : undefined,
    ])}
  />
);

/** The evidence form: a labelled text area for each field, saved as it is or submitted (confirmed first). */
const EvidenceForm = ({ c, dispute, draft }: { c: ConsoleContext; dispute: Dispute; draft?: Evidence }) => {
  const values = { ...dispute.attributes.evidence, ...draft };
  return (
    <form method="post" action={`/console/disputes/${dispute.id}/evidence`} class="evidence">
      <CsrfField viewer={c.get('viewer')} />
      {EVIDENCE_FIELDS.map(([name, label, help]) => (
        <div class="field">
          <label for={`evidence-${name}`}>{label}</label>
          <textarea
            id={`evidence-${name}`}
            name={name}
            rows={3}
            maxlength={EVIDENCE_TEXT_MAX_LENGTH}
            aria-describedby={`evidence-${name}-help`}
          >
            {values[name] ?? ''}
          </textarea>
          <p id={`evidence-${name}-help`} class="help">
            {help}
          </p>
        </div>
      ))}
      <div class="actions">
        <button type="submit" name="action" value="save">
          Save evidence
        </button>
        <button type="submit" name="action" value="submit">
          Submit evidence…
        </button>
      </div>
    </form>
  );
};

const DisputePage = ({
  c,
  dispute,
  notice,
  draft,
}: {
  c: ConsoleContext;
  dispute: Dispute;
  notice?: PageNotice;
  draft?: Evidence;
}) => {
  const a = dispute.attributes;
  return (
    <Layout title={`Dispute ${dispute.id}`} viewer={c.get('viewer')} current="/console/disputes">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <Fields
        fields={[
          ['Status', <span class={`status ${a.status}`}>{a.status}</span>],
          ['Reason', `${a.reason} (network code ${a.networkReasonCode})`],
          ['Amount', dollars(a.amount)],
          ['Phase', a.phase],
          ['Respond by', `${when(a.dueBy)}${a.evidenceDetails.pastDue ? ' (past due)' : ''}`],
          ['Payment', <a href={`/console/payments/${a.paymentId}`}>{a.paymentId}</a>],
          ['Merchant', a.merchantId],
          ['Opened', when(a.createdAt)],
          ['Evidence submitted', a.evidenceDetails.submittedAt && when(a.evidenceDetails.submittedAt)],
          ['Closed', a.closedAt && when(a.closedAt)],
        ]}
      />
      <section aria-labelledby="evidence">
        <h2 id="evidence">{a.evidenceDetails.submittedAt ? 'Evidence submitted' : 'Evidence saved'}</h2>
        {Object.values(a.evidence).some(Boolean) ? (
          <EvidenceShown evidence={a.evidence} />
        ) : (
          <p class="empty">None yet.</p>
        )}
      </section>
      {isOpen(dispute) && (
        <>
          <section aria-labelledby="respond">
            <h2 id="respond">Respond</h2>
            <p>
              Save the evidence as you gather it; submit it once, when it is complete: the bank then decides, and it can
              no longer be changed.
            </p>
            <EvidenceForm c={c} dispute={dispute} draft={draft} />
          </section>
          <section aria-labelledby="accept">
            <h2 id="accept">Accept</h2>
            <p>{`Accepting gives up the dispute: ${dollars(a.amount)} stays with the cardholder.`}</p>
            <form method="post" action={`/console/disputes/${dispute.id}/accept`} class="action">
              <CsrfField viewer={c.get('viewer')} />
              <button type="submit">Accept…</button>
            </form>
          </section>
        </>
      )}
    </Layout>
  );
};

/** The page that asks before what cannot be undone: a form posting `confirm=yes` back to the same action. */
const Confirmation = ({
  c,
  title,
  action,
  button,
  children,
  dispute,
}: {
  c: ConsoleContext;
  title: string;
  action: string;
  button: string;
  dispute: Dispute;
  children?: Child;
}) => (
  <Layout title={title} viewer={c.get('viewer')} current="/console/disputes">
    {children}
    <form method="post" action={action} class="action">
      <CsrfField viewer={c.get('viewer')} />
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit">{button}</button>
    </form>
    <p>
      <a href={`/console/disputes/${dispute.id}`}>Cancel</a>
    </p>
  </Layout>
);

/**
 * GET /console/disputes/{id}; POST …/evidence (save, or submit: saved, then confirmed, then sent) and …/accept
 * (confirmed, then sent). Each ends in a redirect to the dispute with a notice, or the page with the API's refusal.
 */
export function registerDisputePage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/disputes/:id', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const dispute = await disputeOf(consoleApi(deps, account, c.get('requestId')), c.req.param('id'));
    if (!dispute) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    return c.html(<DisputePage c={c} dispute={dispute} notice={doneNotice(c)} />);
  });

  app.post('/console/disputes/:id/evidence', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const dispute = await disputeOf(api, c.req.param('id'));
    if (!dispute) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const form = c.get('form');
    const path = `/disputes/${dispute.id}/evidence`;
    const back = (done: Done) => c.redirect(`/console/disputes/${dispute.id}?done=${done}`, 303);

    if (form.confirm === 'yes') {
      const answer = await api.post(path, { data: { type: 'disputes', attributes: { submit: true } } });
      if (answer.status === 200) return back('submitted');
      const current = (await disputeOf(api, dispute.id)) ?? dispute;
      return c.html(<DisputePage c={c} dispute={current} notice={refused('Submitting', answer)} />, 422);
    }

    // Save first, for both buttons: what was typed is kept even if the submission is not confirmed.
    const draft = evidenceOf(form);
    const saved = await api.post<{ data: Dispute }>(path, {
      data: { type: 'disputes', attributes: { evidence: draft } },
    });
    if (saved.status !== 200) {
      const current = (await disputeOf(api, dispute.id)) ?? dispute;
      const notice = refused('Saving the evidence', saved);
      return c.html(<DisputePage c={c} dispute={current} notice={notice} draft={draft} />, 422);
    }
    if (form.action !== 'submit') return back('saved');
    const current = saved.body.data;
    return c.html(
      <Confirmation
        c={c}
        title={`Submit the evidence of ${current.id}?`}
        action={`/console/disputes/${current.id}/evidence`}
        button="Confirm submission"
        dispute={current}
      >
        <p>
          The evidence below is saved. Once submitted it goes to the bank, the dispute is under review, and the evidence
          can no longer be changed.
        </p>
        <EvidenceShown evidence={current.attributes.evidence} />
      </Confirmation>,
    );
  });

  app.post('/console/disputes/:id/accept', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const dispute = await disputeOf(api, c.req.param('id'));
    if (!dispute) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    if (c.get('form').confirm !== 'yes') {
      return c.html(
        <Confirmation
          c={c}
          title={`Accept dispute ${dispute.id}?`}
          action={`/console/disputes/${dispute.id}/accept`}
          button="Confirm acceptance"
          dispute={dispute}
        >
          <p>{`The dispute is lost: ${dollars(dispute.attributes.amount)} stays with the cardholder. This cannot be undone.`}</p>
        </Confirmation>,
      );
    }
    const answer = await api.post(`/disputes/${dispute.id}/accept`, undefined);
    if (answer.status === 200) return c.redirect(`/console/disputes/${dispute.id}?done=accepted`, 303);
    const current = (await disputeOf(api, dispute.id)) ?? dispute;
    return c.html(<DisputePage c={c} dispute={current} notice={refused('Accepting', answer)} />, 422);
  });
}
