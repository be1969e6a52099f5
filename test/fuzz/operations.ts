/** The operations of a served OpenAPI 3.1 document, in the shape the fuzzer needs. */

export type JsonSchema = Record<string, unknown>;

export type Parameter = { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema };

/**
 * Who may call an operation: the app's four headers, the admin token, only the API key, a checkout session's client
 * secret, or anyone.
 */
export type AuthKind = 'app' | 'admin' | 'apiKey' | 'clientSecret' | 'public';

export type Operation = {
  method: string;
  /** The path template, e.g. `/payments/{id}`. */
  path: string;
  id: string;
  auth: AuthKind;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body?: { schema: JsonSchema; required: boolean };
};

export type OpenApiDocument = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: Record<string, unknown>;
};

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

function authOf(path: string, security: Record<string, unknown>[] | undefined): AuthKind {
  const schemes = new Set((security ?? []).flatMap((requirement) => Object.keys(requirement)));
  if (schemes.has('adminToken')) return 'admin';
  if (schemes.has('appToken')) return 'app';
  if (schemes.has('apiKey')) return 'apiKey';
  if (schemes.has('checkoutClientSecret')) return 'clientSecret';
  // The two key exchanges take only the API key, whatever the document says of them.
  return path.startsWith('/auth/') ? 'apiKey' : 'public';
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => {
        const parameters = (operation.parameters ?? []) as Parameter[];
        const requestBody = operation.requestBody as
          | { required?: boolean; content?: Record<string, { schema?: JsonSchema }> }
          | undefined;
        const schema = requestBody?.content?.['application/json']?.schema;
        return {
          method: method.toUpperCase(),
          path,
          id: (operation.operationId as string | undefined) ?? `${method.toUpperCase()} ${path}`,
          auth: authOf(path, operation.security as Record<string, unknown>[] | undefined),
          pathParams: parameters.filter((parameter) => parameter.in === 'path'),
          queryParams: parameters.filter((parameter) => parameter.in === 'query'),
          body: schema ? { schema, required: requestBody?.required ?? false } : undefined,
        };
      }),
  );
}
