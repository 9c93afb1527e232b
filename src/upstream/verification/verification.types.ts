import { z } from 'zod';

/**
 * Verification-session API. Token response per RFC 6749 §5.1; session
 * and verification bodies beyond `userRef` are "not shown": requests accept extra fields, responses are
 * checked for an `id` and otherwise passed through as JSON objects.
 */
export type VerificationScope = 'sessions' | 'verifications';

export const verificationTokenSchema = z
  .object({
    access_token: z.string().min(1),
    token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'token_type must be Bearer'),
    expires_in: z.number().int().positive(),
    scope: z.string().optional(),
  })
  .transform((t) => ({ accessToken: t.access_token, expiresInS: t.expires_in, scope: t.scope ?? null }));
export type VerificationToken = z.infer<typeof verificationTokenSchema>;

export interface CreateSessionRequest {
  userRef: string;
  [field: string]: unknown;
}
export const sessionSchema = z
  .object({
    id: z.string().min(1),
    userRef: z.string().optional(),
    status: z.string().optional(),
  })
  .catchall(z.unknown());
export type Session = z.infer<typeof sessionSchema>;

export type CreateVerificationRequest = Record<string, unknown>;
export const verificationSchema = z
  .object({
    id: z.string().min(1),
    status: z.string().optional(),
  })
  .catchall(z.unknown());
export type Verification = z.infer<typeof verificationSchema>;
