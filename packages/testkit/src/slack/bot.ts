/** Who a Slack bot is: the ids auth.test and the Events API use for it. */
export interface SlackBotIds {
  teamId: string;
  appId: string;
  /** The bot user (what `<@…>` mentions). */
  userId: string;
  botId: string;
}
