/**
 * The built-in tools a tenant configures its own tools from (`baseToolId`). Stored as platform
 * items (`keys.platformItem('BUILTIN_TOOL', id)`) by the seed; ids are fixed so re-seeding is
 * idempotent and tenant tools keep pointing at the same base tool.
 */
type BuiltInToolType = 'browser' | 'database' | 'http' | 'schedule' | 'email' | 'chat' | 'mcp';

export interface BuiltInToolRecord {
  id: string;
  code: string;
  name: string;
  description: string;
  type: BuiltInToolType;
  isActive: boolean;
  createdAt: string;
}

const SEEDED_AT = '2026-01-01T00:00:00.000Z';

const tool = (
  id: string,
  code: string,
  name: string,
  type: BuiltInToolType,
  description: string,
): BuiltInToolRecord => ({
  id,
  code,
  name,
  description,
  type,
  isActive: true,
  createdAt: SEEDED_AT,
});

/** Each send-message tool's platform: the channel connection type it sends through. */
export const SEND_TOOL_CHANNELS = {
  send_slack_message: 'slack',
  send_teams_message: 'teams',
  send_whatsapp_message: 'whatsapp',
  send_telegram_message: 'telegram',
  send_discord_message: 'discord',
} as const;

/** The five chat channels with a send-message tool. */
export const CHAT_CHANNELS = ['Slack', 'Microsoft Teams', 'WhatsApp', 'Telegram', 'Discord'] as const;

export const BUILT_IN_TOOLS: readonly BuiltInToolRecord[] = [
  tool(
    '4f20608d-a68f-479c-b655-6974b8d72405',
    'browser_action',
    'Browser Action',
    'browser',
    'Open a web page and act on it: navigate, click, fill and read',
  ),
  tool(
    '1bf8ec57-81a9-4862-9f38-9ff4aab6ac61',
    'db_execute',
    'Db Execute',
    'database',
    'Run a data-changing statement on a configured database',
  ),
  tool(
    '23797d82-d726-4319-bf1d-c8dd02ca89fb',
    'db_query',
    'Db Query',
    'database',
    'Run a read-only query on a configured database',
  ),
  tool(
    '57bcdc6e-66f2-4866-ba03-13cadb9f8161',
    'http_request',
    'HTTP Request',
    'http',
    'Call an HTTP endpoint and return its response',
  ),
  tool(
    'eaa1114e-7784-4ed6-95fd-749da2798ae9',
    'manage_schedule',
    'Manage Schedule',
    'schedule',
    'Create, move and cancel calendar appointments',
  ),
  tool('d3208ef8-af84-4ac4-a66d-0788ebc7e4c7', 'send_email', 'Send Email', 'email', 'Send an e-mail message'),
  tool(
    'd9e30e1e-2854-4d20-87d3-76ec61656fe9',
    'send_slack_message',
    'Send Slack Message',
    'chat',
    'Post a message to a Slack channel',
  ),
  tool(
    '44b3fa96-fb5f-4dc4-b8dc-802b9ebbb98d',
    'send_teams_message',
    'Send Microsoft Teams Message',
    'chat',
    'Post a message to a Microsoft Teams channel',
  ),
  tool(
    '0561e70f-a534-4759-949e-a5ca548796e6',
    'send_whatsapp_message',
    'Send WhatsApp Message',
    'chat',
    'Send a WhatsApp message',
  ),
  tool(
    'c9c9e4fa-3cf6-4f70-8b13-47665be8e10a',
    'send_telegram_message',
    'Send Telegram Message',
    'chat',
    'Send a Telegram message',
  ),
  tool(
    'aa4b8179-2cc3-433a-bf48-fd7f408660df',
    'send_discord_message',
    'Send Discord Message',
    'chat',
    'Post a message to a Discord channel',
  ),
  tool(
    '7c1e5f0a-3b2d-4e8f-9a61-5d0c2b7e4f93',
    'mcp',
    'MCP Server',
    'mcp',
    'Call the tools of a Model Context Protocol server (Streamable HTTP) that the tenant picks',
  ),
];

/**
 * The built-in tools whose new tools ask a person before each side-effecting call, until their owner
 * says otherwise: those that send, change data or act on pages and calendars (an HTTP Request and a
 * Db Query read by default).
 */
const ASKS_BY_DEFAULT = new Set<string>([
  'send_email',
  'db_execute',
  'browser_action',
  'manage_schedule',
  'mcp',
  ...Object.keys(SEND_TOOL_CHANNELS),
]);

/** Whether a new tool of this built-in tool asks a person before each side-effecting call. */
export const approvalByDefault = (baseToolCode: string) => ASKS_BY_DEFAULT.has(baseToolCode);
