import { CfnOutput, NestedStack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CORS_ALLOW_HEADERS } from '#shared/http/cors.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { servesHead } from '#shared/routes/head.ts';
import type { StackSettings } from './settings.ts';

export { CORS_ALLOW_HEADERS };

/**
 * HTTP API context variables (not the REST API's) for one JSON line per request. HTTP APIs have no
 * X-Ray tracing; `integrationRequestId` is the Lambda request id, the key to the function's log
 * lines and its X-Ray trace (Lambda active tracing starts the trace there). No `$context.path`: a
 * path may carry a credential (a calendar feed's secret) that the gateway cannot mask per route;
 * `routeKey` names the route, and the function's own line has the path with its credentials digested.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    method: '$context.httpMethod',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    integrationRequestId: '$context.integration.requestId',
    userAgent: '$context.identity.userAgent',
  }),
);

/**
 * The HTTP API: one route per route-table entry on its group's function (payload 2.0), and a
 * `$default` route on the fallback so API Gateway's own "Not Found" never reaches a client.
 */
export class PlatformHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;

  /** Base URL of the API without a trailing slash: `https://<id>.execute-api.<region>.amazonaws.com`. */
  readonly endpoint: string;

  constructor(scope: Construct, id: string, settings: StackSettings) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      apiName: `${settings.appName}-${settings.stage}`,
      createDefaultStage: false,
      corsPreflight: {
        allowHeaders: CORS_ALLOW_HEADERS,
        allowMethods: [
          CorsHttpMethod.GET,
          CorsHttpMethod.POST,
          CorsHttpMethod.PUT,
          CorsHttpMethod.PATCH,
          CorsHttpMethod.DELETE,
          CorsHttpMethod.OPTIONS,
        ],
        allowOrigins: settings.corsOrigins,
        exposeHeaders: ['retry-after'],
      },
    });
    this.endpoint = this.api.apiEndpoint;

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.throttle,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });
    new CfnOutput(scope, 'ApiUrl', { value: this.stage.url });
  }

  /**
   * `METHOD path` for each route on its group's function (one integration and one invoke
   * permission per function), and `$default` on the fallback. Aliases are not routes here: API
   * Gateway matches them through the route's own path parameter, as the route table notes.
   */
  addRoutes(routes: readonly RouteDef[], functions: ReadonlyMap<string, IFunction>, fallback: IFunction): void {
    // Routes, integrations and their invoke permissions live in a nested stack: one route each is
    // more than half of CloudFormation's 500 resources per stack (docs/decisions/platform.md, "Stack size").
    const scope = new NestedStack(this, 'Routes', { description: 'HTTP API routes and integrations' });
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const route of routes) {
      const fn = functions.get(route.group);
      if (!fn) throw new Error(`Route ${route.id} names group ${route.group}, which has no function`);
      let integration = integrations.get(route.group);
      if (!integration) {
        integration = new HttpLambdaIntegration(`Integration-${route.group}`, fn, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
          scopePermissionToRoute: false,
        });
        integrations.set(route.group, integration);
      }
      new HttpRoute(scope, `Route-${route.id}`, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration,
      });
      // An HTTP API route `GET /x` does not match HEAD; the public GETs get a HEAD route of their own.
      if (servesHead(route))
        new HttpRoute(scope, `Route-${route.id}-head`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(route.path, HttpMethod.HEAD),
          integration,
        });
    }
    new HttpRoute(scope, 'Route-default', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('Integration-fallback', fallback, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    });
  }
}
