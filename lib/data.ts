import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TABLE_DESIGN } from '../shared/data/table-design.ts';
import type { StackSettings } from './settings.ts';

const str = (name: string) => ({ name, type: AttributeType.STRING });

/** The single table (shared/data/table-design.ts) and the media and invoice buckets. */
export class DataStores extends Construct {
  readonly table: Table;
  readonly media: Bucket;
  readonly invoices: Bucket;

  constructor(scope: Construct, id: string, settings: StackSettings) {
    super(scope, id);
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
        sortKey: str(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }

    const privateBucket = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
    };
    this.media = new Bucket(this, 'Media', {
      ...privateBucket,
      // Browsers fetch media through presigned GET URLs.
      cors: [{ allowedMethods: [HttpMethods.GET, HttpMethods.HEAD], allowedOrigins: settings.corsOrigins, maxAge: 3600 }],
    });
    this.invoices = new Bucket(this, 'Invoices', {
      ...privateBucket,
      versioned: true,
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(7) }],
    });
  }
}
