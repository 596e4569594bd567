import pkg from '../../package.json' with { type: 'json' };
import { deployedRoutes } from '#api/routes.ts';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from './document.ts';

/** This API's document: every deployed route of the route table, versioned as the package. */
export const apiDocument = (options: OpenApiOptions = {}): OpenApiDocument =>
  buildOpenApiDocument(deployedRoutes, { title: 'SaaS platform API', version: pkg.version, ...options });
