import { ApiError, errorResponse, type ServiceEnv, zodToApiError } from '@pps/shared/http';
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import { ageProblem } from '../../validation';

type HookResult = { success: boolean; data?: unknown; error?: unknown };

/**
 * Validation hook of merchant creation. The minimum age depends on the account's sandbox clock, which the
 * request schema can't see; when the body is invalid anyway, the age problem joins the other errors so the
 * client gets every problem at once (a valid body has its age checked by the use case).
 */
export function createMerchantHook(result: HookResult, c: Context<ServiceEnv>): Response | undefined {
  if (result.success) return undefined;
  const invalid = zodToApiError(result.error as ZodError, 'json', result.data);
  const birthDate = (result.data as { data?: { attributes?: { personalInfo?: { birthDate?: unknown } } } } | undefined)
    ?.data?.attributes?.personalInfo?.birthDate;
  const problem = typeof birthDate === 'string' ? ageProblem(birthDate.trim(), c.get('ctx').clock.now()) : undefined;
  if (!problem) return errorResponse(c, invalid);
  return errorResponse(
    c,
    ApiError.many([
      invalid,
      ...invalid.others,
      {
        status: 400,
        code: problem.code ?? 'invalid_field',
        detail: `birthDate: ${problem.message}`,
        pointer: '/data/attributes/personalInfo/birthDate',
      },
    ]),
  );
}
