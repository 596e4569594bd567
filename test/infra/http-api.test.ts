import { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '#lib/settings.ts';
import { deployedRoutes, routes } from '#local/routes.ts';
import { servesHead } from '#shared/routes/head.ts';
import { flat, synthPlatform, targetId, type Json } from './synth.ts';

let s: ReturnType<typeof synthPlatform>;
beforeAll(() => {
  s = synthPlatform();
});

/** RouteKey -> name of the function its integration invokes (Route.Target -> Integration -> Uri -> Function). */
function routeTargets(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [, route] of s.ofType('AWS::ApiGatewayV2::Route')) {
    const join = route.Properties.Target['Fn::Join'];
    expect(join[1][0]).toBe('integrations/');
    const integration = s.resources[targetId(join[1][1])!];
    expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
    const fnId = targetId(integration.Properties.IntegrationUri)!;
    expect(s.resources[fnId].Type).toBe('AWS::Lambda::Function');
    out.set(route.Properties.RouteKey, s.nameOfFn.get(fnId)!);
  }
  return out;
}

describe('HTTP API routes', () => {
  it('has one API Gateway route per deployed route, on the function of its group', () => {
    const targets = routeTargets();
    const deployed = deployedRoutes;
    expect(deployed.length).toBeGreaterThan(0);
    for (const route of deployed) {
      expect(targets.get(`${route.method} ${route.path}`), `${route.method} ${route.path}`).toBe(route.group);
    }
    // Nothing else: the deployed routes, HEAD beside the public GET ones, and $default.
    expect(targets.size).toBe(deployed.length + deployed.filter(servesHead).length + 1);
  });

  it('adds a HEAD route on the same function for each public GET route, within the 300 routes of an HTTP API', () => {
    const targets = routeTargets();
    const expected = deployedRoutes.filter(servesHead);
    expect(expected.map((r) => r.path)).toContain('/api/ai/widget.js');
    for (const r of expected) expect(targets.get(`HEAD ${r.path}`), r.path).toBe(targets.get(`GET ${r.path}`));
    const heads = [...targets.keys()].filter((k) => k.startsWith('HEAD '));
    expect(heads).toHaveLength(expected.length);
    expect(targets.size).toBeLessThanOrEqual(300);
  });

  it('sends $default to the fallback function', () => {
    expect(routeTargets().get('$default')).toBe('fallback');
  });

  it('never deploys a local-only route', () => {
    const keys = [...routeTargets().keys()];
    const local = routes.filter((r) => r.localOnly);
    expect(local.length).toBeGreaterThan(0);
    for (const r of local) expect(keys).not.toContain(`${r.method} ${r.path}`);
    expect(keys.filter((k) => k.includes('/_local/'))).toEqual([]);
  });

  it('integrates every function as a Lambda proxy with payload 2.0', () => {
    const integrations = s.ofType('AWS::ApiGatewayV2::Integration');
    expect(integrations.length).toBe(new Set(deployedRoutes.map((r) => r.group)).size + 1);
    for (const [, i] of integrations) {
      expect(i.Properties.IntegrationType).toBe('AWS_PROXY');
      expect(i.Properties.PayloadFormatVersion).toBe('2.0');
    }
  });

  it('lets API Gateway invoke each routed function, and only from this API', () => {
    // The function URLs' own permissions are checked with the streaming front door below.
    // The scheduler's EventBridge permission is checked with its rule (resources.test.ts).
    const permissions = s
      .ofType('AWS::Lambda::Permission')
      .filter(([, p]) => p.Properties.Principal !== '*' && p.Properties.Principal !== 'events.amazonaws.com');
    const invoked = new Set<string>();
    for (const [, p] of permissions) {
      expect(p.Properties.Principal).toBe('apigateway.amazonaws.com');
      expect(p.Properties.Action).toBe('lambda:InvokeFunction');
      expect(flat(p.Properties.SourceArn)).toMatch(
        /:execute-api:\{Ref:AWS::Region\}:\{Ref:AWS::AccountId\}:\{Ref:HttpApi[0-9A-F]+\}\/\*\/\*/,
      );
      invoked.add(s.nameOfFn.get(targetId(p.Properties.FunctionName)!)!);
    }
    expect([...invoked].sort()).toEqual([...new Set([...deployedRoutes.map((r) => r.group), 'fallback'])].sort());
  });
});

