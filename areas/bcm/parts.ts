import * as z from 'zod/mini';
import { optionalText, text, uuid } from '#shared/routes/schemas.ts';
import { once } from '#shared/routes/types.ts';

/** The eight part lists of a BIA entry: the `{part}` path segment of PUT .../entries/{entryId}/{part}. */
export const BIA_PARTS = [
  'digital-assets',
  'printed-assets',
  'communication-systems',
  'production-systems',
  'equipment-assets',
  'supplier-dependencies',
  'recovery-strategies',
  'process-dependencies',
] as const;
export type BiaPart = (typeof BIA_PARTS)[number];
/** Items per part list. */
export const PART_LIMIT = 200;

export const isBiaPart = (part: string): part is BiaPart => (BIA_PARTS as readonly string[]).includes(part);

const name = () => text(200);
const note = () => z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(1000))));
const quantity = () => z.optional(z.nullable(z.int().check(z.minimum(0), z.maximum(1_000_000))));

/** Item schema per part, as the entry detail shows them (the handler checks each item against its part's). */
export const PART_ITEMS = once(
  () =>
    ({
      'digital-assets': z.object({ name: name(), description: note() }),
      'printed-assets': z.object({ name: name(), quantity: quantity() }),
      'communication-systems': z.object({ name: name(), type: text(100) }),
      'production-systems': z.object({ name: name(), type: text(100) }),
      'equipment-assets': z.object({ name: name(), quantity: quantity() }),
      'supplier-dependencies': z.object({ name: name(), contactName: optionalText(200) }),
      'recovery-strategies': z.object({ category: text(100), description: note() }),
      'process-dependencies': z.object({ id: uuid() }),
    }) as const,
);

/** Field of the entry record each part fills. */
export const PART_FIELDS = {
  'digital-assets': 'digitalAssets',
  'printed-assets': 'printedAssets',
  'communication-systems': 'communicationSystems',
  'production-systems': 'productionSystems',
  'equipment-assets': 'equipmentAssets',
  'supplier-dependencies': 'supplierDependencies',
  'recovery-strategies': 'recoveryStrategies',
  'process-dependencies': 'processDependencies',
} as const satisfies Record<BiaPart, string>;

/** The part lists other than process dependencies (which name entries, shown with their titles). */
export type ItemPartField = Exclude<(typeof PART_FIELDS)[BiaPart], 'processDependencies'>;
export const ITEM_PART_FIELDS = BIA_PARTS.filter((p) => p !== 'process-dependencies').map(
  (p) => PART_FIELDS[p] as ItemPartField,
);
