import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import * as ParsersModule from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';

// The package's CommonJS namespace arrives under `default` when imported from ESM.
const Parsers = ((ParsersModule as unknown as { default?: typeof ParsersModule }).default ??
  ParsersModule) as typeof ParsersModule;

/**
 * The document as `npm run openapi` writes it and `GET /api/openapi.json` serves it, under the two
 * standard linters with their stock rulesets: any error or warning fails (no rule is turned off).
 */
const source = JSON.stringify(apiDocument(), null, 2);

describe('OpenAPI document under the standard linters', () => {
  it("passes Redocly's recommended ruleset with no error and no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("passes Spectral's spectral:oas ruleset with no finding", { timeout: 60_000 }, async () => {
    const spectral = new Spectral();
    spectral.setRuleset(oas as Parameters<Spectral['setRuleset']>[0]);
    const results = await spectral.run(new Document(source, Parsers.Json, 'openapi.json'));
    expect(results.map((r) => `${r.severity} ${String(r.code)}: ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  });
});
