// checkout.js: what a platform's page loads from the API (`<script src="https://<api>/checkout.js">`) to embed the
// hosted card form. It defines two globals: `mountCheckout`, and `handleNextAction` for a payment's 3-D Secure
// challenge. The form runs in an iframe on the API's origin, so the card number is typed into the API's page and
// never into the platform's (docs/api.md, Checkout).
//
//   const checkout = mountCheckout({ element: '#card', sessionId, clientSecret, onToken, onError });
//
// Messages: only from the API's origin and from the form's own window are read; the client secret is posted to the
// API's origin exactly (never in a URL), once the form has said `ready`.
(() => {
  const script = document.currentScript;
  const scriptOrigin = script?.src ? new URL(script.src).origin : null;

  /**
   * Mounts the card form into `element` (an element or a selector).
   * - `sessionId`, `clientSecret`: from POST /checkout/sessions, made by the platform's server.
   * - `onToken({tokenId, card: {brand, last4, expiry, holder}})`: a card was vaulted; charge `tokenId` server-side.
   * - `onError({code, detail, field?})`: the session expired or is used up, a field was refused by the API, or
   *   `frame_unavailable` when the form did not load in `timeoutMs` (default 10 s): for one, this page's origin is not
   *   in the session's `allowedOrigins`, so the browser refused to frame it.
   * - `onReady()`: the form is ready for the buyer. `submitLabel`: the button's text (default "Save card").
   * - `baseUrl`: the API's origin, when checkout.js is not loaded from it (a bundled copy).
   * Returns `{iframe, submit(), disable(), enable(), unmount()}`.
   */
  function mountCheckout(options) {
    const settings = options || {};
    const element =
      typeof settings.element === 'string' ? document.querySelector(settings.element) : settings.element || null;
    if (!element) throw new Error('mountCheckout: `element` is not an element of this page');
    if (typeof settings.sessionId !== 'string' || typeof settings.clientSecret !== 'string') {
      throw new Error('mountCheckout: `sessionId` and `clientSecret` (from POST /checkout/sessions) are required');
    }
    const apiOrigin = settings.baseUrl ? new URL(settings.baseUrl).origin : scriptOrigin;
    if (!apiOrigin) throw new Error('mountCheckout: load checkout.js from the API, or pass `baseUrl`');
    const onToken = typeof settings.onToken === 'function' ? settings.onToken : () => {};
    const onError = typeof settings.onError === 'function' ? settings.onError : () => {};
    const onReady = typeof settings.onReady === 'function' ? settings.onReady : () => {};

    const iframe = document.createElement('iframe');
    iframe.src = `${apiOrigin}/checkout/frame/${encodeURIComponent(settings.sessionId)}`;
    iframe.title = settings.title || 'Card details';
    // Scripts, its own origin (its API calls) and its form; no top navigation, no pop-ups.
    iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
    iframe.setAttribute('referrerpolicy', 'origin');
    iframe.style.cssText = 'display:block;width:100%;border:0;height:360px;';

    let ready = false;
    /** Held by the page (`disable()`); sent with `init` too, for a call made before the form was ready. */
    let disabled = false;
    const timer = setTimeout(() => {
      if (!ready) {
        onError({
          code: 'frame_unavailable',
          detail: "The card form did not load: is this page's origin in the checkout session's allowedOrigins?",
        });
      }
    }, settings.timeoutMs || 10_000);

    function send(message) {
      iframe.contentWindow?.postMessage(message, apiOrigin);
    }

    function onMessage(event) {
      if (event.origin !== apiOrigin || event.source !== iframe.contentWindow) return;
      const data = event.data;
      if (!data || typeof data !== 'object') return;
      switch (data.type) {
        case 'ready':
          ready = true;
          clearTimeout(timer);
          send({ type: 'init', clientSecret: settings.clientSecret, submitLabel: settings.submitLabel, disabled });
          break;
        case 'loaded':
          onReady();
          break;
        case 'token': {
          const card = data.card || {};
          onToken({
            tokenId: String(data.tokenId),
            card: { brand: card.brand, last4: card.last4, expiry: card.expiry, holder: card.holder },
          });
          break;
        }
        case 'error': {
          const error = data.error || {};
          onError({ code: String(error.code), detail: String(error.detail || ''), field: error.field });
          break;
        }
        case 'resize':
          if (typeof data.height === 'number' && data.height > 0 && data.height < 4000) {
            iframe.style.height = `${Math.ceil(data.height)}px`;
          }
          break;
      }
    }

    window.addEventListener('message', onMessage);
    element.appendChild(iframe);
    return {
      iframe,
      /** Submits the form, as its own button does (for a page with its own "Pay" button). */
      submit: () => send({ type: 'submit' }),
      /**
       * Disables the form (its fields and button) until `enable()`: while the page's server charges a token, so the
       * buyer cannot pay twice, and for good once the order is paid. An expired or used-up session stays disabled.
       */
      disable() {
        disabled = true;
        send({ type: 'disable' });
      },
      enable() {
        disabled = false;
        send({ type: 'enable' });
      },
      unmount() {
        clearTimeout(timer);
        window.removeEventListener('message', onMessage);
        iframe.remove();
      },
    };
  }

  /**
   * 3-D Secure (docs/api.md): shows the challenge page of a payment that `requires_action` in a modal dialog on this
   * page, and calls `onDone({paymentId, status})` once the cardholder has answered it and the page has sent them to
   * the payment's `returnUrl`, which must be on this page's origin: the modal reads where it ended, and closes.
   * `nextAction`: the payment's `nextAction`, as the platform's server got it. Escape closes the modal and calls
   * `onCancel()` (the payment waits, and is voided 15 minutes after it was made). Returns `{dialog, close()}`.
   */
  function handleNextAction(nextAction, options) {
    if (nextAction?.type !== 'redirect' || typeof nextAction.url !== 'string') {
      throw new Error("handleNextAction: `nextAction` is not a payment's redirect");
    }
    const { onDone, onCancel } = options || {};
    const dialog = document.createElement('dialog');
    dialog.setAttribute('aria-label', 'Confirm your payment with your bank');
    dialog.style.cssText = 'padding:0;border:0;border-radius:8px;width:min(32rem,95vw);height:min(36rem,90vh)';
    const iframe = document.createElement('iframe');
    iframe.title = 'Confirm your payment with your bank';
    iframe.src = nextAction.url;
    iframe.style.cssText = 'border:0;width:100%;height:100%';
    dialog.appendChild(iframe);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      dialog.close();
      dialog.remove();
    };
    iframe.addEventListener('load', () => {
      let href;
      try {
        // Readable only once the frame is back on this page's origin: the bank's page is another.
        href = iframe.contentWindow.location.href;
      } catch {
        return;
      }
      if (!href || href === 'about:blank') return;
      const back = new URL(href);
      const paymentId = back.searchParams.get('paymentId');
      if (!paymentId) return;
      close();
      if (typeof onDone === 'function') onDone({ paymentId, status: back.searchParams.get('status') });
    });
    dialog.addEventListener('cancel', () => {
      close();
      if (typeof onCancel === 'function') onCancel();
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    return { dialog, close };
  }

  window.mountCheckout = mountCheckout;
  window.handleNextAction = handleNextAction;
})();
