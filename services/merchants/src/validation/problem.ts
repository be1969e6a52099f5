import type { FieldProblem } from '@pps/shared/contract';

export type { FieldProblem };

/** The digits of a value typed with common punctuation (spaces, dashes, dots, parentheses). */
export const digitsOf = (value: string) => value.replace(/\D/g, '');

export const invalid = (message: string, code?: string): FieldProblem => (code ? { code, message } : { message });
