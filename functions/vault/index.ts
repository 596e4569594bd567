import { notFound, payloadTooLarge, validationError } from '#shared/http/errors.ts';
import { reply } from '#shared/http/responses.ts';
import { vaultRoutes } from '#areas/vault/routes.ts';
import { apiHandler, type LambdaHttpHandler } from '#shared/runtime/api-handler.ts';
import { auditDenied } from '#areas/vault/denied.ts';
import { createJob, recordAudit } from '#areas/vault/records.ts';
import { MAX_VALUE_BYTES, valueProblem } from '#areas/vault/rules.ts';
import { deleteSecret, listSecrets, readSecret, writeSecret } from '#areas/vault/store.ts';
import { SYNC_JOB, type VaultSyncPayload } from '#areas/vault/sync.ts';
import { enqueue } from '#shared/queue/messages.ts';

// Callers with only the internal key have no user id; audit entries name the credential instead.
const VIA_KEY = 'internal-api-key';

/** Checks the schema cannot express as 400: the byte limit is 413. Messages never quote the value. */
function checkValue(value: string) {
  const problem = valueProblem(value);
  if (problem === 'too-large') throw payloadTooLarge(MAX_VALUE_BYTES, `Secret value exceeds ${MAX_VALUE_BYTES} bytes`);
  if (problem === 'reserved')
    throw validationError([{ path: 'body.value', message: 'This value is reserved for deleted secrets' }]);
  if (problem === 'empty') throw validationError([{ path: 'body.value', message: 'Must not be empty' }]);
}

const api = apiHandler(vaultRoutes, {
  'vault.get': async ({ params: { environment, key } }) => {
    const secret = await readSecret(environment, key);
    if (!secret) throw notFound('Secret');
    return reply.json(
      { environment, key, value: secret.value, version: secret.version },
      { headers: { 'cache-control': 'no-store' } },
    );
  },
  'vault.list': async ({ params: { environment } }) => {
    const items = await listSecrets(environment);
    return { environment, items, totalCount: items.length };
  },
  'vault.put': async ({ params: { environment, key }, body }) => {
    checkValue(body.value);
    const { version, updatedAt } = await writeSecret(environment, key, body.value);
    await recordAudit({
      entityType: 'Secret',
      entityId: `${environment}/${key}`,
      action: version === 1 ? 'create' : 'update',
      changes: { environment, version, via: VIA_KEY },
      actor: null,
    });
    return { environment, key, version, updatedAt };
  },
  'vault.delete': async ({ params: { environment, key }, principal }) => {
    const deleted = await deleteSecret(environment, key);
    if (!deleted) throw notFound('Secret');
    await recordAudit({
      entityType: 'Secret',
      entityId: `${environment}/${key}`,
      action: 'delete',
      changes: { environment, version: deleted.version },
      actor: principal,
    });
  },
  'vault.sync': async ({ params: { environment }, principal }) => {
    const jobId = crypto.randomUUID();
    const requestedBy = principal && { userId: principal.userId, email: principal.email };
    // The job item (with the request's audit entry) exists before the message, so the worker only
    // ever moves it forward.
    await createJob(
      jobId,
      SYNC_JOB.type,
      { environment, requestedBy: principal?.userId ?? null },
      {
        entityType: 'SecretEnvironment',
        entityId: environment,
        action: 'sync.requested',
        changes: { jobId },
        actor: principal,
      },
    );
    const payload: VaultSyncPayload = { jobId, environment, requestedBy };
    await enqueue(SYNC_JOB, payload);
    return { jobId, status: 'queued' };
  },
});

/** The group's entry point: refused requests (401/403) are audited after the envelope is set. */
export const handler: LambdaHttpHandler = async (event, context) => {
  const response = await api(event, context);
  if (response.statusCode === 401 || response.statusCode === 403)
    await auditDenied(event, context, response.statusCode);
  return response;
};
