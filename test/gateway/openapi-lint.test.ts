import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatProblems, lintOpenApi } from '../../scripts/lint-openapi';
import { createTestStack, type TestStack } from '../harness';

/** The OpenAPI document as the gateway serves it, linted with Redocly's `recommended` ruleset (docs/decisions.md). */

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  tags?: { name: string; description?: string }[];
  components?: { securitySchemes?: Record<string, unknown> };
};

let stack: TestStack;
let document: Document;
let operations: { name: string; operation: Operation }[];

beforeAll(async () => {
  // Served as a deployment serves it: PUBLIC_BASE_URL names the document's server (its localhost default is for
  // development, and `no-server-example.com` rightly flags a published document pointing there).
  stack = await createTestStack({ env: { PUBLIC_BASE_URL: 'https://pps.invalid' } });
  const res = await stack.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
  );
});
afterAll(() => stack?.close());

const errorDocument = { $ref: '#/components/schemas/ErrorDocument' };

describe('the served OpenAPI document', () => {
  it('lints clean under Redocly recommended: no errors, no warnings', async () => {
    const problems = await lintOpenApi(document);
    expect(problems, `OpenAPI lint problems:\n${formatProblems(problems)}`).toEqual([]);
  });

  it('gives every operation a unique camelCase operationId', () => {
    expect(operations.length).toBeGreaterThan(30);
    const missing = operations.filter(({ operation }) => !operation.operationId).map(({ name }) => name);
    expect(missing, 'operations without operationId').toEqual([]);
    const ids = operations.map(({ operation }) => operation.operationId as string);
    expect(
      ids.filter((id, index) => ids.indexOf(id) !== index),
      'repeated operationIds',
    ).toEqual([]);
    expect(
      ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id)),
      'operationIds not in camelCase',
    ).toEqual([]);
  });

  it('declares security on every operation, naming defined schemes', () => {
    const schemes = Object.keys(document.components?.securitySchemes ?? {});
    for (const { name, operation } of operations) {
      expect(Array.isArray(operation.security), `${name} declares security`).toBe(true);
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) expect(schemes, `${name}: ${scheme}`).toContain(scheme);
      }
    }
  });

  it('documents 400, 413 and 415 on JSON bodies, 401 on authenticated calls, 429 with Retry-After on account calls', () => {
    const errorResponse = (name: string, operation: Operation, status: string) => {
      const response = operation.responses[status];
      expect(response, `${name} documents ${status}`).toBeDefined();
      expect(response?.content?.['application/json']?.schema, `${name} ${status} is an error document`).toEqual(
        errorDocument,
      );
      return response;
    };
    for (const { name, operation } of operations) {
      expect(
        Object.keys(operation.responses).some((status) => /^4\d\d$/.test(status)),
        `${name} documents a 4xx`,
      ).toBe(true);
      if (operation.requestBody?.content?.['application/json']) {
        for (const status of ['400', '413', '415']) errorResponse(name, operation, status);
      }
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      if (schemes.length > 0) errorResponse(name, operation, '401');
      // The rate limits count accounts (and failed authentications); operator calls are neither.
      if (schemes.some((scheme) => scheme !== 'adminToken')) {
        expect(errorResponse(name, operation, '429')?.headers, `${name} 429 has Retry-After`).toHaveProperty(
          'Retry-After',
        );
      }
    }
  });

  it('refuses unknown members in every object of every request body (additionalProperties: false)', () => {
    type Schema = {
      $ref?: string;
      type?: string | string[];
      properties?: Record<string, Schema>;
      additionalProperties?: unknown;
      items?: Schema;
      oneOf?: Schema[];
      anyOf?: Schema[];
      allOf?: Schema[];
    };
    const components = (document.components as { schemas?: Record<string, Schema> }).schemas ?? {};
    const open: string[] = [];
    const walk = (schema: Schema | undefined, at: string, seen: Set<string>) => {
      if (!schema) return;
      if (schema.$ref) {
        const name = schema.$ref.replace('#/components/schemas/', '');
        if (!seen.has(name)) walk(components[name], at, new Set([...seen, name]));
        return;
      }
      if (schema.properties) {
        if (schema.additionalProperties !== false) open.push(at || '/');
        for (const [key, value] of Object.entries(schema.properties)) walk(value, `${at}/${key}`, seen);
      }
      walk(schema.items, `${at}/0`, seen);
      for (const part of [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])])
        walk(part, at, seen);
    };
    let bodies = 0;
    for (const { name, operation } of operations) {
      const schema = (operation.requestBody?.content?.['application/json'] as { schema?: Schema } | undefined)?.schema;
      if (!schema) continue;
      bodies++;
      const before = open.length;
      walk(schema, '', new Set());
      for (let index = before; index < open.length; index++) open[index] = `${name} ${open[index]}`;
    }
    expect(bodies).toBeGreaterThan(15);
    expect(open, 'request-body objects that would ignore an unknown member').toEqual([]);
  });

  it('describes every tag the operations use', () => {
    const described = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
    for (const { name, operation } of operations) {
      for (const tag of operation.tags ?? []) expect(described.get(tag), `${name}: tag ${tag}`).toBeTruthy();
    }
  });
});
