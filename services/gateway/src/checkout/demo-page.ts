/** The demo shop's page (demo-shop.ts): an order, and its card form or, once paid, its confirmation alone. */

export const PRICE = '$10.00';

/** The pages' icon, inline (`img-src data:`): no /favicon.ico request, which would be a 404. */
const ICON = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='#3b2a20'/><path d='M8 3c-2 2-2 8 0 10' stroke='#f4f1ea' stroke-width='1.5' fill='none'/></svg>",
)}`;

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const hiddenUnless = (shown: boolean) => (shown ? '' : ' hidden');

export type PageOrder = { id: string; reference: string; paid?: { message: string; paymentId: string } };

/**
 * The checkout page of an order. Paid, it is the confirmation with the payment's id and no card form; open, the card
 * form goes into `#card`, and demo.js turns the page into the same confirmation once the order is paid.
 */
export function demoPage(shop: { origin: string; apiBaseUrl: string; merchant: string; order: PageOrder }): string {
  const { order } = shop;
  const paid = order.paid;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Demo shop: embedded checkout</title>
  <link rel="icon" href="${ICON}">
  <link rel="stylesheet" href="/demo/assets/demo.css">
  <script src="${escapeHtml(shop.apiBaseUrl)}/checkout.js" defer></script>
  <script src="/demo/assets/demo.js" defer></script>
</head>
<body>
  <header class="bar">
    <strong>${escapeHtml(shop.merchant)}</strong>
    <span>a demo shop at ${escapeHtml(shop.origin)}</span>
  </header>
  <main id="shop" class="shop" data-order="${escapeHtml(order.id)}" data-state="${paid ? 'paid' : 'open'}">
    <section class="order" aria-labelledby="order-title">
      <h1 id="order-title">Your order</h1>
      <p class="reference">Order ${escapeHtml(order.reference)}</p>
      <ul class="lines"><li><span>House blend, 250 g</span><span>${PRICE}</span></li></ul>
      <p class="total"><span>Total</span><span>${PRICE}</span></p>
      <p class="note">This page belongs to the shop (${escapeHtml(shop.origin)}). The card form is the API's
        (${escapeHtml(shop.apiBaseUrl)}), in an iframe: the card number never reaches this page or the shop's
        server, which gets a vault token and charges the order with it, once.</p>
    </section>
    <section class="payment" aria-labelledby="payment-title">
      <h2 id="payment-title" tabindex="-1">${paid ? 'Payment' : 'Pay by card'}</h2>
      <div id="card"${hiddenUnless(!paid)}></div>
      <div id="outcome" class="outcome${paid ? ' success' : ''}" role="status" aria-live="polite">${paid ? escapeHtml(paid.message) : ''}</div>
      <div id="payment" class="payment-id"${hiddenUnless(Boolean(paid))}>
        <p>Payment id <code id="payment-id">${paid ? escapeHtml(paid.paymentId) : ''}</code></p>
        <p class="hint">In the API: <code>GET /payments/{id}</code> with the export line <code>npm start</code> printed
          for the account this shop charges.</p>
      </div>
      <p id="next" class="next"${hiddenUnless(Boolean(paid))}><a href="/demo/checkout">Start a new order</a></p>
      <p id="cards" class="cards"${hiddenUnless(!paid)}>Sandbox cards: <code>4242 4242 4242 4242</code> approved, <code>4000 0000 0000 0002</code>
        declined; any future expiry, any 3 digits.</p>
    </section>
  </main>
</body>
</html>
`;
}
