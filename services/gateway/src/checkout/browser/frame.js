// The hosted card form (GET /checkout/frame/{sessionId}), running inside the platform's iframe on the API's origin.
// Plain JavaScript, no framework, no build step (docs/decisions.md, Checkout). Handshake: this page posts `ready` to
// its parent; the parent (checkout.js) posts `{type: 'init', clientSecret}` to this origin exactly; `init` is accepted
// only from the parent window and only from an origin the session allows, and from then on every message goes to that
// origin only. The card number and security code never leave this page except in the POST to this origin: the parent
// receives `{tokenId, card: {brand, last4, expiry, holder}}`. The parent may then post `disable` and `enable` (the
// page's `checkout.disable()` while it charges the token, and for good once paid).
(() => {
  const root = document.getElementById('checkout');
  const sessionId = root.dataset.session;
  const allowedOrigins = JSON.parse(root.dataset.origins || '[]');
  const form = document.getElementById('card-form');
  const fieldset = document.getElementById('card-fields');
  const alertBox = document.getElementById('form-alert');
  const statusBox = document.getElementById('form-status');
  const submitButton = document.getElementById('submit');
  const brandBox = document.getElementById('number-brand');
  const inputs = {
    holder: document.getElementById('holder'),
    number: document.getElementById('number'),
    expiry: document.getElementById('expiry'),
    code: document.getElementById('code'),
  };
  const FIELDS = ['holder', 'number', 'expiry', 'code'];

  let clientSecret = null;
  let parentOrigin = null;
  let locked = root.dataset.state !== 'open';
  let busy = false;
  /** Held by the page (`checkout.disable()`): while it charges a token, or for good once it has been paid. */
  let held = false;
  /**
   * The page gave the button its own label (a payment: "Pay $10.00"): it says what became of the card (paid,
   * declined), so the form never says "Card saved", which a decline would follow. Under "Save card" it does.
   */
  let pageLabel = false;

  // ——— card rules: the buyer's convenience; the API checks everything again (same codes as POST /tokens) ———

  const digitsOf = (value) => value.replace(/\D/g, '');

  function luhnValid(digits) {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) {
        digit *= 2;
        if (digit > 9) digit -= 9;
      }
      sum += digit;
    }
    return digits.length > 0 && sum % 10 === 0;
  }

  /** Visa 4; Mastercard 51–55, 2221–2720; Amex 34, 37; Discover 6011, 65, 644–649 (as the API). */
  function brandOf(digits) {
    const two = Number(digits.slice(0, 2));
    const three = Number(digits.slice(0, 3));
    const four = Number(digits.slice(0, 4));
    if (digits.startsWith('4')) return 'visa';
    if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
    if (two === 34 || two === 37) return 'amex';
    if (four === 6011 || two === 65 || (three >= 644 && three <= 649)) return 'discover';
    return 'unknown';
  }

  const BRAND_NAMES = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };
  /** The usual length (checked as soon as it is reached) and the most digits a brand's numbers have. */
  const usualLength = (brand) => (brand === 'amex' ? 15 : 16);
  const maxLength = (brand) => (brand === 'amex' ? 15 : 19);
  const groupsOf = (brand) => (brand === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3]);

  function groupDigits(digits, brand) {
    const parts = [];
    let at = 0;
    for (const size of groupsOf(brand)) {
      if (at >= digits.length) break;
      parts.push(digits.slice(at, at + size));
      at += size;
    }
    return parts.join(' ');
  }

  function formatExpiry(digits, typedSeparator) {
    let value = digits;
    // "4" can only be April: 04.
    if (value.length === 1 && value > '1') value = `0${value}`;
    if (value.length > 2 || (value.length === 2 && typedSeparator))
      return `${value.slice(0, 2)} / ${value.slice(2, 4)}`;
    return value;
  }

  /** Each check returns '' or what to tell the buyer. `final`: on leaving the field or submitting, not while typing. */
  const checks = {
    holder(final) {
      if (!final) return '';
      return inputs.holder.value.trim() === '' ? 'Enter the name on the card.' : '';
    },
    number(final) {
      const digits = digitsOf(inputs.number.value);
      const brand = brandOf(digits);
      if (digits.length === 0) return final ? 'Enter the card number.' : '';
      if (digits.length < usualLength(brand) && !final) return '';
      if (digits.length < 12) return 'The card number is incomplete.';
      if (!luhnValid(digits)) {
        return digits.length < usualLength(brand)
          ? 'The card number is incomplete.'
          : 'This card number is not valid: check the digits.';
      }
      return '';
    },
    expiry(final) {
      const digits = digitsOf(inputs.expiry.value);
      if (digits.length === 0) return final ? 'Enter the expiry date.' : '';
      const month = Number(digits.slice(0, 2));
      if (digits.length >= 2 && (month < 1 || month > 12)) return 'The month must be between 01 and 12.';
      if (digits.length < 4) return final ? 'Enter the expiry date as MM / YY.' : '';
      const year = 2000 + Number(digits.slice(2, 4));
      const now = new Date();
      if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) {
        return 'This card has expired.';
      }
      return '';
    },
    code(final) {
      const digits = digitsOf(inputs.code.value);
      const amex = brandOf(digitsOf(inputs.number.value)) === 'amex';
      if (!final) return '';
      if (digits.length === 0) return 'Enter the security code.';
      if (amex && digits.length !== 4) return 'An American Express security code has 4 digits.';
      if (digits.length < 3) return 'The security code has 3 or 4 digits.';
      return '';
    },
  };

  // ——— showing errors: the message in the field's aria-live element, aria-invalid on the input ———

  function showError(field, message) {
    const input = inputs[field];
    const box = document.getElementById(`${field}-error`);
    if (box.textContent !== message) box.textContent = message;
    input.setAttribute('aria-invalid', message ? 'true' : 'false');
    input.closest('.field').classList.toggle('invalid', Boolean(message));
  }

  function showAlert(message) {
    alertBox.textContent = message;
    alertBox.hidden = !message;
  }

  /** Rewrites an input's value, keeping the caret after the same number of digits. */
  function rewrite(input, value) {
    if (input.value === value) return;
    const caret = input.selectionStart ?? input.value.length;
    const digitsBefore = digitsOf(input.value.slice(0, caret)).length;
    input.value = value;
    let at = 0;
    for (let seen = 0; at < value.length && seen < digitsBefore; at++) if (/\d/.test(value[at])) seen++;
    if (document.activeElement === input) input.setSelectionRange(at, at);
  }

  inputs.number.addEventListener('input', () => {
    let digits = digitsOf(inputs.number.value);
    const brand = brandOf(digits);
    digits = digits.slice(0, maxLength(brand));
    rewrite(inputs.number, groupDigits(digits, brand));
    const name = digits.length > 0 ? BRAND_NAMES[brand] || '' : '';
    if (brandBox.textContent !== name) brandBox.textContent = name;
    showError('number', checks.number(false));
    if (document.getElementById('code-error').textContent) showError('code', checks.code(true));
  });

  inputs.expiry.addEventListener('input', (event) => {
    const typedSeparator = event.data === '/' || event.data === ' ';
    const deleting = event.inputType?.startsWith('delete');
    const digits = digitsOf(inputs.expiry.value).slice(0, 4);
    rewrite(
      inputs.expiry,
      // Deleting: the buyer's edit stands, less a separator left dangling at the end ("12 / " → "12").
      deleting
        ? inputs.expiry.value.replace(/[^\d/ ]/g, '').replace(/[\s/]+$/, '')
        : formatExpiry(digits, typedSeparator),
    );
    showError('expiry', checks.expiry(false));
  });

  inputs.code.addEventListener('input', () => {
    rewrite(inputs.code, digitsOf(inputs.code.value).slice(0, 4));
    if (document.getElementById('code-error').textContent) showError('code', checks.code(true));
  });

  inputs.holder.addEventListener('input', () => {
    if (document.getElementById('holder-error').textContent) showError('holder', checks.holder(true));
  });

  for (const field of FIELDS) {
    inputs[field].addEventListener('blur', () => {
      if (inputs[field].value.trim() !== '') showError(field, checks[field](true));
    });
  }

  // ——— the parent page ———

  function post(message) {
    if (parentOrigin) window.parent.postMessage(message, parentOrigin);
  }

  /**
   * Where `ready` goes before the parent is known: the parent's origin when the browser tells it (and it is allowed),
   * else every allowed origin (a message to another origin is dropped by the browser). frame-ancestors already
   * guarantees the parent is one of them.
   */
  function readyTargets() {
    const ancestor = window.location.ancestorOrigins?.[0];
    if (ancestor && allowedOrigins.includes(ancestor)) return [ancestor];
    try {
      const referrer = document.referrer ? new URL(document.referrer).origin : '';
      if (allowedOrigins.includes(referrer)) return [referrer];
    } catch {
      // no referrer to go by
    }
    return allowedOrigins;
  }

  function reportHeight() {
    post({ type: 'resize', height: Math.ceil(document.documentElement.getBoundingClientRect().height) });
  }

  const SESSION_MESSAGES = {
    checkout_session_expired: 'This checkout session has expired. Reload the page to start again.',
    checkout_session_token_limit: 'This checkout session cannot save any more cards. Reload the page to start again.',
    checkout_session_not_found: 'This payment form is not available.',
    invalid_client_secret: 'This payment form is not set up correctly.',
    missing_client_secret: 'This payment form is not set up correctly.',
    account_disabled: 'This payment form is not available.',
  };

  /** The form can do nothing more: say why, and tell the parent. */
  function lock(code, detail) {
    locked = true;
    fieldset.disabled = true;
    showAlert(SESSION_MESSAGES[code] || detail);
    post({ type: 'error', error: { code, detail } });
  }

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || !allowedOrigins.includes(event.origin)) return;
    const data = event.data;
    if (!data || typeof data !== 'object') return;
    if (data.type === 'init' && clientSecret === null && typeof data.clientSecret === 'string') {
      clientSecret = data.clientSecret;
      parentOrigin = event.origin;
      if (typeof data.submitLabel === 'string' && data.submitLabel.trim()) {
        submitButton.textContent = data.submitLabel.trim().slice(0, 40);
        pageLabel = true;
      }
      if (typeof ResizeObserver === 'function') new ResizeObserver(reportHeight).observe(document.documentElement);
      reportHeight();
      if (locked) {
        const code = root.dataset.state === 'expired' ? 'checkout_session_expired' : 'checkout_session_token_limit';
        lock(code, SESSION_MESSAGES[code]);
        return;
      }
      held = data.disabled === true;
      fieldset.disabled = held;
      post({ type: 'loaded' });
    } else if (data.type === 'submit' && event.origin === parentOrigin && !locked && !held) {
      form.requestSubmit();
    } else if ((data.type === 'disable' || data.type === 'enable') && event.origin === parentOrigin && !locked) {
      held = data.type === 'disable';
      fieldset.disabled = held;
    }
  });

  // ——— submitting ———

  const POINTERS = {
    '/data/attributes/card/holder': 'holder',
    '/data/attributes/card/number': 'number',
    '/data/attributes/card/expiry': 'expiry',
    '/data/attributes/card/code': 'code',
  };
  const FIELD_MESSAGES = {
    invalid_card_number: 'This card number is not valid: check the digits.',
    invalid_expiry: 'Enter the expiry date as MM / YY.',
    card_expired: 'This card has expired.',
    invalid_security_code: 'Enter the 3- or 4-digit security code (4 for American Express).',
  };

  function focusFirstInvalid() {
    const field = FIELDS.find((name) => inputs[name].getAttribute('aria-invalid') === 'true');
    if (field) inputs[field].focus();
  }

  /** The API's errors: field errors under their fields (by pointer, as POST /tokens gives them), the rest above. */
  function showApiErrors(status, errors) {
    let fieldErrors = 0;
    for (const error of errors) {
      const field = POINTERS[error.source?.pointer];
      if (field) {
        fieldErrors++;
        showError(
          field,
          FIELD_MESSAGES[error.code] || (field === 'holder' ? 'Enter the name on the card.' : error.detail),
        );
        post({ type: 'error', error: { code: error.code, detail: error.detail, field } });
      }
    }
    if (fieldErrors > 0) {
      focusFirstInvalid();
      return;
    }
    const first = errors[0] || { code: `http_${status}`, detail: 'The card could not be saved.' };
    if (SESSION_MESSAGES[first.code]) return lock(first.code, first.detail);
    showAlert(
      status === 429 ? 'Too many attempts: wait a minute, then try again.' : 'The card could not be saved. Try again.',
    );
    post({ type: 'error', error: { code: first.code, detail: first.detail } });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (clientSecret === null || locked || busy || held) return;
    showAlert('');
    let invalid = 0;
    for (const field of FIELDS) {
      const message = checks[field](true);
      showError(field, message);
      if (message) invalid++;
    }
    if (invalid > 0) {
      statusBox.textContent =
        invalid === 1 ? 'One field needs your attention.' : `${invalid} fields need your attention.`;
      focusFirstInvalid();
      return;
    }
    const expiryDigits = digitsOf(inputs.expiry.value);
    const body = {
      data: {
        type: 'tokens',
        attributes: {
          tokenType: 'card',
          card: {
            holder: inputs.holder.value.trim(),
            number: digitsOf(inputs.number.value),
            expiry: expiryDigits,
            code: digitsOf(inputs.code.value),
          },
        },
      },
    };
    busy = true;
    submitButton.disabled = true;
    form.setAttribute('aria-busy', 'true');
    statusBox.textContent = pageLabel ? 'Sending your card…' : 'Saving your card…';
    try {
      const response = await fetch(`/checkout/sessions/${encodeURIComponent(sessionId)}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-client-secret': clientSecret },
        body: JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
      const document_ = await response.json().catch(() => null);
      if (response.status === 201 && document_?.data) {
        const card = document_.data.attributes.card;
        inputs.number.value = '';
        inputs.code.value = '';
        inputs.expiry.value = '';
        brandBox.textContent = '';
        statusBox.textContent = pageLabel
          ? ''
          : `Card saved: ${BRAND_NAMES[card.brand] || 'card'} ending in ${card.last4}.`;
        post({
          type: 'token',
          tokenId: document_.data.id,
          card: { brand: card.brand, last4: card.last4, expiry: card.expiry, holder: card.holder },
        });
      } else {
        statusBox.textContent = '';
        showApiErrors(response.status, Array.isArray(document_?.errors) ? document_.errors : []);
      }
    } catch {
      statusBox.textContent = '';
      showAlert('The card could not be sent: check your connection and try again.');
      post({ type: 'error', error: { code: 'network_error', detail: 'The card form could not reach the API' } });
    } finally {
      busy = false;
      submitButton.disabled = false;
      form.removeAttribute('aria-busy');
    }
  });

  // ——— start ———

  if (window.parent === window) {
    // Not framed: this page is only ever a part of a checkout page.
    locked = true;
    showAlert('This card form works inside a checkout page only.');
    return;
  }
  for (const origin of readyTargets()) window.parent.postMessage({ type: 'ready' }, origin);
})();
