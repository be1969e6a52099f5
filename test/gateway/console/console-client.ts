import type { TestStack } from '../../harness';

/** A browser in miniature for the console's in-process tests: a cookie jar, forms posted as a browser posts them. */
export function consoleClient(stack: TestStack) {
  const cookies = new Map<string, string>();
  const setCookies: string[] = [];
  async function request(method: 'GET' | 'POST', path: string, form?: Record<string, string>) {
    const headers: Record<string, string> = {};
    if (cookies.size > 0) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const response = await stack.gateway.request(path, { method, headers, body });
    for (const line of response.headers.getSetCookie()) {
      setCookies.push(line);
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (!name) continue;
      if (/max-age=0/i.test(line) || value.join('=') === '') cookies.delete(name.trim());
      else cookies.set(name.trim(), value.join('='));
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
  /** The value of a hidden field of the last form on a page (the CSRF token, an idempotency key). */
  const hidden = (html: string, name: string) =>
    [...html.matchAll(new RegExp(`name="${name}" value="([^"]*)"`, 'g'))].at(-1)?.[1] ?? '';
  return {
    cookies,
    setCookies,
    get: (path: string) => request('GET', path),
    post: (path: string, form: Record<string, string>) => request('POST', path, form),
    hidden,
    async signIn(key: string) {
      const page = await request('GET', '/console/sign-in');
      return request('POST', '/console/sign-in', { _csrf: hidden(page.text, '_csrf'), key });
    },
  };
}
