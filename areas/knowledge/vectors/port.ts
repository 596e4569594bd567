// From port.ts: a module reached through `import()` that reaches the platform ports makes esbuild keep
// every export of the SSM client.
import { defineLoadedPort } from '#shared/platform/port.ts';

/**
 * The vector store behind knowledge: Amazon S3 Vectors in deployed stages (s3-vectors.ts), a stand-in
 * locally and in tests (store.ts says what both do).
 */

/** The local server and tests install the stand-in; a deployed function loads the S3 Vectors adapter on first use. */
export const vectorStore = defineLoadedPort(async () => (await import('./s3-vectors.ts')).createS3VectorStore());
