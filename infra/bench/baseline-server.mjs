/**
 * The benchmark's no-op baseline: the bare app (bare-app.mjs) answering the Slack webhook 200 at once, so the
 * difference from the real path is the pipeline and the app's hooks, not the HTTP stack. `PORT` names the loopback
 * port; run by infra/bench/run.ts, three of these behind nginx.
 */
import { bareApp, serve } from "./bare-app.mjs";

await serve(bareApp(async (_request, reply) => reply.code(200).send({ ok: true })));
