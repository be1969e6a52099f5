/**
 * Whether a request carries a body: by its headers when it has them (over a socket, reading `.body` would start
 * streaming a body nobody may want; an unread stream then stalls the keep-alive connection), else by the Request.
 */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length !== null) return length !== '0';
  return request.headers.has('transfer-encoding') || request.body !== null;
}
