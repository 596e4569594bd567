import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BEDROCK_MODEL_IDS } from '#areas/llm-gateway/bedrock-models.ts';
import { API_GROUPS, INVOKED, SCHEDULED, WORKERS } from '#shared/routes/groups.ts';
import { QUEUE_NAMES } from '#lib/queues.ts';
import { actionsOf, flat, groupOfFn, resourcesOf, synthPlatform, targetId, type Statement } from './synth.ts';

let s: ReturnType<typeof synthPlatform>;
beforeAll(() => {
  s = synthPlatform();
});

const PARAM = ':ssm:{Ref:AWS::Region}:{Ref:AWS::AccountId}:parameter/saas/test/';
const specOf = (fn: string) => {
  const name = groupOfFn(fn);
  return (
    name in API_GROUPS
      ? API_GROUPS[name as keyof typeof API_GROUPS]
      : name in SCHEDULED
        ? SCHEDULED[name as keyof typeof SCHEDULED]
        : name in INVOKED
          ? INVOKED[name as keyof typeof INVOKED]
          : WORKERS[name as keyof typeof WORKERS]
  ) as Record<string, unknown>;
};
const stmts = (name: string): Statement[] => s.statementsByFn.get(name)!;
const allows = (name: string, action: string) =>
  stmts(name).filter((st) => st.Effect === 'Allow' && actionsOf(st).includes(action));
const resourceTexts = (list: Statement[]) => list.flatMap(resourcesOf).map(flat);
const isLogOrTrace = (st: Statement) => actionsOf(st).every((a) => a.startsWith('logs:') || a.startsWith('xray:'));
const logicalIdsIn = (list: Statement[]) =>
  new Set(list.flatMap(resourcesOf).map((r) => targetId(r) ?? targetId(r?.['Fn::Join']?.[1]?.[0])));

