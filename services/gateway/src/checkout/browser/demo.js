// The demo shop's page script (development only; services/gateway/src/checkout/demo-shop.ts). It does what a
// platform's checkout page does: asks its own server for a checkout session, mounts the API's card form with
// checkout.js, and hands the token it gets to its own server, which charges it. It never sees the card number.
(() => {
  const outcome = document.getElementById('outcome');
  const say = (text, kind) => {
    outcome.textContent = text;
    outcome.className = `outcome ${kind || ''}`;
  };
  const BRANDS = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

  async function postJson(path, body) {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body || {}),
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  }

  async function pay(token) {
    say('Card saved. Paying $10.00…');
    const paid = await postJson('/demo/checkout/pay', {
      tokenId: token.tokenId,
      holder: token.card.holder,
      expiry: token.card.expiry,
    });
    const card = `${BRANDS[token.card.brand] || 'Card'} ending in ${token.card.last4}`;
    if (paid.status === 201) {
      say(`Paid $10.00 with ${card}. Payment ${paid.body.paymentId}: ${paid.body.status}.`, 'success');
    } else {
      say(`${card} was declined (${paid.body.message || paid.body.code || 'failed'}). Try another card.`, 'failure');
    }
  }

  async function start() {
    if (typeof window.mountCheckout !== 'function') {
      say('checkout.js did not load from the API: is it running?', 'failure');
      return;
    }
    const session = await postJson('/demo/checkout/session');
    if (session.status !== 200) {
      say(`No checkout session: ${session.body.error || session.status}`, 'failure');
      return;
    }
    window.mountCheckout({
      element: '#card',
      sessionId: session.body.sessionId,
      clientSecret: session.body.clientSecret,
      submitLabel: 'Pay $10.00',
      onToken: (token) => {
        pay(token).catch(() => say('The payment could not be made: try again.', 'failure'));
      },
      onError: (error) => {
        if (!error.field) say(`${error.detail || error.code}`, 'failure');
      },
    });
  }

  start().catch(() => say('The demo shop could not start its checkout.', 'failure'));
})();
