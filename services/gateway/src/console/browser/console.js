// The console's script: only enhancements. Every page works with its forms before this runs (or without it).
// Loaded from this origin with `defer`; the Content-Security-Policy allows no inline script and no eval.

(() => {
  // A filter change submits the filter form at once (the Filter button stays for keyboards and no-script use).
  for (const select of document.querySelectorAll('form.filters select')) {
    select.addEventListener('change', () => select.form?.requestSubmit());
  }
})();
