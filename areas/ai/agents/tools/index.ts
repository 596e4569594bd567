import { dbExecute, dbQuery } from './database.ts';
import { httpRequest } from './http-request.ts';
import { registerExecutor } from './registry.ts';
import { sendEmail } from './send-email.ts';

/** Every built executor, by base tool code; the others answer "not available" (registry.ts). */
registerExecutor('http_request', httpRequest);
registerExecutor('send_email', sendEmail);
registerExecutor('db_query', dbQuery);
registerExecutor('db_execute', dbExecute);
