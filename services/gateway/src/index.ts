// What the one-process start, the CLI and the tools use of the gateway (import from `@pps/gateway`); the HTTP app
// is `@pps/gateway/app`.

export { createAccount, setAccountStatus } from './admin/accounts.usecases';
export { AuthCache } from './auth/auth-cache';
export { type AccountKey, DEMO_SHOP_ACCOUNT, type DemoShopAccount, demoShopAccount } from './checkout/demo-account';
export { type ApiCall, type DemoShop, startDemoShop } from './checkout/demo-shop';
export { buildOpenApiDocument } from './docs/docs.routes';
export { takeHealthSample } from './health/sample';
export { httpUpstream, inProcessUpstream, type Upstream } from './proxy/upstream';
export { getRequest, listRequests } from './request-log/api/requests.usecases';
export { removeExpiredRequests, requestLogCutoff } from './request-log/run/retention';
export { type RequestLog, startRequestLog } from './request-log/run/writer';
