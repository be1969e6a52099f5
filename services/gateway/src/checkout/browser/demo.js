// The demo shop's page script (development only; services/gateway/src/checkout/demo-shop.ts). It does what a
// platform's checkout page does: asks its own server for a checkout session, mounts the API's card form with
// checkout.js, and hands the token it gets to its own server, which charges the order with it. It never sees the
// card number. The order is paid once: the form is disabled while a payment is under way and removed once paid (the
// confirmation and the payment's id alone remain, as the server renders a paid order's page), and the shop's server
// answers any later payment of a paid order with that payment (a reload, a second tab, a retry).
(() => {
  const shop = document.getElementById('shop');
  const orderId = shop.dataset.order;
  const outcome = document.getElementById('outcome');
  const say = (text, kind) => {
    outcome.textContent = text;
    outcome.className = `outcome ${kind || ''}`;
  };
  const BRANDS = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

  let checkout = null;
  let paying = false;
  let paid = shop.dataset.state === 'paid';

  async function postJson(path, body) {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body || {}),
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  }

  /**
   * The order is paid (here, or in another tab): the card form goes, and the confirmation with the payment's id alone
   * remains. Focus moves to its heading: it was in the form, which is gone.
   */
  function showPaid(answer) {
    paid = true;
    checkout?.unmount();
    checkout = null;
    document.getElementById('card').hidden = true;
    document.getElementById('cards').hidden = true;
    say(answer.message, 'success');
    document.getElementById('payment-id').textContent = answer.paymentId;
    document.getElementById('payment').hidden = false;
    document.getElementById('next').hidden = false;
    const title = document.getElementById('payment-title');
    title.textContent = 'Payment';
    title.focus();
  }

  async function pay(token) {
    if (paying || paid) return;
    paying = true;
    checkout.disable();
    say('Paying $10.00…');
    const card = `${BRANDS[token.card.brand] || 'Card'} ending in ${token.card.last4}`;
    try {
      const answer = await postJson('/demo/checkout/pay', {
        orderId,
        tokenId: token.tokenId,
        holder: token.card.holder,
        expiry: token.card.expiry,
      });
      if (answer.body.outcome === 'paid') {
        showPaid(answer.body);
      } else if (answer.body.outcome === 'declined') {
        say(`${card} was declined (${answer.body.message}). Try another card.`, 'failure');
      } else {
        say(answer.body.message || answer.body.error || 'The payment could not be made: try again.', 'failure');
      }
    } catch {
      say(
        'The shop could not be reached to confirm the payment. Try again: your order is never charged twice.',
        'failure',
      );
    } finally {
      paying = false;
      if (!paid) checkout?.enable();
    }
  }

  async function start() {
    if (paid) return; // the shop's server rendered the confirmation: nothing to pay
    if (typeof window.mountCheckout !== 'function') {
      say('checkout.js did not load from the API: is it running?', 'failure');
      return;
    }
    const session = await postJson('/demo/checkout/session', { orderId });
    if (session.body.outcome === 'paid') {
      showPaid(session.body);
      return;
    }
    if (session.status !== 200) {
      say(`No checkout session: ${session.body.error || session.status}`, 'failure');
      return;
    }
    checkout = window.mountCheckout({
      element: '#card',
      sessionId: session.body.sessionId,
      clientSecret: session.body.clientSecret,
      submitLabel: 'Pay $10.00',
      onToken: (token) => {
        pay(token);
      },
      onError: (error) => {
        if (!error.field) say(`${error.detail || error.code}`, 'failure');
      },
    });
  }

  start().catch(() => say('The demo shop could not start its checkout.', 'failure'));
})();
