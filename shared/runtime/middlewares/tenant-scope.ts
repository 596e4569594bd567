import {
  isSystemAdmin,
  scopeRecord,
  scopeTenant,
  tenantOfSlug,
  type TenantDirectory,
} from '#shared/auth/tenant-scope.ts';
import { unauthorized } from '#shared/http/errors.ts';
import type { MiddyRequest } from '../request.ts';

const field = (from: 'query' | 'body') => `${from}.tenantId`;
const named = (value: unknown) =>
  typeof value === 'object' && value !== null ? (value as { tenantId?: unknown }).tenantId : undefined;

/**
 * Resolves the tenant a `tenant`-scoped route acts on, once, from its declared scope (RouteDef.scope),
 * after validation so ids are canonical. Other scopes leave `tenantId` null.
 */
export const tenantScope = (tenants: TenantDirectory | undefined) => ({
  before: async (request: MiddyRequest) => {
    const { state } = request.context;
    const declared = state.route!.scope;
    state.tenantId = null;
    if (declared?.kind !== 'tenant') return;
    if (state.gatewayKey) {
      state.tenantId = state.gatewayKey.tenantId;
      return;
    }
    if (state.widgetSession) {
      state.tenantId = state.widgetSession.tenantId;
      return;
    }
    const principal = state.principal;
    if (!principal) throw unauthorized();
    const from = declared.tenantFrom;
    // The handler's construction checked a route that names a tenant came with the directory.
    const directory = tenants!;
    if (from === 'slug') {
      state.tenantId = await tenantOfSlug(directory, principal, String((state.params as { slug?: string }).slug ?? ''));
      return;
    }
    const requested = from ? (named(from === 'query' ? state.query : state.body) as string | undefined) : undefined;
    const record = declared.record;
    if (record && isSystemAdmin(principal) && !requested) {
      const id = String((state.params as Record<string, unknown>)[record.param] ?? '');
      state.tenantId = await scopeRecord(directory, principal, undefined, {
        collection: record.collection,
        id,
        label: record.label,
      });
      return;
    }
    state.tenantId = await scopeTenant(directory, principal, requested, field(from ?? 'query'));
  },
});
