import type { ToolItem } from '#areas/tools/records.ts';

/** What the model is told a tool takes: its arguments' JSON Schema, for the tools whose arguments have names to learn. */
const MANAGE_SCHEDULE = {
  type: 'object',
  properties: {
    action: {
      type: 'string',
      enum: ['find_slots', 'book', 'move', 'cancel'],
      description: 'find_slots first; book, move or cancel for the person you are talking to',
    },
    from: { type: 'string', description: "find_slots: first day, YYYY-MM-DD in the calendar's time zone" },
    to: { type: 'string', description: 'find_slots: last day, YYYY-MM-DD (at most 31 days)' },
    start: {
      type: 'string',
      description: 'book, move: the start of one of the free slots, exactly as find_slots gave it',
    },
    appointmentId: { type: 'string', description: 'move, cancel: the id the booking answered' },
    name: { type: 'string', description: "book, move, cancel: the person's name, from the conversation" },
    email: { type: 'string', description: "book, move, cancel: the person's e-mail address, from the conversation" },
  },
  required: ['action'],
  additionalProperties: false,
} as const;

const BY_CODE: Readonly<Record<string, Record<string, unknown>>> = { manage_schedule: MANAGE_SCHEDULE };

export const toolParameters = (tool: Pick<ToolItem, 'baseToolCode'>): Record<string, unknown> =>
  (Object.hasOwn(BY_CODE, tool.baseToolCode) ? BY_CODE[tool.baseToolCode] : undefined) ?? {
    type: 'object',
    additionalProperties: true,
  };
