import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { CfnVectorBucket } from 'aws-cdk-lib/aws-s3vectors';
import { Construct } from 'constructs';
import { TABLE_DESIGN } from '#shared/data/table-design.ts';
import { SCREENSHOT_PREFIX } from '#areas/tools/browser/screenshots.ts';
import type { StackSettings } from './settings.ts';

const str = (name: string) => ({ name, type: AttributeType.STRING });

/** How long S3 server access logs are kept. */
const ACCESS_LOG_RETENTION_DAYS = 90;

/** The single table (shared/data/table-design.ts), the media and invoice buckets and their access-log bucket. */
export class DataStores extends Construct {
  readonly table: Table;
  readonly media: Bucket;
  readonly invoices: Bucket;
  /** Knowledge vectors (Amazon S3 Vectors): one index per knowledge base, created by the worker. */
  readonly knowledgeVectors: CfnVectorBucket;
  /** Receives the server access logs of the other buckets (who read or wrote which object). */
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, settings: StackSettings) {
    super(scope, id);
    // Log delivery is granted by a bucket policy on the log bucket, so it can keep ACLs disabled.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const removalPolicy = settings.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new Table(this, 'Table', {
      partitionKey: str(TABLE_DESIGN.partitionKey),
      sortKey: str(TABLE_DESIGN.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_DESIGN.ttlAttribute,
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: settings.retainData,
      removalPolicy,
    });
    for (const index of TABLE_DESIGN.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: str(index.partitionKey),
        sortKey: index.sortKey ? str(index.sortKey) : undefined,
        projectionType: ProjectionType[index.projection],
      });
    }

    const privateBucket = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
    };
    // SSE-S3, not KMS: S3 log delivery writes only to S3-managed encryption.
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...privateBucket,
      lifecycleRules: [
        { expiration: Duration.days(ACCESS_LOG_RETENTION_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    const logged = (prefix: string) => ({
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: `${prefix}/`,
    });
    this.media = new Bucket(this, 'Media', {
      ...privateBucket,
      ...logged('media'),
      // Browser Action screenshots are handed out as 10-minute links: a day is plenty.
      lifecycleRules: [{ prefix: SCREENSHOT_PREFIX, expiration: Duration.days(1) }],
      // CORS only for presigned uploads (a browser PUTs the file straight to S3 from the admin
      // origins); presigned GETs are plain links and images, which need no CORS.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT],
          allowedOrigins: settings.corsOrigins,
          allowedHeaders: ['content-type'],
          maxAge: 3600,
        },
      ],
    });
    this.invoices = new Bucket(this, 'Invoices', {
      ...privateBucket,
      ...logged('invoices'),
      versioned: true,
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(7) }],
    });
    // A vector bucket is private by design (no public access or ACLs exist for it); SSE-S3 at rest.
    this.knowledgeVectors = new CfnVectorBucket(this, 'KnowledgeVectors', {
      vectorBucketName: `${settings.appName}-${settings.stage}-knowledge-vectors`.toLowerCase(),
      encryptionConfiguration: { sseType: 'AES256' },
    });
    this.knowledgeVectors.applyRemovalPolicy(removalPolicy);
  }
}
