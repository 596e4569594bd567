/** A write refused by its ConditionExpression (not an error of the request itself). */
export const isConditionFailure = (err: unknown) =>
  (err as { name?: string }).name === 'ConditionalCheckFailedException';

/**
 * The item a failed condition returns with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`, as raw
 * attribute values (the document client leaves it so); empty when there was none.
 */
export const itemOfFailure = (err: unknown) => (err as { Item?: Record<string, unknown> }).Item ?? {};

/** A number attribute of such an item (a raw `{ N }` value), or `otherwise` when it has none. */
export const rawNumber = (v: unknown, otherwise = 0) => Number((v as { N?: string } | undefined)?.N ?? otherwise);
