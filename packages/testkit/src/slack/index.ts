export type { SlackBotIds } from "./bot.ts";
export * from "./connect-workspace.ts";
export * from "./events.ts";
export * from "./fake-slack.ts";
export * from "./fake-socket-mode.ts";
export * from "./fake-token-rotation.ts";
export { nextTs, slackId } from "./ids.ts";
export * from "./interactions.ts";
export * from "./signed-requests.ts";
