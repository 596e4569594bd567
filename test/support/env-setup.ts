// Every tier: no real AWS credentials or region lookups, no SDK deprecation banner on Node 20.
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING = '1';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.LOG_LEVEL ??= 'SILENT';
process.env.LOG_LEVEL ??= 'SILENT';
// Business metrics are EMF lines on stdout; test/unit/metrics.test.ts turns them back on to read them.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.INTERNAL_API_KEY ??= 'test-internal-key';
// The local model pauses between streamed words by default; tests that want a pause set their own.
process.env.LOCAL_MODEL_WORD_DELAY_MS ??= '0';
