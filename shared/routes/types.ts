import type { z } from 'zod/mini';
import type { Permission, SystemRole } from '../auth/permissions.ts';
import type { GroupName } from './groups.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route. `bearer` passes when the caller holds any listed role or the permission;
 * with neither listed, any signed-in caller passes. SystemAdmin passes every bearer rule.
 */
export type AuthRule =
  | { kind: 'none' }
  | { kind: 'bearer'; roles?: readonly SystemRole[]; permission?: Permission; allowExpired?: boolean }
  | { kind: 'internalKey'; roles?: readonly SystemRole[] }
  | { kind: 'signature'; provider: 'payment-provider-a' | 'payment-provider-b' };

export interface RateLimitRule {
  /** Counter name shared by the routes that count together (e.g. all sign-in routes). */
  name: string;
  limit: number;
  windowSeconds: number;
}

export type AnySchema = z.core.$ZodType;

export interface RouteDef {
  /** Stable id, `area.action`; used for handler maps, OpenAPI operationId and logs. */
  id: string;
  method: HttpMethod;
  /** API Gateway path syntax: `/api/suppliers/{supplierId}`. */
  path: string;
  group: GroupName;
  auth: AuthRule;
  summary: string;
  /** Success status; 204 and 202 without a body unless `response` is set. */
  status: 200 | 201 | 202 | 204;
  params?: AnySchema;
  query?: AnySchema;
  body?: AnySchema;
  /** Schema of `result` in the success envelope (or the raw body's content type). */
  response?: AnySchema;
  rawResponse?: { contentType: string };
  /** Body content type when not JSON (multipart upload, provider webhooks). */
  bodyType?: 'json' | 'multipart' | 'raw';
  maxBodyBytes?: number;
  rateLimit?: RateLimitRule;
  /** Extra path spellings served by the same handler (local server and routes.txt mapping). */
  aliases?: readonly string[];
  /** Only served by the local server, never deployed. */
  localOnly?: boolean;
}

/** Preserves literal ids so handler maps are checked against the table. */
export const defineRoutes = <const T extends readonly RouteDef[]>(routes: T): T => routes;
