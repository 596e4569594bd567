import { dbExecute, dbQuery } from './database.ts';
import { httpRequest } from './http-request.ts';
import { registerExecutor } from './registry.ts';
import { sendEmail } from './send-email.ts';
import { sendMessage } from './send-message.ts';
import { SEND_TOOL_CHANNELS } from '#areas/tools/built-in-tools.ts';

/** Every built executor, by base tool code; the others answer "not available" (registry.ts). */
registerExecutor('http_request', httpRequest);
registerExecutor('send_email', sendEmail);
registerExecutor('db_query', dbQuery);
registerExecutor('db_execute', dbExecute);
for (const code of Object.keys(SEND_TOOL_CHANNELS)) registerExecutor(code, sendMessage);
