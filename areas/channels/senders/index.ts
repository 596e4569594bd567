export { sendDiscord } from './discord.ts';
export { sendSlack } from './slack.ts';
export { sendTeams } from './teams.ts';
export { sendTelegram } from './telegram.ts';
export { sendWhatsApp } from './whatsapp.ts';
