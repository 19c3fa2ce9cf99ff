/** Who a Slack bot is: the ids auth.test and the Events API use for it. */
export interface SlackBotIds {
  teamId: string;
  appId: string;
  /** The bot user (what `<@…>` mentions). */
  userId: string;
  botId: string;
  /** Its Enterprise Grid org, if any. */
  enterpriseId?: string;
  /** Installed org-wide: the org's installation delivers for every workspace in it. */
  enterpriseInstall?: boolean;
}
