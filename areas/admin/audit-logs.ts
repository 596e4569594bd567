import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { countOf } from '#shared/data/collection.ts';
import { validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { queryCount, queryItems } from '#shared/data/query.ts';
import { adminKeys, toAuditLogEntry } from './records.ts';

export interface AuditQuery {
  page: number;
  pageSize: number;
  startDate?: string;
  endDate?: string;
  entityType?: string;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** Sorts after `#` and every id character, so `${instant}#~` bounds all entries of that millisecond. */
const AFTER_IDS = '#~';

/**
 * The inclusive createdAt range as gsi1sk bounds (`${createdAt}#${id}`). A date alone means the
 * whole UTC day: a start date from its first millisecond, an end date through its last. A
 * datetime (any offset) is taken as that instant, to the millisecond.
 */
export function auditRange(startDate?: string, endDate?: string): { from: string; to: string } | undefined {
  if (!startDate && !endDate) return undefined;
  const start = startDate
    ? DATE_ONLY.test(startDate)
      ? `${startDate}T00:00:00.000Z`
      : new Date(startDate).toISOString()
    : '0000';
  const end = endDate
    ? DATE_ONLY.test(endDate)
      ? `${endDate}T23:59:59.999Z`
      : new Date(endDate).toISOString()
    : '9999';
  if (startDate && endDate && start > end) {
    throw validationError([{ path: 'query.endDate', message: 'endDate must not be before startDate' }]);
  }
  return { from: start, to: `${end}${AFTER_IDS}` };
}

/** The Query of the audit index: the date range is a key condition, entityType a filter. */
export function auditQueryInput(q: Pick<AuditQuery, 'startDate' | 'endDate' | 'entityType'>): QueryCommandInput {
  const range = auditRange(q.startDate, q.endDate);
  const values: Record<string, unknown> = { ':pk': adminKeys.auditLog() };
  let condition = 'gsi1pk = :pk';
  if (range) {
    condition += ' AND gsi1sk BETWEEN :from AND :to';
    values[':from'] = range.from;
    values[':to'] = range.to;
  }
  if (q.entityType) values[':entityType'] = q.entityType;
  return {
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: condition,
    ExpressionAttributeValues: values,
    ...(q.entityType
      ? { FilterExpression: '#entityType = :entityType', ExpressionAttributeNames: { '#entityType': 'entityType' } }
      : {}),
    ScanIndexForward: false,
  };
}

/**
 * Newest first. Unfiltered: the maintained counter and one Query that stops at the page's end.
 * Filtered: a COUNT Query of the same range and filter (no items transferred) beside a Query
 * that reads only until the page's end.
 */
export async function listAuditLogs(q: AuditQuery) {
  const input = auditQueryInput(q);
  const filtered = Boolean(q.startDate || q.endDate || q.entityType);
  const end = q.page * q.pageSize;
  const [totalCount, items] = await Promise.all([
    filtered ? queryCount(input) : countOf(adminKeys.auditLog()),
    queryItems(input, end),
  ]);
  return toPage(items.slice(end - q.pageSize, end).map(toAuditLogEntry), totalCount, q.page, q.pageSize);
}
