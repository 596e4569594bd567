import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/ai/gateway/catalog.ts';
import { countTokens } from '#areas/ai/gateway/tokens.ts';
import { promptTokens } from '#areas/ai/gateway/prompt-tokens.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, setAllowance, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

let tenant: string;
let owner: string;
beforeAll(async () => {
  tenant = await newTenant({ planType: 2 });
  owner = await tokenFor({ tenantId: tenant });
});

describe('chat completions through a gateway key', () => {
  it('answers by the local model rules, with usage counted by the tokenizer', async () => {
    const { key } = await newKey(owner);
    const res = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-chat', messages: userSays('hello there') },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.object).toBe('chat.completion');
    expect(res.json.model).toBe('local-chat');
    expect(res.json.choices[0].message.content).toBe('You said: hello there');
    expect(res.json.choices[0].finish_reason).toBe('stop');
    expect(res.json.usage.prompt_tokens).toBe(await promptTokens([{ role: 'user', content: 'hello there' }]));
    expect(res.json.usage.completion_tokens).toBe(await countTokens('You said: hello there'));
  });

  it('streams chunks ending with a usage chunk and [DONE]', async () => {
    const { key } = await newKey(owner);
    const res = await v1('POST', '/chat/completions', key, {
      body: {
        model: 'local-chat',
        messages: userSays('one two three'),
        stream: true,
        stream_options: { include_usage: true },
      },
    });
    expect(res.status, res.text).toBe(200);
    const events = res.text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('You said: one two three');
    expect(chunks.at(-1).usage.completion_tokens).toBe(await countTokens('You said: one two three'));
  });

  it('falls back from local-flaky to local-chat and bills local-chat', async () => {
    const { key } = await newKey(owner);
    const res = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-flaky', messages: userSays('hi') },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.model).toBe('local-chat');
  });

  it('refuses an unknown key with invalid_api_key in OpenAI format', async () => {
    const res = await v1('POST', '/chat/completions', 'gk_nope', {
      body: { model: 'local-chat', messages: userSays('hi') },
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_api_key');
  });
});
