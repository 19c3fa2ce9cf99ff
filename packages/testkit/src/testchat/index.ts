export { TestchatAdapter } from "./adapter.ts";
export { type TestchatCredentials, testchatCredentialsSchema } from "./credentials.ts";
export { mentionOf, ownMessageOf, signTestchatDelivery, twinOf } from "./deliveries.ts";
export { FakeTestchat, type FakeTestchatBot } from "./fake-testchat.ts";
export type { TestchatDelivery } from "./payload.ts";
export { testchatPlatform } from "./platform.ts";