describe('IAM', () => {
  it('has a role per function and finds their statements', () => {
    expect(s.statementsByFn.size).toBe(s.fnIds.size);
    for (const [name, list] of s.statementsByFn) {
      // The fallback only answers 404/405: it may write its logs and traces, nothing else.
      if (name === 'fallback')
        expect(
          list.filter((st) => !isLogOrTrace(st)),
          name,
        ).toEqual([]);
      else expect(list.length, name).toBeGreaterThan(list.filter((st) => isLogOrTrace(st)).length);
    }
  });

  it('lets each function write to its own log group only (no AWSLambdaBasicExecutionRole) and send X-Ray traces', () => {
    const roles = s.ofType('AWS::IAM::Role');
    // Plus the catalog seed's deploy-time provider (test/infra/llm-gateway-ops.test.ts checks its grants).
    expect(roles.length).toBe(s.fnIds.size + 1);
    for (const [, role] of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    for (const name of s.fnIds.keys()) {
      const logs = stmts(name).filter((st) => actionsOf(st).some((a) => a.startsWith('logs:')));
      expect(
        logs.map((st) => actionsOf(st).sort()),
        name,
      ).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents']]);
      expect(resourcesOf(logs[0]!).map(targetId), name).toEqual([
        targetId(s.resources[s.fnIds.get(name)!].Properties.LoggingConfig.LogGroup),
      ]);
      expect(
        stmts(name)
          .filter((st) => actionsOf(st).some((a) => a.startsWith('xray:')))
          .map((st) => actionsOf(st).sort()),
        name,
      ).toEqual([['xray:PutTelemetryRecords', 'xray:PutTraceSegments']]);
    }
  });

  it('grants no wildcard actions, and no DynamoDB action on Resource *', () => {
    for (const [, policy] of [...s.ofType('AWS::IAM::Policy'), ...s.ofType('AWS::IAM::ManagedPolicy')]) {
      for (const st of policy.Properties.PolicyDocument.Statement as Statement[]) {
        for (const action of actionsOf(st)) {
          expect(action).not.toBe('*');
          expect(action).not.toMatch(/^[a-z0-9-]+:\*$/);
        }
        if (resourcesOf(st).includes('*')) {
          expect(actionsOf(st).filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
          // The only Resource * are X-Ray writes (no resource-level permissions) and SES sending,
          // pinned to the sender address (cdk-nag's IAM5 acknowledgement relies on this).
          if (actionsOf(st).every((a) => a.startsWith('xray:'))) {
            expect(actionsOf(st).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
            continue;
          }
          expect(actionsOf(st).every((a) => a.startsWith('ses:'))).toBe(true);
          expect(st.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
        }
      }
    }
  });

  it('grants no table access to groups that need none, read-only to read groups, writes to readwrite groups', () => {
    const tableId = s.ofType('AWS::DynamoDB::Table')[0]![0];
    for (const name of s.fnIds.keys()) {
      const onTable = stmts(name).filter((st) => logicalIdsIn([st]).has(tableId));
      const actions = onTable.flatMap(actionsOf);
      if (specOf(name).table === 'none') {
        expect(actions, name).toEqual([]);
        continue;
      }
      // The table and its indexes by name, never `index/*`; never Scan or stream reads.
      expect(
        resourceTexts(onTable)
          .map((t) => t.replace(/^\{DataTable[0-9A-F]{8}\.Arn\}/, 'TABLE'))
          .sort(),
        name,
      ).toEqual(['TABLE', 'TABLE/index/byId', 'TABLE/index/gsi1', 'TABLE/index/gsi2']);
      expect(
        actions.filter((a) => /Scan|GetRecords|GetShardIterator/.test(a)),
        name,
      ).toEqual([]);
      expect(actions, name).toContain('dynamodb:GetItem');
      expect(actions, name).toContain('dynamodb:Query');
      if (specOf(name).table === 'read') {
        expect(
          actions.filter((a) => /Put|Update|Delete|Write/.test(a)),
          name,
        ).toEqual([]);
      } else {
        expect(actions, name).toEqual(
          expect.arrayContaining([
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:DeleteItem',
            'dynamodb:ConditionCheckItem',
          ]),
        );
      }
    }
  });

  it('lets a function send only to the queues its spec names', () => {
    const queueName = new Map(
      s
        .ofType('AWS::SQS::Queue')
        .map(([id]) => [id, new RegExp(`^Queues(${QUEUE_NAMES.join('|')})[0-9A-F]{8}$`).exec(id)?.[1] ?? `dlq:${id}`]),
    );
    for (const name of s.fnIds.keys()) {
      const sends = allows(name, 'sqs:SendMessage');
      for (const st of sends) expect(actionsOf(st)).toEqual(['sqs:SendMessage']);
      const queues = [...logicalIdsIn(sends)].map((id) => queueName.get(id!)).sort();
      expect(queues, name).toEqual([...((specOf(name).sends as string[] | undefined) ?? [])].sort());
    }
  });

  it('lets every function that calls models send their records to the usage queue', () => {
    const callers = [...s.fnIds.keys()].filter((name) => specOf(name).bedrock);
    expect(callers.length).toBeGreaterThan(4);
    for (const name of callers) expect((specOf(name).sends as string[] | undefined) ?? [], name).toContain('usage');
  });

  it('lets the workers consume only their own queue', () => {
    for (const [name, spec] of Object.entries(WORKERS)) {
      const receives = allows(name, 'sqs:ReceiveMessage');
      expect(
        [...logicalIdsIn(receives)].map((id) => id!.replace(/[0-9A-F]{8}$/, '')),
        name,
      ).toEqual([`Queues${spec.queue}`]);
    }
  });

  it('scopes SSM reads to the signing keys, internal key and provider secrets by spec', () => {
    for (const name of s.fnIds.keys()) {
      const readable = resourceTexts(stmts(name).filter((st) => actionsOf(st).some((a) => a.startsWith('ssm:'))));
      for (const r of readable) expect(r, name).toContain(PARAM);
      const spec = specOf(name);
      const routed = groupOfFn(name) in API_GROUPS && name !== 'fallback';
      expect(
        readable.some((r) => r.endsWith('/auth/jwt-public-jwks')),
        name,
      ).toBe(routed);
      expect(
        readable.some((r) => r.endsWith('/auth/jwt-private-jwk')),
        name,
      ).toBe(spec.signsTokens === true);
      expect(
        readable.some((r) => r.endsWith('/internal-api-key')),
        name,
      ).toBe(spec.internalKey === true);
      expect(
        readable.some((r) => r.endsWith('/providers/*')),
        name,
      ).toBe(spec.providerSecrets === true);
    }
    expect(allows('auth', 'ssm:GetParameter').flatMap(actionsOf)).toEqual(['ssm:GetParameter']);
  });

  it('gives only the vault function and the jobs worker the vault path and the vault key', () => {
    const keyId = s.ofType('AWS::KMS::Key')[0]![0];
    const withVault: string[] = [];
    const withKey: string[] = [];
    for (const name of s.fnIds.keys()) {
      const texts = resourceTexts(stmts(name));
      if (texts.some((t) => t.includes('/vault'))) withVault.push(name);
      if (stmts(name).some((st) => logicalIdsIn([st]).has(keyId))) withKey.push(name);
    }
    // The LLM gateway (and the functions that call it in-process: agent turns, knowledge's embeddings)
    // reads an endpoint's API key from the vault: GetParameter only, Decrypt only.
    expect(withVault.sort()).toEqual(
      [
        'agent-runtime',
        // Expiring a held tool call resumes its agent turn (the agent runtime's grants).
        'ai-scheduler',
        'channel-turn-worker',
        'conversations',
        'conversations-stream',
        'jobs-worker',
        'knowledge',
        'knowledge-worker',
        'llm-gateway',
        'llm-gateway-stream',
        'vault',
      ].sort(),
    );
    // The tools and agents functions encrypt tenant secrets with the same key (below); the channel
    // worker and the agent runtime only decrypt.
    expect(withKey.sort()).toEqual(
      [
        'agent-runtime',
        'ai-scheduler',
        'agents',
        'channel-worker',
        'conversations',
        'conversations-stream',
        'jobs-worker',
        'knowledge',
        'knowledge-worker',
        'llm-gateway',
        'llm-gateway-stream',
        'tools',
        'vault',
        // AI connector: the webhooks resolve signing secrets, the turn worker the tools' secrets.
        'channel-turn-worker',
        'connector',
      ].sort(),
    );
    for (const name of ['agent-runtime', 'knowledge', 'knowledge-worker', 'llm-gateway', 'llm-gateway-stream']) {
      const vaultStmts = stmts(name).filter((st) => resourceTexts([st]).some((t) => t.includes('/vault')));
      expect(vaultStmts.flatMap(actionsOf), name).toEqual(['ssm:GetParameter']);
      const keyStmts = stmts(name).filter((st) => logicalIdsIn([st]).has(keyId));
      expect(keyStmts.flatMap(actionsOf), name).toEqual(['kms:Decrypt']);
    }

    for (const name of ['vault', 'jobs-worker']) {
      const vaultStmt = stmts(name).find((st) =>
        resourceTexts([st]).some((t) => t.endsWith('parameter/saas/test/vault/*')),
      )!;
      expect(resourceTexts([vaultStmt]).map((t) => t.slice(t.indexOf('parameter/')))).toEqual([
        'parameter/saas/test/vault',
        'parameter/saas/test/vault/*',
      ]);
      expect(actionsOf(vaultStmt).sort()).toEqual(
        [
          'ssm:DeleteParameter',
          'ssm:GetParameter',
          'ssm:GetParameterHistory',
          'ssm:GetParameters',
          'ssm:GetParametersByPath',
          'ssm:PutParameter',
        ].sort(),
      );
      const keyStmt = stmts(name).find((st) => logicalIdsIn([st]).has(keyId))!;
      expect(actionsOf(keyStmt).sort()).toEqual(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey']);
    }
    // Only the tools and agents functions hold tenant secrets (connection strings, channel
    // credentials): by name, under the tenants path, never listed.
    // The channel worker and the agent runtime only resolve them (a connection's credentials, a
    // database tool's connection string), read-only.
    const tenantSecrets = [...s.fnIds.keys()].filter((n) =>
      resourceTexts(stmts(n)).some((t) => t.includes('/tenants/')),
    );
    expect(tenantSecrets.sort()).toEqual(
      [
        'agent-runtime',
        'ai-scheduler',
        'agents',
        'channel-worker',
        'conversations',
        'conversations-stream',
        'tools',
        'channel-turn-worker',
        'connector',
      ].sort(),
    );
    const channelStmt = stmts('channel-worker').find((st) => resourceTexts([st]).some((t) => t.includes('/tenants/')))!;
    expect(actionsOf(channelStmt)).toEqual(['ssm:GetParameter']);
    expect(actionsOf(stmts('channel-worker').find((st) => logicalIdsIn([st]).has(keyId))!)).toEqual(['kms:Decrypt']);
    const tenantStmt = stmts('tools').find((st) => resourceTexts([st]).some((t) => t.includes('/tenants/')))!;
    expect(resourceTexts([tenantStmt]).map((t) => t.slice(t.indexOf('parameter/')))).toEqual([
      'parameter/saas/test/tenants/*',
    ]);
    expect(actionsOf(tenantStmt).sort()).toEqual(['ssm:DeleteParameter', 'ssm:GetParameter', 'ssm:PutParameter']);
    const toolsKey = stmts('tools').find((st) => logicalIdsIn([st]).has(keyId))!;
    expect(actionsOf(toolsKey).sort()).toEqual(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey']);
    // Only the sync job reads what the deployment provides.
    const sources = [...s.fnIds.keys()].filter((n) =>
      resourceTexts(stmts(n)).some((t) => t.includes('/vault-sources')),
    );
    expect(sources).toEqual(['jobs-worker']);
  });

  it('lets only the LLM gateway and the functions that call it in-process (agent turns, embeddings for knowledge) invoke Bedrock models, and only the models the stage offers (the ones its catalog is seeded with)', () => {
    const callers = [...s.fnIds.keys()].filter((n) =>
      stmts(n).some((st) => actionsOf(st).some((a) => a.startsWith('bedrock:'))),
    );
    expect(callers.sort()).toEqual(
      [
        'agent-runtime',
        // Expiring a held tool call resumes its agent turn (the agent runtime's grants).
        'ai-scheduler',
        'channel-turn-worker',
        'conversations',
        'conversations-stream',
        // Knowledge embeds chunks (the worker) and queries (retrieval) through the gateway.
        'knowledge',
        'knowledge-worker',
        'llm-gateway',
        'llm-gateway-stream',
      ].sort(),
    );
    for (const name of callers) {
      const st = stmts(name).filter((x) => actionsOf(x).some((a) => a.startsWith('bedrock:')));
      expect(st.flatMap(actionsOf).sort()).toEqual(['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream']);
      const arns = resourceTexts(st);
      expect(arns).toHaveLength(DEFAULT_BEDROCK_MODEL_IDS.length);
      for (const [i, id] of DEFAULT_BEDROCK_MODEL_IDS.entries())
        expect(arns[i]).toMatch(new RegExp(`:bedrock:.*::foundation-model/${id.replace(/[.:]/g, '\\$&')}$`));
    }
  });

  it('lets only the e-mail worker send e-mail, from the configured address', () => {
    const senders = [...s.fnIds.keys()].filter((n) =>
      stmts(n).some((st) => actionsOf(st).some((a) => a.startsWith('ses:'))),
    );
    expect(senders).toEqual(['email-worker']);
    const st = allows('email-worker', 'ses:SendEmail')[0]!;
    expect(actionsOf(st).sort()).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
    expect(st.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
  });

  it("queues the agent runtime's e-mail (its Send Email tool) instead of sending it: the e-mail queue, no SES", () => {
    const queues = s.ofType('AWS::SQS::Queue').map(([id]) => id);
    const emailQueue = queues.find((id) => /^Queuesemail[0-9A-F]{8}$/.test(id));
    expect(emailQueue).toBeDefined();
    expect([...logicalIdsIn(allows('agent-runtime', 'sqs:SendMessage'))]).toContain(emailQueue);
    expect(
      stmts('agent-runtime')
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('ses:')),
    ).toEqual([]);
  });

  it('lets only the functions that run agent turns invoke the Browser Action function, and nothing else; it writes only screenshots', () => {
    const browser = s.fnIds.get('browser-action')!;
    for (const name of s.fnIds.keys()) {
      const invokes = allows(name, 'lambda:InvokeFunction');
      if (!specOf(name).invokes) expect(invokes, name).toEqual([]);
      else expect(resourceTexts(invokes), name).toEqual([`{${browser}.Arn}`]);
    }
    expect([...s.fnIds.keys()].filter((n) => specOf(n).invokes).sort()).toEqual(
      ['agent-runtime', 'ai-scheduler', 'channel-turn-worker', 'conversations', 'conversations-stream'].sort(),
    );
    const puts = allows('browser-action', 's3:PutObject');
    expect(resourceTexts(puts)).toEqual([expect.stringMatching(/^\{DataMedia[0-9A-F]{8}\.Arn\}\/browser-shots\/\*$/)]);
    expect(allows('browser-action', 'dynamodb:GetItem')).toEqual([]);
  });

  it('gives bucket access only to the functions whose spec names the bucket', () => {
    const bucketId = (prefix: string) => s.ofType('AWS::S3::Bucket').find(([id]) => id.startsWith(prefix))![0];
    const bucketIds = { media: bucketId('DataMedia'), invoices: bucketId('DataInvoices') };
    for (const name of s.fnIds.keys()) {
      const spec = specOf(name);
      for (const bucket of ['media', 'invoices'] as const) {
        const onBucket = stmts(name).filter((st) => logicalIdsIn([st]).has(bucketIds[bucket]));
        const actions = onBucket.flatMap(actionsOf);
        if (!spec[bucket]) expect(actions, `${name} ${bucket}`).toEqual([]);
        else {
          expect(actions, `${name} ${bucket}`).toContain(
            spec[bucket] === 'browser-shots' ? 's3:GetObject' : 's3:GetObject*',
          );
          expect(actions.includes('s3:PutObject'), `${name} ${bucket}`).toBe(
            spec[bucket] === 'readwrite' || spec[bucket] === 'browser-shots',
          );
        }
      }
    }
  });

  it('lets every function that retrieves knowledge read the keyword indexes: the media bucket named, its knowledge/ prefix readable', () => {
    const media = s.ofType('AWS::S3::Bucket').find(([id]) => id.startsWith('DataMedia'))![0];
    const retrievers = [...s.fnIds.keys()].filter((name) => specOf(name).knowledgeVectors);
    expect(retrievers).toEqual(
      expect.arrayContaining(['knowledge', 'agent-runtime', 'conversations', 'channel-turn-worker']),
    );
    for (const name of retrievers) {
      const onMedia = stmts(name).filter((st) => logicalIdsIn([st]).has(media));
      expect(onMedia.flatMap(actionsOf), name).toContain('s3:GetObject*');
      expect(
        resourceTexts(onMedia).some((t) => /\/(knowledge\/)?\*$/.test(t)),
        name,
      ).toBe(true);
      expect(s.resources[s.fnIds.get(name)!].Properties.Environment.Variables.MEDIA_BUCKET, name).toBeDefined();
    }
  });

  it('gives the knowledge vector bucket only to the knowledge functions: queries to the routes, writes to the worker', () => {
    const vectorBucket = s.ofType('AWS::S3Vectors::VectorBucket')[0]![0];
    for (const name of s.fnIds.keys()) {
      const spec = specOf(name) as { knowledgeVectors?: 'read' | 'readwrite' };
      const onVectors = stmts(name).filter((st) => logicalIdsIn([st]).has(vectorBucket));
      const actions = onVectors.flatMap(actionsOf).sort();
      if (!spec.knowledgeVectors) expect(actions, name).toEqual([]);
      else {
        expect(actions, name).toEqual(expect.arrayContaining(['s3vectors:QueryVectors', 's3vectors:GetVectors']));
        expect(actions.includes('s3vectors:PutVectors'), name).toBe(spec.knowledgeVectors === 'readwrite');
        expect(actions.includes('s3vectors:DeleteIndex'), name).toBe(spec.knowledgeVectors === 'readwrite');
      }
    }
  });
});
