import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { apiTags, securitySchemes } from '@pps/shared/contract';
import type { Env, Hono } from 'hono';
import { faviconIco } from './favicon';

/** The merged OpenAPI 3.1 document of every route in the shared contract (`npm run lint:openapi` lints it). */
export function buildOpenApiDocument(routes: RouteConfig[], serverUrl: string) {
  const registry = new OpenAPIHono();
  for (const [name, scheme] of Object.entries(securitySchemes)) {
    registry.openAPIRegistry.registerComponent('securitySchemes', name, scheme);
  }
  // A route's own middleware (e.g. `optionalBody()`) is the server's business, not the document's: left out, as
  // `OpenAPIHono.openapi()` leaves it out.
  for (const { middleware: _middleware, ...route } of routes) registry.openAPIRegistry.registerPath(route);
  return registry.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Payment Processing Service',
      version: '1.0.0',
      description:
        'Onboard merchants and take card, split and ACH payments for them. Authenticated calls need four headers: ' +
        '`Authorization: Bearer <app token>`, `x-api-key`, `appId` and, with a body, `Content-Type: application/json`.',
      // Not open source (the repository carries no licence). `identifier` is OpenAPI 3.1's SPDX field; the
      // library types `info` as 3.0's, which lacks it.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as { name: string },
    },
    servers: [{ url: serverUrl, description: 'This deployment (PUBLIC_BASE_URL)' }],
    tags: apiTags,
  });
}

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Payment Processing Service API</title>
  <link rel="icon" href="/favicon.ico" />
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/openapi.json', dom_id: '#docs', deepLinking: true, persistAuthorization: true,
      // Nothing leaves the server: no request to swagger.io's online validator.
      validatorUrl: null,
    });
  </script>
</body>
</html>`;

/**
 * `/openapi.json` and `/docs`: the interactive reference, served from this process (no CDN, no request off the
 * machine), and the `/favicon.ico` every browser asks the gateway for.
 */
export function registerDocsRoutes<E extends Env>(app: Hono<E>, routes: RouteConfig[], serverUrl: string) {
  const document = buildOpenApiDocument(routes, serverUrl);
  const assets = swaggerUiFolder();
  const files: Record<string, { type: string; body?: string }> = {
    'swagger-ui.css': { type: 'text/css; charset=utf-8' },
    'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8' },
  };
  app.get('/openapi.json', (c) => c.json(document));
  app.get('/docs', (c) => c.html(DOCS_HTML));
  const icon = faviconIco();
  app.get('/favicon.ico', (c) =>
    c.body(new Uint8Array(icon), 200, { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400' }),
  );
  app.get('/docs/assets/:file', (c) => {
    const file = files[c.req.param('file')];
    if (!file) return c.notFound();
    file.body ??= readFileSync(join(assets, c.req.param('file')), 'utf8');
    return c.body(file.body, 200, { 'content-type': file.type, 'cache-control': 'public, max-age=86400' });
  });
}

/**
 * Where swagger-ui-dist's files are. Not `getAbsoluteFSPath` from the package's main module: importing that also
 * evaluates the 1.4 MB browser bundle in this process: 12 MB of resident memory at idle, for nothing
 * (docs/decisions.md, "Performance of the payment path").
 */
const swaggerUiFolder = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
