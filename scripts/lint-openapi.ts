import { pathToFileURL } from 'node:url';
import { buildOpenApiDocument } from '@pps/gateway';
import { allRoutes } from '@pps/shared/contract';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';

/**
 * The one ambiguity the API lives with: the spec's `GET /payments/status/{id}` has a word where every other payment
 * path has the id, so each `/payments/{id}/<word>` also reads as `/payments/status/<word>`. No payment id is
 * `status` (ids are `pay_…`) and the payments service registers the status route first, so such a path means one
 * thing (docs/decisions.md). Redocly names the pair in either order. Any other ambiguous pair is still a problem.
 */
const acceptedAmbiguity =
  /^Paths should resolve unambiguously\. Found two ambiguous paths: (?:`\/payments\/status\/\{id\}` and `\/payments\/\{id\}\/[a-z-]+`|`\/payments\/\{id\}\/[a-z-]+` and `\/payments\/status\/\{id\}`)\.$/;

const accepted = (problem: NormalizedProblem) =>
  problem.ruleId === 'no-ambiguous-paths' && acceptedAmbiguity.test(problem.message);

/**
 * Redocly's `recommended` ruleset over an OpenAPI document (test/gateway/openapi-lint.test.ts lints the one the
 * gateway serves). Warnings count as problems too.
 */
export async function lintOpenApi(document: object): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  return problems.filter((problem) => !accepted(problem));
}

/** One line per problem: severity, rule, where, what. */
export const formatProblems = (problems: NormalizedProblem[]) =>
  problems
    .map((problem) => {
      const where = problem.location.map((location) => location.pointer ?? '').join(', ');
      return `${problem.severity} ${problem.ruleId} ${where}: ${problem.message}`;
    })
    .join('\n');

/**
 * `npm run lint:openapi`: builds the document `/openapi.json` serves (buildOpenApiDocument over the contract's
 * routes) and lints it; exits 1 on any problem. The server is PUBLIC_BASE_URL when set; its localhost default is
 * for development only and draws `no-server-example.com`, so without it a placeholder public URL stands in.
 */
async function main() {
  const serverUrl = process.env.PUBLIC_BASE_URL?.replace(/\/+$/, '') || 'https://pps.invalid';
  const document = buildOpenApiDocument(allRoutes, serverUrl);
  const operations = Object.values(document.paths ?? {}).flatMap((item) => Object.keys(item ?? {})).length;
  const problems = await lintOpenApi(document);
  if (problems.length > 0) {
    console.error(formatProblems(problems));
    console.error(
      `\n${problems.length} problem(s) in the OpenAPI document (${operations} operations, server ${serverUrl})`,
    );
    process.exit(1);
  }
  console.log(`OpenAPI document: ${operations} operations, no problems (Redocly recommended, server ${serverUrl})`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
