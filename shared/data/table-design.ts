/**
 * The single table's physical design, shared by the CDK stack and the local/test table creation
 * so both always match. Key shapes themselves live in keys.ts.
 */
export interface IndexDesign {
  name: string;
  partitionKey: string;
  sortKey?: string;
  /** ALL unless the index only answers "where does this key live". */
  projection: 'ALL' | 'KEYS_ONLY';
}

export const TABLE_DESIGN = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' },
    // A record's id alone -> its partition: lets a SystemAdmin address a tenant record by id.
    { name: 'byId', partitionKey: 'id', projection: 'KEYS_ONLY' },
  ] satisfies IndexDesign[] as IndexDesign[],
} as const;

/** Every attribute a key or index key is made of (all strings). */
export const keyAttributes = (): string[] => [
  ...new Set([
    TABLE_DESIGN.partitionKey,
    TABLE_DESIGN.sortKey,
    ...TABLE_DESIGN.indexes.flatMap((i) => (i.sortKey ? [i.partitionKey, i.sortKey] : [i.partitionKey])),
  ]),
];
