// Imported first by run.ts: the environment a handler sees, set before any handler module loads.
process.env.AWS_ACCESS_KEY_ID ??= 'bench';
process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING = '1';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.TABLE_NAME = `bench-${Date.now()}`;
process.env.INTERNAL_API_KEY ??= 'bench-internal-key';
// Access logs stay on at INFO as in Lambda; run.ts sends handler output to a sink while timing.
process.env.LOG_LEVEL ??= 'INFO';
// The local model pauses between streamed words by default (for people watching a stream): the bench
// measures the gateway, not that pause.
process.env.LOCAL_MODEL_WORD_DELAY_MS ??= '0';
