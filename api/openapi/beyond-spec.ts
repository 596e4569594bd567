/**
 * Deployed routes the spec does not name: the platform's own (health, keys, API reference) and
 * additions an area made beyond the spec. The coverage test fails for a table route that is
 * neither a spec route nor listed here, so a typo in a path shows up instead of passing as extra.
 */
export const BEYOND_SPEC: readonly string[] = [
  'GET /api/health',
  'GET /.well-known/jwks.json',
  'GET /api/openapi.json',
  'GET /api/docs',
  'GET /api/docs/{file}',
  // The streaming transport's proof: liveness as server-sent events.
  'GET /api/health/stream',
  'POST /api/tenants/{slug}/invitations',
  // Media files over what a Lambda request carries (up to 10 MB) go straight to S3.
  'POST /api/content/admin/sites/{siteId}/media/presigned-upload',
  'POST /api/content/admin/media/{id}/complete',
  // AI area: rendering, tool approval, the LLM budget and the usage ingestion the issue adds.
  'POST /api/prompts/{promptId}/render',
  // Prompt evaluation: test cases and a version's evaluation (autoEvaluationScores made by the platform).
  'POST /api/prompts/{promptId}/test-cases',
  'GET /api/prompts/{promptId}/test-cases',
  'DELETE /api/prompts/{promptId}/test-cases/{testCaseId}',
  'GET /api/prompts/{promptId}/versions/{versionId}/evaluation',
  // A tool read by its id, as every other resource is (the spec lists only its PUT and DELETE).
  'GET /api/tools/{toolId}',
  'PUT /api/tools/{toolId}/approve',
  'PUT /api/tools/{toolId}/activate',
  'PUT /api/tools/{toolId}/reject',
  // An MCP Server tool: the server's tools as last read, and reading them again.
  'GET /api/tools/{toolId}/mcp/tools',
  'POST /api/tools/{toolId}/mcp/refresh',
  // Knowledge served over MCP: an endpoint minted for one base, and the endpoint itself.
  'POST /api/knowledge/bases/{kbId}/mcp',
  'POST /mcp/knowledge/{endpointId}',
  'GET /api/analytics/budget',
  'PUT /api/analytics/budget',
  'POST /api/analytics/events',
  // AI knowledge: files over what a Lambda request carries (up to 10 MB) go straight to S3, as media's do.
  'POST /api/knowledge/bases/{kbId}/documents/presigned-upload',
  'POST /api/knowledge/bases/{kbId}/documents/presigned-upload/{uploadId}/complete',
  // The LLM gateway: what OpenAI clients call beyond the spec's three routes (the Vercel AI SDK's
  // default provider and `client.responses.create` use the Responses API; clients read one model).
  'POST /api/llm-gateway/v1/responses',
  'GET /api/llm-gateway/v1/models/{model}',
  // Manage Schedule: tenant calendars and their public iCalendar feed.
  'GET /api/ai/calendars',
  'POST /api/ai/calendars',
  'GET /api/ai/calendars/{calendarId}',
  'PUT /api/ai/calendars/{calendarId}',
  'DELETE /api/ai/calendars/{calendarId}',
  'GET /api/ai/calendars/{calendarId}/slots',
  'GET /api/ai/calendars/{calendarId}/appointments',
  'POST /api/ai/calendars/{calendarId}/rotate-feed',
  'GET /api/calendar-feeds/{feedToken}',
  // A person approves an agent's side-effecting tool calls from the inbox.
  'GET /api/conversations/{conversationId}/actions',
  'POST /api/conversations/{conversationId}/actions/{actionId}/approve',
  'POST /api/conversations/{conversationId}/actions/{actionId}/reject',
  // AI knowledge at scale: a Failed document indexed again without a new upload.
  'POST /api/knowledge/bases/{kbId}/documents/{documentId}/retry',
  // Knowledge sources: a base kept current from the web, a sitemap or the tenant's own content site.
  'POST /api/knowledge/bases/{kbId}/sources',
  'GET /api/knowledge/bases/{kbId}/sources',
  'GET /api/knowledge/bases/{kbId}/sources/{sourceId}',
  'PUT /api/knowledge/bases/{kbId}/sources/{sourceId}',
  'DELETE /api/knowledge/bases/{kbId}/sources/{sourceId}',
  'POST /api/knowledge/bases/{kbId}/sources/{sourceId}/sync',
  // The inbox a front end needs: who hears of an escalation, paged messages, hand-back, read state.
  'GET /api/conversations/settings',
  'PUT /api/conversations/settings',
  'GET /api/conversations/{conversationId}/messages',
  'POST /api/conversations/{conversationId}/hand-back',
  'POST /api/conversations/{conversationId}/read',
  // Outbound webhooks: the spec leaves delivery of events to external subscribers open.
  'POST /api/webhook-subscriptions',
  'GET /api/webhook-subscriptions',
  'GET /api/webhook-subscriptions/{webhookSubscriptionId}',
  'PUT /api/webhook-subscriptions/{webhookSubscriptionId}',
  'DELETE /api/webhook-subscriptions/{webhookSubscriptionId}',
  'POST /api/webhook-subscriptions/{webhookSubscriptionId}/test',
  'POST /api/webhook-subscriptions/{webhookSubscriptionId}/rotate-secret',
  'GET /api/webhook-subscriptions/{webhookSubscriptionId}/deliveries',
  'GET /api/webhook-subscriptions/{webhookSubscriptionId}/deliveries/{deliveryId}',
  // Chat channels as the platforms behave: WhatsApp's approved templates, Discord's slash command.
  'POST /api/ai/channels/{channelId}/templates',
  'GET /api/ai/channels/{channelId}/templates',
  'DELETE /api/ai/channels/{channelId}/templates/{templateId}',
  'POST /api/ai/channels/{channelId}/discord/commands',
  // A/B tests of a prompt's approved versions (the issue names these routes; the spec has only abTestConfig).
  'PUT /api/prompts/{promptId}/ab-test',
  'GET /api/prompts/{promptId}/ab-test',
  'DELETE /api/prompts/{promptId}/ab-test',
];