describe('streaming front door', () => {
  const streamRoutes = () => deployedRoutes.filter((r) => r.transport === 'stream');

  it('gives each group with stream routes a function URL in response-stream mode on a second function of the same bundle', () => {
    const groups = [...new Set(streamRoutes().map((r) => r.group))];
    expect(groups).toContain('system');
    const urls = s.ofType('AWS::Lambda::Url');
    expect(urls.length).toBe(groups.length);
    for (const [, url] of urls) {
      const name = s.nameOfFn.get(targetId(url.Properties.TargetFunctionArn)!)!;
      expect(groups.map((g) => `${g}-stream`)).toContain(name);
      expect(url.Properties).toMatchObject({ InvokeMode: 'RESPONSE_STREAM', AuthType: 'NONE' });
      // The widget's front door answers any origin (it runs on tenants' sites; the handler checks the
      // widget's own); every other one only the stage's origins.
      expect(url.Properties.Cors).toMatchObject({
        AllowOrigins: name === 'conversations-stream' ? ['*'] : ['https://app.example.test'],
        ExposeHeaders: ['retry-after'],
      });
      expect(url.Properties.Cors.AllowHeaders).toEqual(expect.arrayContaining(['x-widget-session', 'idempotency-key']));
      const fn = s.resources[s.fnIds.get(name)!].Properties;
      const group = s.resources[s.fnIds.get(name.replace(/-stream$/, ''))!].Properties;
      expect(fn.Handler).toBe('index.streamHandler');
      expect(fn.Code).toEqual(group.Code);
      // The same grants as the group's function: the streaming door is another way in, not more access.
      expect(s.statementsByFn.get(name)!.length).toBe(s.statementsByFn.get(name.replace(/-stream$/, ''))!.length);
    }
    s.template.hasOutput('StreamUrlsystem', { Value: Match.anyValue() });
  });

  it('lets anyone reach the URL (the function authenticates each request itself) and nothing else', () => {
    const urlPermissions = s.ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === '*');
    expect(urlPermissions.length).toBeGreaterThan(0);
    for (const [, p] of urlPermissions) {
      // InvokeFunctionUrl with the URL's auth type, and (since October 2025) InvokeFunction only through the URL.
      if (p.Properties.Action === 'lambda:InvokeFunctionUrl') expect(p.Properties.FunctionUrlAuthType).toBe('NONE');
      else expect(p.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', InvokedViaFunctionUrl: true });
      expect(s.nameOfFn.get(targetId(p.Properties.FunctionName)!)).toMatch(/-stream$/);
    }
  });

  it('keeps stream routes on the HTTP API too, on the buffered function of their group', () => {
    for (const route of streamRoutes()) expect(routeTargets().get(`${route.method} ${route.path}`)).toBe(route.group);
  });
});

describe('HTTP API settings', () => {
  it('answers CORS preflight for the API headers and methods', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: {
        AllowHeaders: ['authorization', 'content-type', 'x-internal-api-key', 'x-widget-session', 'idempotency-key'],
        AllowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        AllowOrigins: ['https://app.example.test'],
      },
    });
  });

  it('throttles the default stage and logs access (with the Lambda request id, the key to its trace) to a log group with retention', () => {
    const stages = s.ofType('AWS::ApiGatewayV2::Stage');
    expect(stages.length).toBe(1);
    const stage: Json = stages[0]![1].Properties;
    expect(stage.StageName).toBe('$default');
    expect(stage.AutoDeploy).toBe(true);
    expect(stage.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    const logGroup = s.resources[targetId(stage.AccessLogSettings.DestinationArn)!];
    expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
    expect(logGroup.Properties.RetentionInDays).toBe(30);
    expect(JSON.parse(stage.AccessLogSettings.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      integrationRequestId: '$context.integration.requestId',
    });
  });

  it("keeps paths out of the gateway's access log: a path may carry a credential (a feed's secret)", () => {
    const [[, stage]] = s.ofType('AWS::ApiGatewayV2::Stage') as [[string, Json]];
    const format: string = stage.Properties.AccessLogSettings.Format;
    expect(format).not.toContain('$context.path');
    expect(JSON.parse(format)).toMatchObject({ routeKey: '$context.routeKey' });
  });

  it('outputs the API URL', () => {
    s.template.hasOutput('ApiUrl', { Value: Match.anyValue() });
  });
});

describe('settings from context', () => {
  const settings = (context: Record<string, unknown>) => readSettings(new App({ context }).node);

  it('defaults to the dev stage of saas, 100 rps / 200 burst, the local front ends as origins', () => {
    expect(settings({})).toMatchObject({
      appName: 'saas',
      stage: 'dev',
      throttle: { rateLimit: 100, burstLimit: 200 },
      corsOrigins: ['http://localhost:3000', 'http://127.0.0.1:3000'],
      mailFrom: 'no-reply@example.com',
      retainData: false,
    });
  });

  it('takes overrides as CLI strings', () => {
    expect(
      settings({
        stage: 'prod',
        throttleRateLimit: '50',
        throttleBurstLimit: '75',
        corsOrigins: 'https://a.example, https://b.example',
      }),
    ).toMatchObject({
      stage: 'prod',
      throttle: { rateLimit: 50, burstLimit: 75 },
      corsOrigins: ['https://a.example', 'https://b.example'],
      retainData: true,
    });
  });

  it('refuses to synthesize a stage other than dev without corsOrigins (no silent *), and takes * when asked', () => {
    expect(() => settings({ stage: 'prod' })).toThrow(/corsOrigins is required for stage prod/);
    expect(settings({ stage: 'prod', corsOrigins: '*' }).corsOrigins).toEqual(['*']);
  });

  it('rejects a bad stage name and a non-positive throttle', () => {
    expect(() => settings({ stage: 'Prod/1' })).toThrow(/stage/);
    expect(() => settings({ throttleRateLimit: '0' })).toThrow(/throttleRateLimit/);
  });
});
