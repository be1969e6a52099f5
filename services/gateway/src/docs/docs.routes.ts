import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Env, Hono } from 'hono';
import { getAbsoluteFSPath } from 'swagger-ui-dist';

/** The merged OpenAPI 3.1 document of every route in the shared contract. */
export function buildOpenApiDocument(routes: RouteConfig[], serverUrl: string) {
  const registry = new OpenAPIHono();
  registry.openAPIRegistry.registerComponent('securitySchemes', 'appToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  registry.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
  });
  registry.openAPIRegistry.registerComponent('securitySchemes', 'appId', {
    type: 'apiKey',
    in: 'header',
    name: 'appId',
  });
  registry.openAPIRegistry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer' });
  for (const route of routes) registry.openAPIRegistry.registerPath(route);
  return registry.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Payment Processing Service',
      version: '1.0.0',
      description:
        'Onboard merchants and take card, split and ACH payments for them. Authenticated calls need four headers: ' +
        '`Authorization: Bearer <app token>`, `x-api-key`, `appId` and, with a body, `Content-Type: application/json`.',
    },
    servers: [{ url: serverUrl }],
  });
}

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Payment Processing Service API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true, persistAuthorization: true });
  </script>
</body>
</html>`;

/** `/openapi.json` and `/docs`: the interactive reference, served from this process (no CDN). */
export function registerDocsRoutes<E extends Env>(app: Hono<E>, routes: RouteConfig[], serverUrl: string) {
  const document = buildOpenApiDocument(routes, serverUrl);
  const assets = getAbsoluteFSPath();
  const files: Record<string, { type: string; body?: string }> = {
    'swagger-ui.css': { type: 'text/css; charset=utf-8' },
    'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8' },
  };
  app.get('/openapi.json', (c) => c.json(document));
  app.get('/docs', (c) => c.html(DOCS_HTML));
  app.get('/docs/assets/:file', (c) => {
    const file = files[c.req.param('file')];
    if (!file) return c.notFound();
    file.body ??= readFileSync(join(assets, c.req.param('file')), 'utf8');
    return c.body(file.body, 200, { 'content-type': file.type, 'cache-control': 'public, max-age=86400' });
  });
}
